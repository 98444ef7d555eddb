package eval

import (
	"math"
	"sort"
)

// bm25 is a small in-memory Okapi BM25 index (k1 1.2, b 0.75) over
// AnswerWords terms: the lexical baseline the report sets beside memory.
type bm25 struct {
	docs  []map[string]int
	lens  []int
	df    map[string]int
	avgdl float64
}

func newBM25(texts []string) *bm25 {
	x := &bm25{df: map[string]int{}}
	total := 0
	for _, t := range texts {
		terms := AnswerWords(t)
		tf := map[string]int{}
		for _, w := range terms {
			tf[w]++
		}
		for w := range tf {
			x.df[w]++
		}
		x.docs = append(x.docs, tf)
		x.lens = append(x.lens, len(terms))
		total += len(terms)
	}
	if len(texts) > 0 {
		x.avgdl = math.Max(1, float64(total)/float64(len(texts)))
	}
	return x
}

// search returns the indexes of the documents that match query, best
// first (ties keep document order).
func (x *bm25) search(query string) []int {
	const k1, b = 1.2, 0.75
	n := float64(len(x.docs))
	scores := make([]float64, len(x.docs))
	seen := map[string]bool{}
	for _, w := range AnswerWords(query) {
		if seen[w] {
			continue
		}
		seen[w] = true
		df := float64(x.df[w])
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, d := range x.docs {
			if tf := float64(d[w]); tf > 0 {
				scores[i] += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(x.lens[i])/x.avgdl))
			}
		}
	}
	var out []int
	for i, s := range scores {
		if s > 0 {
			out = append(out, i)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return scores[out[i]] > scores[out[j]] })
	return out
}
