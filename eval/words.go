package eval

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/memproxy/memproxy/text"
)

// The answer-in-context normaliser. Its folding rules are its own and
// fixed, so the figure compares builds; the stopword list and the CJK
// character classes are the shared ones of package text.

// isoDate matches a rendered date (2023-05-07), which the normaliser
// reads as "7 May 2023" so a dated line can carry a gold date.
var isoDate = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)

var monthAbbr = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// months folds month names (full, abbreviated, "sept") to three letters.
var months = func() map[string]string {
	m := map[string]string{"sept": "sep"}
	for i, full := range []string{"january", "february", "march", "april", "may", "june", "july",
		"august", "september", "october", "november", "december"} {
		m[full] = monthAbbr[i]
		m[monthAbbr[i]] = monthAbbr[i]
	}
	return m
}()

// AnswerWords returns the content words of s, in order: lowercased,
// punctuation and stopwords (the shared list of package text) dropped, month names folded to three letters,
// ordinal suffixes ("7th") and a plural -s removed, a possessive 's
// dropped, leading zeros of numbers dropped; a rendered date 2023-05-07
// reads as 7 may 2023.
func AnswerWords(s string) []string {
	s = isoDate.ReplaceAllStringFunc(s, func(d string) string {
		m := isoDate.FindStringSubmatch(d)
		mo, _ := strconv.Atoi(m[2])
		day, _ := strconv.Atoi(m[3])
		if mo < 1 || mo > 12 {
			return d
		}
		return strconv.Itoa(day) + " " + monthAbbr[mo-1] + " " + m[1]
	})
	var out []string
	for _, w := range splitWords(s) {
		if text.IsStopword(w) {
			continue
		}
		if w = normWord(w); w != "" && !text.IsStopword(w) {
			out = append(out, w)
		}
	}
	return out
}

// splitWords lowercases s and splits it into letter/digit runs; an
// apostrophe inside a word ends it ("caroline's" → "caroline", "s").
func splitWords(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case text.IsCJK(r):
			// Chinese, Japanese, Korean: one word per character.
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

func normWord(w string) string {
	if m, ok := months[w]; ok {
		return m
	}
	if w[0] >= '0' && w[0] <= '9' {
		for _, suf := range []string{"st", "nd", "rd", "th", "s"} {
			if n := strings.TrimSuffix(w, suf); n != w && allDigits(n) {
				w = n
				break
			}
		}
		if allDigits(w) {
			if t := strings.TrimLeft(w, "0"); t != "" {
				return t
			}
			return "0"
		}
		return w
	}
	if len(w) > 3 && strings.HasSuffix(w, "ies") {
		return w[:len(w)-3] + "y"
	}
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
		return w[:len(w)-1]
	}
	return w
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// GoldAnswer is the part of a gold answer that answer-in-context scores:
// for open-domain questions (category 3) the part before the first ';',
// as LoCoMo's scorer does; the whole answer otherwise.
func GoldAnswer(category int, gold string) string {
	if category == 3 {
		g, _, _ := strings.Cut(gold, ";")
		return g
	}
	return gold
}

// AnswerInContext is the share of the gold answer's distinct content
// words present in context (see AnswerWords). ok is false when the gold
// answer has no content word: such a question is not scored.
func AnswerInContext(gold, context string) (share float64, ok bool) {
	want := map[string]bool{}
	for _, w := range AnswerWords(gold) {
		want[w] = true
	}
	if len(want) == 0 {
		return 0, false
	}
	have := map[string]bool{}
	for _, w := range AnswerWords(context) {
		have[w] = true
	}
	n := 0
	for w := range want {
		if have[w] {
			n++
		}
	}
	return float64(n) / float64(len(want)), true
}
