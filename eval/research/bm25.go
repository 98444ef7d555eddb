package research

import (
	"math"
	"sort"
)

// BM25 is an in-memory Okapi BM25 index (k1 1.2, b 0.75), the baseline
// lexical ranker and a stand-in for FTS5's bm25().
type BM25 struct {
	// K1 and B are the BM25 parameters (1.2 and 0.75 when zero).
	K1, B float64
	an    Analyzer
	docs  []map[string]int
	lens  []int
	df    map[string]int
	avgdl float64
}

// NewBM25 indexes texts with the analyzer.
func NewBM25(an Analyzer, texts []string) *BM25 {
	x := &BM25{an: an, df: map[string]int{}}
	total := 0
	for _, t := range texts {
		tf := map[string]int{}
		terms := an.Terms(t)
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
		x.avgdl = float64(total) / float64(len(texts))
	}
	return x
}

// Search returns document indexes by descending BM25 score (score > 0).
func (x *BM25) Search(query string, limit int) []Ranked {
	k1, b := x.K1, x.B
	if k1 == 0 {
		k1 = 1.2
	}
	if b == 0 {
		b = 0.75
	}
	n := float64(len(x.docs))
	seen := map[string]bool{}
	scores := make([]float64, len(x.docs))
	for _, w := range x.an.Terms(query) {
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
			tf := float64(d[w])
			if tf == 0 {
				continue
			}
			scores[i] += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(x.lens[i])/x.avgdl))
		}
	}
	return topN(scores, limit)
}

// Ranked is one search hit: a unit index and its score.
type Ranked struct {
	Doc   int
	Score float64
}

func topN(scores []float64, limit int) []Ranked {
	var out []Ranked
	for i, s := range scores {
		if s > 0 {
			out = append(out, Ranked{i, s})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
