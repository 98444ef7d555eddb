package inject

import (
	"strings"
	"unicode"
)

// Sanitize makes a memory's text safe to place inside the fence as one
// line. Memories are written from what users and models said, so their text
// is untrusted: it must not close or open the fence, pose as a chat role or
// a chat-template token, or smuggle invisible characters. Sanitize
//
//   - removes control and format characters (zero-width, bidi overrides,
//     Unicode tag characters) and invalid UTF-8;
//   - turns every line break and space run into one space, so a memory is
//     one line;
//   - rewrites tags that look like the fence or a template marker
//     (<memory>, </memory attr>, <|im_start|>, <<SYS>>, <s>, in any case,
//     spacing, fullwidth or look-alike brackets and Cyrillic/Greek
//     homoglyphs) into square brackets: "[/memory]";
//   - rewrites [INST]-style markers into parentheses;
//   - breaks role prefixes ("system:", "Assistant：", "### Instruction"),
//     wherever they appear, into "system -" and "Instruction".
//
// Ordinary text, Chinese punctuation included, is left as it was.
func Sanitize(s string) string {
	if plain(s) {
		return s
	}
	return sanitize(s)
}

// plain reports, by one look at the bytes, that Sanitize would return s as
// it is: printable ASCII with single spaces inside only (flatten changes
// nothing) and none of the characters every rewrite needs ("<", "[", "#",
// ":"). Most memories are such text; the injector sanitises every
// candidate line of every request, so they skip the rune slices.
func plain(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<', '[', '#', ':':
			return false
		case ' ':
			if s[i-1] == ' ' {
				return false
			}
		default:
			if c < ' ' || c > '~' {
				return false
			}
		}
	}
	return true
}

