package eval

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// The answer-in-context normaliser. It is deliberately small and fixed:
// the figure compares builds, so its rules must not move with the
// product's own tokenisers.

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

// answerStopwords are English function words: articles, pronouns,
// auxiliaries, prepositions and conjunctions. Negations, yes/no and
// numbers stay content: they can be the whole answer.
var answerStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then so than as of at by for with about into onto
through during before after above below to from up down in out on off over under again once here there when
where why how what which who whom whose this that these those all any both each few more most other some such
own same too very just also i me my mine myself we us our ours ourselves you your yours yourself yourselves he
him his himself she her hers herself it its itself they them their theirs themselves am is are was were be
been being have has had having do does did doing will would shall should can could may might must s t d ll re
ve m im ive id youre theyre hes shes thats its`) {
		m[w] = true
	}
	// "may" is a month here: it folds to "may" and stays content.
	delete(m, "may")
	return m
}()

// AnswerWords returns the content words of s, in order: lowercased,
// punctuation and stopwords dropped, month names folded to three letters,
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
		if w = normWord(w); w != "" && !answerStopwords[w] {
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
		case unicode.Is(unicode.Han, r):
			// Chinese: one word per character.
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
