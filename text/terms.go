package text

import "strings"

// chatStop are words of conversation about memory itself ("please
// remember", "the user"): beside the function words they match nearly
// every note, so overlap measures leave them out. With the CJK function
// characters.
var chatStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`mine we our been being also really please note remember forget that's i'm i've user user'
	我 你 的 了 是 在 和 也 都 就 很 吧 吗 呢 啊`) {
		chatStop[w] = true
		chatStop[Stem(w)] = true
	}
}

// ContentWords are a text's lexical tokens (QueryTerms: lowercased,
// stemmed, CJK bigrams) without stopwords or memory-talk words: what two
// texts must share to be about the same thing.
func ContentWords(s string) []string {
	terms := QueryTerms(s)
	out := terms[:0] // QueryTerms' list is new: filtered in place
	for _, t := range terms {
		if stopwords[t] || chatStop[t] {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Coverage is the share of a's content words present in b.
func Coverage(a, b string) float64 { return CoverageIn(a, WordSet(b)) }

// WordSet is the set of s's content words (ContentWords), for measuring
// the Coverage of several texts in one.
func WordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, t := range ContentWords(s) {
		set[t] = true
	}
	return set
}

// CoverageIn is Coverage(a, b) given b's WordSet.
func CoverageIn(a string, bs map[string]bool) float64 {
	at := ContentWords(a)
	if len(at) == 0 {
		return 0
	}
	n := 0
	for _, t := range at {
		if bs[t] {
			n++
		}
	}
	return float64(n) / float64(len(at))
}