// sanitize is Sanitize for any text.
func sanitize(s string) string {
	rs, same := flatten(s)
	if len(rs) == 0 {
		return ""
	}
	folded := make([]rune, len(rs))
	for i, r := range rs {
		folded[i] = fold(r)
	}
	// out[i], when set, replaces rs[i] ("" drops it).
	out := make(map[int]string)
	for i := 0; i < len(rs); i++ {
		switch folded[i] {
		case '<':
			neutraliseTag(folded, i, out)
		case '[':
			neutraliseBracket(folded, i, out)
		case '#':
			i = neutraliseHeading(folded, i, out)
		default:
			if isWord(folded[i]) && (i == 0 || !isWord(folded[i-1])) {
				neutraliseRole(folded, i, out)
			}
		}
	}
	if len(out) == 0 {
		if same {
			return s
		}
		return string(rs)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range rs {
		if v, ok := out[i]; ok {
			b.WriteString(v)
			continue
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// flatten drops control, format and invalid characters and collapses all
// whitespace (line breaks included) to single spaces; same reports that
// the result is s's runes unchanged.
func flatten(s string) (rs []rune, same bool) {
	rs = make([]rune, 0, len(s))
	v := strings.ToValidUTF8(s, "")
	same = len(v) == len(s)
	space := false
	for _, r := range v {
		switch {
		case unicode.IsSpace(r) || r == '\u2028' || r == '\u2029':
			// Kept only as one ' ' between two kept runes.
			if space || r != ' ' || len(rs) == 0 {
				same = false
			}
			space = true
			continue
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == unicode.ReplacementChar:
			same = false
			continue
		}
		if space && len(rs) > 0 {
			rs = append(rs, ' ')
		}
		space = false
		rs = append(rs, r)
	}
	if space {
		same = false
	}
	return rs, same
}

// tagNames are tag names that must never appear as a tag in a memory: the
// fence itself and the chat-template markers models are trained on.
var tagNames = map[string]bool{
	"memory": true, "memories": true, "s": true, "sys": true, "system": true, "user": true,
	"assistant": true, "developer": true, "tool": true, "im_start": true, "im_end": true,
	"im_sep": true, "endoftext": true, "eot_id": true, "start_header_id": true,
	"end_header_id": true, "begin_of_text": true, "inst": true, "instruction": true,
	"instructions": true, "start_of_turn": true, "end_of_turn": true, "bos": true, "eos": true,
}

// tagPrefixes widen tagNames: a tag whose name starts with one of these
// ("<memory2>", "<memories>", "<system_prompt>", "<tool_call>") reads as
// the fence or a marker to a model. Neutralising "<username>" too is a
// harmless price.
var tagPrefixes = []string{"memor", "sys", "inst", "im_", "eot", "endof", "start_", "end_", "begin_",
	"user", "assistant", "developer", "tool", "function"}

func markerTag(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	if tagNames[string(name)] {
		return true
	}
	for _, p := range tagPrefixes {
		if len(name) >= len(p) && string(name[:len(p)]) == p {
			return true
		}
	}
	return false
}

// roleWords are words that, followed by a colon or after a heading mark,
// read as a speaker or section change to a model.
var roleWords = map[string]bool{
	"system": true, "assistant": true, "user": true, "developer": true, "tool": true,
	"human": true, "ai": true, "model": true, "bot": true, "instruction": true,
	"instructions": true, "response": true, "inst": true,
}

// neutraliseTag turns "<" ... ">" into "[" ... "]" when the tag names the
// fence or a template marker, or is a "<|" special token.
func neutraliseTag(f []rune, i int, out map[int]string) {
	var buf [24]byte
	j := i + 1
	special := j < len(f) && f[j] == '|'
	for j < len(f) && (f[j] == ' ' || f[j] == '/' || f[j] == '<' || f[j] == '|' || f[j] == '!') {
		j++
	}
	name, end := ident(f, j, &buf)
	if !special && !markerTag(name) {
		return
	}
	out[i] = "["
	for k := end; k < len(f) && f[k] != '<'; k++ {
		if f[k] == '>' {
			out[k] = "]"
			return
		}
	}
}

// neutraliseBracket turns "[INST]" and "[/SYS]" into "(INST)" and "(/SYS)".
func neutraliseBracket(f []rune, i int, out map[int]string) {
	var buf [24]byte
	j := i + 1
	for j < len(f) && (f[j] == ' ' || f[j] == '/') {
		j++
	}
	name, end := ident(f, j, &buf)
	if !tagNames[string(name)] {
		return
	}
	for end < len(f) && f[end] == ' ' {
		end++
	}
	if end < len(f) && f[end] == ']' {
		out[i], out[end] = "(", ")"
	}
}

// neutraliseHeading drops a run of "#" that introduces a role word
// ("### Instruction"); it returns the index of the run's last "#".
func neutraliseHeading(f []rune, i int, out map[int]string) int {
	var buf [24]byte
	j := i
	for j < len(f) && f[j] == '#' {
		j++
	}
	k := j
	for k < len(f) && f[k] == ' ' {
		k++
	}
	if name, _ := ident(f, k, &buf); roleWords[string(name)] {
		for x := i; x < j; x++ {
			out[x] = ""
		}
	}
	return j - 1
}

// neutraliseRole breaks "system:" into "system -".
func neutraliseRole(f []rune, i int, out map[int]string) {
	var buf [24]byte
	name, end := ident(f, i, &buf)
	if !roleWords[string(name)] {
		return
	}
	for end < len(f) && f[end] == ' ' {
		end++
	}
	if end < len(f) && f[end] == ':' {
		out[end] = " -"
		if f[end-1] == ' ' {
			out[end] = "-"
		}
	}
}

// ident reads a folded identifier (letters, digits, "_") from j into buf
// and returns it with its end. Only short ASCII identifiers can be
// markers, so any other comes back empty (its end still reported); the
// caller's buffer keeps the lookups free of allocations.
func ident(f []rune, j int, buf *[24]byte) (name []byte, end int) {
	name = buf[:0]
	ascii := true
	for ; j < len(f) && (isWord(f[j]) || f[j] == '_'); j++ {
		if f[j] >= 0x80 || len(name) == len(buf) {
			ascii = false
			continue
		}
		name = append(name, byte(f[j]))
	}
	if !ascii {
		return nil, j
	}
	return name, j
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// fold maps a rune to the ASCII character it may pass for: lower case,
// fullwidth forms, look-alike brackets, slashes, colons and bars, and the
// Cyrillic and Greek letters that look Latin. One rune in, one rune out,
// so indexes stay aligned with the original text.
func fold(r rune) rune {
	if r >= 0xff01 && r <= 0xff5e {
		r -= 0xfee0
	}
	if r < 0x80 {
		return unicode.ToLower(r)
	}
	if v, ok := lookalike[r]; ok {
		return v
	}
	if l := unicode.ToLower(r); l != r {
		if v, ok := lookalike[l]; ok {
			return v
		}
		return l
	}
	return r
}

var lookalike = map[rune]rune{
	// <
	'\ufe64': '<', '\u2039': '<', '\u3008': '<', '\u2329': '<', '\u27e8': '<', '\u276c': '<',
	'\u276e': '<', '\u02c2': '<', '\u1438': '<', '\u226a': '<', '\u00ab': '<',
	// >
	'\ufe65': '>', '\u203a': '>', '\u3009': '>', '\u232a': '>', '\u27e9': '>', '\u276d': '>',
	'\u276f': '>', '\u02c3': '>', '\u1433': '>', '\u226b': '>', '\u00bb': '>',
	// / : | [ ] #
	'\u2044': '/', '\u2215': '/', '\u29f8': '/',
	'\ufe55': ':', '\ufe13': ':', '\u2236': ':', '\ua789': ':', '\u02f8': ':', '\u0589': ':', '\u05c3': ':',
	'\u2223': '|', '\u01c0': '|', '\uffe8': '|', '\u2502': '|',
	'\u3010': '[', '\u3011': ']', '\u3014': '[', '\u3015': ']', '\ufe5d': '[', '\ufe5e': ']',
	'\ufe5f': '#',
	// Cyrillic and Greek letters that read as Latin
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ѕ': 's',
	'ј': 'j', 'м': 'm', 'т': 't', 'к': 'k', 'н': 'h', 'в': 'b', 'ԁ': 'd', 'ո': 'n',
	'ο': 'o', 'α': 'a', 'ε': 'e', 'ι': 'i', 'υ': 'u', 'ν': 'v', 'τ': 't', 'κ': 'k', 'ρ': 'p', 'μ': 'm', 'γ': 'y',
}
