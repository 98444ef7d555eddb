package inject

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
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
//     wherever they appear, into "system -" and "Instruction";
//   - sees through HTML entities, \u/\x/% escapes and invisible or filler
//     characters (U+3164, U+FFA0, U+2800, marks) when matching, so
//     "&lt;/memory&gt;" is rewritten too, while "&lt;" that forms no
//     marker stays as written.
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
// nothing), none of the characters the other rewrites need ("<", "[",
// "#") or every escape starts with ("&", "\\", "%"), and no colon after a
// role word (roleColon). Most memories are such text ("On 8 May 2023:
// …", "Melanie: …"); the injector sanitises every candidate line of
// every request, so they skip the rune slices.
func plain(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ':':
			if roleColon(s, i) {
				return false
			}
		case '<', '[', '#', '&', '\\', '%':
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

// roleColon reports whether the colon at s[p] (printable ASCII text)
// ends a role prefix as neutraliseRole finds one: a role word, an
// identifier from a word start up to the colon or the one space before it.
// An identifier runs over letters, digits and "_", and a word starts
// after anything but a letter or digit, so "x_system:" holds "system".
func roleColon(s string, p int) bool {
	b := p
	if b > 0 && s[b-1] == ' ' {
		b--
	}
	a := b
	for a > 0 && asciiIdent(s[a-1]) {
		a--
	}
	var buf [24]byte
	for k := a; k < b; k++ {
		if k > a && asciiAlnum(s[k-1]) || !asciiAlnum(s[k]) || b-k > len(buf) {
			continue
		}
		name := buf[:b-k]
		for j := range name {
			c := s[k+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			name[j] = c
		}
		if roleWords[string(name)] {
			return true
		}
	}
	return false
}

func asciiAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func asciiIdent(c byte) bool { return asciiAlnum(c) || c == '_' }

// sanitize is Sanitize for any text.
//
// Matching runs on a view of the text, not the text itself: invisible and
// filler characters are left out of it and HTML entities and escapes are
// decoded in it (matchView), so "&lt;/memory&gt;" and "</mem\u3164ory>"
// are seen as the closer they read as. Each view cell remembers the span
// of text it came from; only the spans of cells a rewrite touches change,
// so "&lt;" in code stays "&lt;" unless it forms a marker.
func sanitize(s string) string {
	rs, same := flatten(s)
	if len(rs) == 0 {
		return ""
	}
	view := matchView(rs)
	folded := make([]rune, len(view))
	for i, c := range view {
		folded[i] = fold(c.r)
	}
	// out[i], when set, replaces the text of view cell i ("" drops it).
	out := make(map[int]string)
	for i := 0; i < len(folded); i++ {
		switch folded[i] {
		case '<':
			neutraliseTag(folded, i, out)
		case '[':
			neutraliseBracket(folded, i, out)
		case '#':
			i = neutraliseHeading(folded, i, out)
		default:
			// A left-out character counts as a word break: a reader may
			// see one there.
			if isWord(folded[i]) && (i == 0 || !isWord(folded[i-1]) || view[i-1].end != view[i].start) {
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
	// repl[k], when set, replaces the text runes from k to skip[k].
	repl := make(map[int]string, len(out))
	skip := make(map[int]int, len(out))
	for i, v := range out {
		repl[view[i].start], skip[view[i].start] = v, view[i].end
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for k := 0; k < len(rs); k++ {
		if v, ok := repl[k]; ok {
			b.WriteString(v)
			k = skip[k] - 1
			continue
		}
		b.WriteRune(rs[k])
	}
	return strings.TrimSpace(b.String())
}

// cell is one character of the matching view and the runes [start, end)
// of the text it stands for.
type cell struct {
	r          rune
	start, end int
}

// matchView is rs as a reader may take it: without the characters that
// show nothing (invisible reports them) and with entities and escapes
// decoded, repeatedly, so "&amp;lt;" reads as "<" too.
func matchView(rs []rune) []cell {
	v := make([]cell, 0, len(rs))
	for i, r := range rs {
		if !invisible(r) {
			v = append(v, cell{r, i, i + 1})
		}
	}
	for pass := 0; pass < 3; pass++ {
		var changed bool
		if v, changed = decodeEscapes(v); !changed {
			break
		}
	}
	return v
}

// invisible reports characters that render as nothing or as blank space
// without being white space, so a reader does not see them between the
// letters of a tag: format characters (zero-width, bidi controls, tags),
// default-ignorable code points (Hangul fillers U+115F, U+1160, U+3164,
// U+FFA0, ...), variation selectors, combining and enclosing marks, and
// the blank Braille pattern U+2800, which is drawn as a space.
func invisible(r rune) bool {
	if r < 0x80 {
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) ||
		r == '\u2800'
}

// decodeEscapes decodes one level of HTML character references (named
// "&lt;", decimal "&#60;", hex "&#x3c;", the semicolon optional where
// html allows it), JavaScript/JSON escapes
// ("\u003c", "\x3c") and URL escapes ("%3C") in v.
func decodeEscapes(v []cell) ([]cell, bool) {
	var out []cell
	for i := 0; i < len(v); i++ {
		r, n := decodeAt(v, i)
		if n == 0 {
			if out != nil {
				out = append(out, v[i])
			}
			continue
		}
		if out == nil {
			out = append(make([]cell, 0, len(v)), v[:i]...)
		}
		out = append(out, cell{r, v[i].start, v[i+n-1].end})
		i += n - 1
	}
	if out == nil {
		return v, false
	}
	return out, true
}

// maxEscape bounds the length of one escape (the longest entity name is 31).
const maxEscape = 34

// decodeAt decodes the escape starting at v[i], if any: the rune and the
// number of cells it spans (0 when there is none).
func decodeAt(v []cell, i int) (rune, int) {
	switch v[i].r {
	case '&':
		return decodeEntity(v, i)
	case '\\':
		if i+1 < len(v) && (v[i+1].r == 'u' || v[i+1].r == 'x') {
			digits := 4
			if v[i+1].r == 'x' {
				digits = 2
			}
			if r, ok := hexRun(v, i+2, digits); ok {
				return r, 2 + digits
			}
		}
	case '%':
		if r, ok := hexRun(v, i+1, 2); ok {
			return r, 3
		}
	}
	return 0, 0
}

func decodeEntity(v []cell, i int) (rune, int) {
	j := i + 1
	var nb strings.Builder
	for j < len(v) && j-i < maxEscape && (isASCIIWord(v[j].r) || (j == i+1 && v[j].r == '#')) {
		nb.WriteRune(v[j].r)
		j++
	}
	name := nb.String()
	if name == "" {
		return 0, 0
	}
	if j < len(v) && v[j].r == ';' {
		if r, ok := oneRune(html.UnescapeString("&" + name + ";")); ok {
			return r, len(name) + 2
		}
	}
	// Without the semicolon a reader takes the longest entity the name
	// starts with ("&ltmemory" reads as "<memory"), as html does.
	dec := html.UnescapeString("&" + name)
	if dec == "&"+name {
		return 0, 0
	}
	r, size := utf8.DecodeRuneInString(dec)
	rest := dec[size:]
	if r == utf8.RuneError || !strings.HasSuffix(name, rest) {
		return 0, 0
	}
	return r, 1 + len(name) - len(rest)
}

// oneRune returns the rune s holds when it holds exactly one.
func oneRune(s string) (rune, bool) {
	r, size := utf8.DecodeRuneInString(s)
	return r, size == len(s) && r != utf8.RuneError && s != ""
}

// hexRun reads exactly digits hex digits at v[j:].
func hexRun(v []cell, j, digits int) (rune, bool) {
	if j+digits > len(v) {
		return 0, false
	}
	var r rune
	for k := j; k < j+digits; k++ {
		d := v[k].r
		switch {
		case d >= '0' && d <= '9':
			d -= '0'
		case d >= 'a' && d <= 'f':
			d -= 'a' - 10
		case d >= 'A' && d <= 'F':
			d -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | d
	}
	return r, utf8.ValidRune(r) && r != 0
}

func isASCIIWord(r rune) bool {
	return r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
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
	name, end, _ := identPrefix(f, j, &buf)
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
	name, end, whole := identPrefix(f, j, buf)
	if !whole {
		return nil, end
	}
	return name, end
}

// identPrefix is ident that also returns the identifier's leading ASCII
// part when the whole is not ASCII ("memoryé" gives "memory", whole
// false): a tag name that starts like a marker reads as one.
func identPrefix(f []rune, j int, buf *[24]byte) (name []byte, end int, whole bool) {
	name = buf[:0]
	whole = true
	for ; j < len(f) && (isWord(f[j]) || f[j] == '_'); j++ {
		if f[j] >= 0x80 || len(name) == len(buf) {
			whole = false
			continue
		}
		if whole {
			name = append(name, byte(f[j]))
		}
	}
	return name, j, whole
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
