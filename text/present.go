package text

import (
	"strings"
	"unicode"
)

// The words by which a message speaks of the present. A temporary state
// ("I've got a cold this week", "我这几天感冒了") is how things are now:
// its search context carries these words so a question about today finds
// it, and recall keeps it for such a question while it holds.
var (
	presentEN = []string{"now", "today", "tonight", "currently", "at the moment", "right now", "this week", "these days"}
	presentZH = []string{"现在", "今天", "今晚", "目前", "这几天", "这周", "最近"}
)

// PresentWords is the present words of both languages, space separated:
// the search-only context of a temporary state.
func PresentWords() string {
	return strings.Join(presentEN, " ") + " " + strings.Join(presentZH, " ")
}

// SpeaksOfNow reports whether s speaks of the present: it holds one of
// the present words (English as whole words, "now" not in "know").
func SpeaksOfNow(s string) bool {
	for _, w := range presentZH {
		if strings.Contains(s, w) {
			return true
		}
	}
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	})
	joined := " " + strings.Join(words, " ") + " "
	for _, w := range presentEN {
		if strings.Contains(joined, " "+w+" ") {
			return true
		}
	}
	return false
}
