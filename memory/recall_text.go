package memory

import (
	"strings"
	"unicode"
)

// stopTerms are query words that carry no topic: without them "what is my
// dog's name" is about {dog, name}, not about {what, is, my, s}.
var stopTerms = map[string]bool{
	"a": true, "an": true, "the": true, "is": true, "are": true, "was": true, "were": true, "be": true,
	"been": true, "am": true, "do": true, "does": true, "did": true, "have": true, "has": true, "had": true,
	"i": true, "me": true, "my": true, "you": true, "your": true, "we": true, "our": true, "he": true,
	"she": true, "it": true, "its": true, "they": true, "them": true, "their": true, "his": true, "her": true,
	"what": true, "which": true, "who": true, "whom": true, "when": true, "where": true, "why": true, "how": true,
	"of": true, "to": true, "in": true, "on": true, "at": true, "for": true, "with": true, "about": true,
	"from": true, "by": true, "as": true, "and": true, "or": true, "but": true, "not": true, "no": true,
	"so": true, "that": true, "this": true, "these": true, "those": true, "there": true, "s": true, "t": true,
	"can": true, "could": true, "would": true, "should": true, "will": true, "shall": true, "may": true,
	"might": true, "any": true, "some": true, "tell": true, "know": true, "please": true, "again": true,
	"remember": true, "recall": true, "said": true, "told": true, "mentioned": true, "last": true,
	"的": true, "了": true, "吗": true, "呢": true, "吧": true, "啊": true, "是": true, "我": true,
	"你": true, "什么": true, "怎么": true, "我的": true, "记得": true, "之前": true, "上次": true,
}

// contentTerms are the query's distinct topic terms: lowercased words and
// CJK character bigrams (a lone CJK character as itself), stop words out.
func contentTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	eachTerm(q, func(t string) {
		if !stopTerms[t] && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}

// coverage is the share of terms that occur in text (0 with no terms).
func coverage(terms []string, text string) float64 {
	if len(terms) == 0 {
		return 0
	}
	have := map[string]bool{}
	eachTerm(text, func(t string) { have[t] = true })
	n := 0
	for _, t := range terms {
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(len(terms))
}

// eachTerm splits text into words (letters, digits, marks; lowercased) and
// CJK bigrams, the way the stores index it.
func eachTerm(text string, emit func(string)) {
	var word strings.Builder
	var cjk []rune
	flushWord := func() {
		if word.Len() > 0 {
			emit(strings.ToLower(word.String()))
			word.Reset()
		}
	}
	flushCJK := func() {
		if len(cjk) == 1 {
			emit(string(cjk))
		}
		for i := 0; i+1 < len(cjk); i++ {
			emit(string(cjk[i : i+2]))
		}
		cjk = cjk[:0]
	}
	for _, r := range text {
		switch {
		case cjkScript(r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			flushCJK()
			word.WriteRune(r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
}

// excluder answers "is this memory already in the request's messages?" by
// substring match over normalised text (case, width, punctuation and
// spacing ignored).
type excluder struct{ hay string }

func newExcluder(texts []string) excluder {
	var b strings.Builder
	for _, t := range texts {
		b.WriteString(normalizeForMatch(t))
		b.WriteByte('\n') // never produced by normalizeForMatch: no match spans two messages
	}
	return excluder{hay: b.String()}
}

func (e excluder) contains(text string) bool {
	n := normalizeForMatch(text)
	return n != "" && strings.Contains(e.hay, n)
}

// normalizeForMatch lowercases, folds fullwidth ASCII, keeps letters,
// digits and CJK, and turns every other run into one space.
func normalizeForMatch(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r >= 0xff01 && r <= 0xff5e {
			r -= 0xfee0
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b.String()
}
