package gate

import (
	"strings"

	"github.com/memproxy/memproxy/policy"
)

// Phrase classes of the noise set, in priority order for equal-length
// phrases.
const (
	clsAck uint8 = iota + 1
	clsNeg
	clsGreeting
	clsLaughter
	clsFiller
)

var classNames = [...]string{clsAck: ClassAcknowledgement, clsNeg: ClassNegation, clsGreeting: ClassGreeting, clsLaughter: ClassLaughter}

// fillers may accompany a noise phrase without making the message
// meaningful: "thanks so much", "ok then", "好的呀", "谢谢你". A message of
// fillers alone is not noise.
var fillers = []string{
	"so", "so much", "very much", "a lot", "you", "u", "again", "all", "guys", "man", "bro", "dude",
	"buddy", "mate", "everyone", "everybody", "there", "oh", "ah", "well", "then", "just", "anyway",
	"for that", "for this", "for the help", "for your help", "for everything", "really", "too",
	"啦", "呀", "吧", "啊", "哦", "喔", "噢", "呢", "了", "嘛", "哟", "呐", "咯", "你", "您", "大家",
}

func (g *Gate) compileNoise(p policy.Gate) {
	for _, s := range p.Acknowledgements {
		g.noise.add(s, clsAck, false)
	}
	for _, s := range p.Negations {
		g.noise.add(s, clsNeg, false)
	}
	for _, s := range p.Greetings {
		g.noise.add(s, clsGreeting, false)
	}
	for _, s := range p.Laughter {
		g.noise.add(s, clsLaughter, true)
	}
	for _, s := range fillers {
		g.noise.add(s, clsFiller, false)
	}
	g.noise.sort()
}

// Classify names the skip class of a whole message, or "" when the message
// carries content. noise is true for the six noise classes
// (acknowledgement, emoji_only, command, too_short, negation, laughter);
// a greeting returns ClassGreeting with noise false: it skips recall, and
// a caller dropping turns decides for itself.
//
// Case, surrounding whitespace, punctuation and emoji are ignored
// ("OK!!", "好的～", "thanks 🙏"); a message made only of list phrases
// ("ok thanks", "好的谢谢", "哈哈哈 lol") takes the class of its first one.
func (g *Gate) Classify(text string) (class string, noise bool) {
	start := skipSpace(text)
	if start == len(text) {
		return ClassTooShort, true
	}
	if g.isCommand(text[start:]) {
		return ClassCommand, true
	}
	first, short, symbol := g.measure(text, start)
	if first < 0 {
		if symbol {
			return ClassEmojiOnly, true
		}
		return ClassTooShort, true
	}
	if c, ok := g.cover(text, first); ok {
		return classNames[c], c != clsGreeting
	}
	if short {
		return ClassTooShort, true
	}
	return "", false
}

// measure finds the first word rune and whether the span from it to the
// last word rune holds fewer than minChars runes; it stops early once the
// span is long enough.
func (g *Gate) measure(text string, i int) (first int, short, symbol bool) {
	first = -1
	seen, span := 0, 0
	for i < len(text) {
		r, n := runeAt(text, i)
		if isWord(r) {
			if first < 0 {
				first = i
			}
			seen++
			span = seen
			if span >= g.minChars {
				return first, false, symbol
			}
		} else {
			if first >= 0 {
				seen++
			}
			if !symbol && isSymbol(r) {
				symbol = true
			}
		}
		i += n
	}
	return first, span < g.minChars, symbol
}

// cover reports whether text, from i, is made only of noise phrases and
// fillers with at least one real phrase, and the class of the first one.
func (g *Gate) cover(text string, i int) (uint8, bool) {
	if len(text) > maxCoverableMessage {
		return 0, false
	}
	var class uint8
	for i = skipSeparators(text, i); i < len(text); i = skipSeparators(text, i) {
		p, end, ok := g.noise.matchAt(text, i)
		if !ok {
			return 0, false
		}
		if class == 0 && p.class != clsFiller {
			class = p.class
		}
		i = end
	}
	return class, class != 0
}

// isCommand reports a chat command: a prefix ("/", "!") directly followed
// by a letter, in a first token that is not a path ("/etc/hosts …").
func (g *Gate) isCommand(s string) bool {
	for _, c := range g.commands {
		if !strings.HasPrefix(s, c) {
			continue
		}
		rest := s[len(c):]
		r, n := runeAt(rest, 0)
		if n == 0 || !isLatinWord(r) || r == '\'' || ('0' <= r && r <= '9') {
			continue
		}
		tok := rest
		if k := strings.IndexAny(rest, " \t\r\n"); k >= 0 {
			tok = rest[:k]
		}
		if !strings.Contains(tok, c) {
			return true
		}
	}
	return false
}

func skipSpace(s string) int {
	for i := 0; i < len(s); {
		r, n := runeAt(s, i)
		if !isSpace(r) {
			return i
		}
		i += n
	}
	return len(s)
}

func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x85, 0xA0, 0x3000, 0x200B, 0xFEFF:
		return true
	}
	return false
}
