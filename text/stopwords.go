package text

// stopwordList are English function words that lexical queries may drop:
// a word found in most memories ("my", "what") adds little ranking signal
// yet makes a search visit most of the scope. Both stores use it so they
// rank alike.
var stopwordList = []string{
	"the", "a", "an", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with",
	"about", "from", "as", "into", "is", "are", "was", "were", "be", "been", "being", "am",
	"do", "does", "did", "have", "has", "had", "i", "me", "my", "mine", "you", "your", "yours",
	"he", "him", "his", "she", "her", "it", "its", "we", "us", "our", "they", "them", "their",
	"this", "that", "these", "those", "what", "which", "who", "whom", "when", "where", "why", "how",
	"not", "no", "so", "than", "too", "very", "can", "will", "would", "should", "could", "just",
	"s", "t", "there", "then", "some", "any", "all",
}

var stopwords = func() map[string]bool {
	m := make(map[string]bool, len(stopwordList))
	for _, w := range stopwordList {
		m[w] = true
	}
	return m
}()

// Stopwords returns the English function words ContentTerms drops (a copy).
func Stopwords() []string { return append([]string(nil), stopwordList...) }

// IsStopword reports whether a lexical token is an English function word.
func IsStopword(tok string) bool { return stopwords[tok] }

// ContentTerms drops stopwords from query terms (QueryTerms output) unless
// nothing would remain, so "what is it" still matches something.
func ContentTerms(terms []string) []string {
	var out []string
	for _, t := range terms {
		if !stopwords[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return terms
	}
	return out
}
