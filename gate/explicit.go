package gate

import (
	"strings"
	"unicode/utf8"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

const (
	cueRemember uint8 = iota + 1
	cueForget
)

const (
	prefixPolite  uint8 = iota + 1
	prefixRequest       // makes a question a request: "can you remember that …?"
)

// adverbialCues are time adverbials rather than verbs: they mark a standing
// instruction wherever they stand ("answer in French from now on"), so they
// skip the clause-start rule, and their payload keeps them.
var adverbialCues = map[string]bool{
	"from now on": true, "going forward": true, "from today on": true,
	"以后都": true, "从现在开始": true, "从今以后": true, "今后都": true, "以后请": true,
}

// politeness may precede an explicit cue in its clause. Anything else
// before the cue ("I can't", "do you", "我") means the cue is not an
// instruction: "I can't remember that movie", "do you remember that
// trip?", "我忘记了密码".
var politeness = map[uint8][]string{
	prefixPolite: {
		"and", "also", "oh", "ok", "okay", "hey", "so", "but", "just", "now", "btw", "by the way", "hi",
		"hello", "well", "then", "one more thing", "hmm", "alright", "right", "yes", "yeah", "and also",
		"you should", "you need to", "you must", "you have to", "make sure to", "make sure you", "be sure to",
		"try to", "always",
		"你", "你要", "你得", "一定要", "要", "务必", "那", "好", "好的", "还有", "另外", "顺便", "对了", "嗯", "哦",
		"然后", "再", "以后", "以后也", "今后",
	},
	prefixRequest: {
		"please", "pls", "plz", "kindly", "can you", "could you", "would you", "will you", "can u",
		"i want you to", "i'd like you to", "i need you to", "i would like you to",
		"请", "请你", "麻烦", "麻烦你", "帮我", "帮忙", "你帮我", "请帮我", "能不能", "可以", "你能", "你可以",
		"能", "我想让你", "我要你", "我希望你", "希望你",
	},
}

// requestTags at the end of a question make it a request ("记住这个好吗？").
var requestTags = []string{"好吗", "好不好", "可以吗", "行吗", "ok", "okay", "please", "alright", "pls"}

// keepWords end a cue but belong to the payload: "forget my old address"
// → "my old address", "forget what I said" → "what I said".
var keepWords = map[string]bool{"my": true, "i": true, "what": true, "the": true, "our": true, "me": true}

func (g *Gate) compileExplicit(e policy.Explicit) {
	for _, c := range e.RememberCues {
		g.explicit.add(c, cueRemember, false)
	}
	for _, c := range e.ForgetCues {
		g.explicit.add(c, cueForget, false)
	}
	g.explicit.sort()
	for class, list := range politeness {
		for _, s := range list {
			g.prefixes.add(s, class, false)
		}
	}
	g.prefixes.sort()
}

// Intent reports an explicit "remember …" or "forget …" instruction in
// text. A cue counts only as an instruction: at the start of its clause
// (after politeness such as "please", "can you", "请", "帮我"), not negated
// or reported ("I can't remember that …", "我忘记了 …"), and not a plain
// question ("do you remember that trip?", "remember that trip?").
// "don't forget" is a remember cue; "from now on" and "以后都" count
// anywhere.
func (g *Gate) Intent(text string) memory.Intent {
	in, _ := g.Explicit(text)
	return in
}

// ExplicitContent returns the payload of an explicit instruction in text
// ("remember that I'm vegetarian" → "I'm vegetarian"; "记住我对花生过敏" →
// "我对花生过敏"), or "" when there is none. A cue closing its sentence
// takes what came before ("I'm vegan, please remember that." → "I'm
// vegan"); a standing instruction keeps its cue ("From now on, answer in
// French").
func (g *Gate) ExplicitContent(text string) string {
	_, c := g.Explicit(text)
	return c
}

// Explicit returns the intent and the payload together.
func (g *Gate) Explicit(text string) (memory.Intent, string) {
	// In a long message (a pasted document, code) only the opening and
	// the close are read: an instruction to memproxy sits there, while a
	// "remember that …" in the middle of a pasted text is someone else's.
	tail := len(text)
	if len(text) > 2*explicitWindow {
		tail = len(text) - explicitWindow
		for tail < len(text) && !utf8.RuneStart(text[tail]) {
			tail++
		}
	}
	for i := 0; i < len(text); {
		p, start, end, ok := g.explicit.scan(text, i)
		if !ok {
			break
		}
		if start >= explicitWindow && start < tail {
			i = tail
			continue
		}
		if content, ok := g.instruction(text, p, start, end); ok {
			if p.class == cueForget {
				return memory.IntentForget, content
			}
			return memory.IntentRemember, content
		}
		_, n := runeAt(text, start)
		i = start + n
	}
	return memory.IntentNone, ""
}

// instruction checks one cue occurrence and extracts its payload.
func (g *Gate) instruction(text string, p phrase, start, end int) (string, bool) {
	clause := clauseStart(text, start)
	if adverbialCues[p.s] {
		return trimPayload(text[skipSeparators(text, clause):]), true
	}
	if p.class == cueForget {
		// 把我的手机号忘掉吧, 请把那个地址删掉: the object goes before the
		// verb, after 把; what comes before 把 is politeness only.
		pre := text[clause:start]
		if i := strings.Index(pre, "把"); i >= 0 {
			if _, ok := g.politePrefix(pre[:i]); ok {
				if obj := trimPayload(pre[i+len("把"):]); obj != "" {
					return obj, true
				}
			}
		}
	}
	request, ok := g.politePrefix(text[clause:start])
	if !ok {
		return "", false
	}
	if strings.HasPrefix(p.s, "please") || strings.HasPrefix(p.s, "请") {
		request = true
	}
	sentence := text[start:sentenceEnd(text, end)]
	if isQuestion(sentence) && !request && !endsWithTag(sentence) {
		return "", false
	}
	if p.class == cueForget {
		switch strings.ToLower(trimPayload(text[skipSeparators(text, end):])) {
		case "it", "it all", "about it":
			return "", false // "forget about it": never mind, not an instruction
		}
	}
	content := stripTag(payloadAfter(text, p, end))
	if content == "" {
		content = trimPayload(strings.TrimRightFunc(text[:clause], func(r rune) bool { return !isWord(r) }))
	}
	return content, true
}

// politePrefix reports whether s (the clause before a cue) is empty or only
// politeness, and whether it makes the clause a request.
func (g *Gate) politePrefix(s string) (request, ok bool) {
	if len(s) > maxPrefixBeforeCue {
		return false, false
	}
	for i := skipSeparators(s, 0); i < len(s); i = skipSeparators(s, i) {
		p, end, ok := g.prefixes.matchAt(s, i)
		if !ok {
			return false, false
		}
		if p.class == prefixRequest {
			request = true
		}
		i = end
	}
	return request, true
}

// payloadAfter is the text after the cue, minus a leading "that" or
// "this:", keeping a final cue word that belongs to the payload.
func payloadAfter(text string, p phrase, end int) string {
	if i := strings.LastIndexByte(p.s, ' '); i >= 0 && keepWords[p.s[i+1:]] {
		end -= len(p.s) - i - 1 // the cue word matched byte for byte (ASCII)
	}
	rest := text[skipSeparators(text, end):]
	if strings.HasSuffix(p.s, "记") && strings.HasPrefix(rest, "住") {
		rest = rest[len("住"):] // "不要记" + "住我的地址"
	}
	for _, lead := range []string{"that ", "this:", "this：", "这个：", "这个:", "这件事：", "这件事:", "以下：", "以下:", "一下", "下来"} {
		if len(rest) >= len(lead) && strings.EqualFold(rest[:len(lead)], lead) {
			rest = rest[skipSeparators(rest, len(lead)):]
			break
		}
	}
	rest = trimPayload(rest)
	switch strings.ToLower(rest) {
	case "that", "this", "it", "这个", "这些", "这":
		return "" // the payload is what came before: "I'm vegan, remember that"
	}
	return rest
}

func trimPayload(s string) string {
	return strings.TrimRightFunc(strings.TrimSpace(s), func(r rune) bool {
		switch r {
		case '.', '!', '?', '。', '！', '？', '~', '～', ',', '，', ';', '；':
			return true
		}
		return isSpace(r)
	})
}

// clauseStart returns the index just after the clause delimiter before i.
// An ASCII '.', ':' or ',' directly followed by a letter or digit is
// inside a token, not between clauses ("sam@newdomain.io", "https://…",
// "1,000").
func clauseStart(s string, i int) int {
	for i > 0 {
		r, n := runeBefore(s, i)
		if isClauseDelim(r) && !(r == '.' || r == ':' || r == ',') || (r == '.' || r == ':' || r == ',') && !inToken(s, i) {
			return i
		}
		i -= n
	}
	return 0
}

// inToken reports whether the byte at i (just after an ASCII punctuation
// mark) continues a token: a letter, a digit or a slash.
func inToken(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/'
}

// sentenceEnd returns the index of the sentence terminator after i
// (included), or len(s).
func sentenceEnd(s string, i int) int {
	for i < len(s) {
		r, n := runeAt(s, i)
		switch r {
		case '.', '!', '?', '\n', '。', '！', '？':
			return i + n
		}
		i += n
	}
	return len(s)
}

func isClauseDelim(r rune) bool {
	switch r {
	case ',', '.', ';', ':', '!', '?', '\n', '，', '。', '；', '：', '！', '？', '、', '…':
		return true
	}
	return false
}

// isQuestion: a sentence ending in a question mark or a Chinese question
// particle, or holding a Chinese question word.
func isQuestion(s string) bool {
	t := strings.TrimRightFunc(s, func(r rune) bool { return isSpace(r) || r == '.' || r == '。' })
	r, _ := utf8.DecodeLastRuneInString(t)
	switch r {
	case '?', '？', '吗', '呢', '么':
		return true
	}
	for _, w := range []string{"怎么", "为什么", "如何", "什么时候"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func endsWithTag(s string) bool {
	t := strings.TrimRightFunc(s, func(r rune) bool { return !isWord(r) })
	for _, tag := range requestTags {
		if len(t) >= len(tag) && strings.EqualFold(t[len(t)-len(tag):], tag) && boundaryBefore(t, len(t)-len(tag)) {
			return true
		}
	}
	return false
}

// stripTag drops a closing request tag from a payload ("…，好吗").
func stripTag(s string) string {
	if !endsWithTag(s) {
		return s
	}
	t := strings.TrimRightFunc(s, func(r rune) bool { return !isWord(r) })
	for _, tag := range requestTags {
		if len(t) >= len(tag) && strings.EqualFold(t[len(t)-len(tag):], tag) && boundaryBefore(t, len(t)-len(tag)) {
			return trimPayload(t[:len(t)-len(tag)])
		}
	}
	return s
}
