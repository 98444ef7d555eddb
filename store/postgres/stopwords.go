package postgres

// stopwordList are English function words dropped from lexical queries.
// ts_rank has no inverse document frequency, so a word found in most
// memories ("my", "what") would rank by repetition alone and make a search
// rank most of the scope. A query made only of such words keeps them.
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

// contentTerms drops stopwords from terms unless nothing would remain.
func contentTerms(terms []string) []string {
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
