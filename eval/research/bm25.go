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
	return topN(x.Scores(query), limit)
}

// Scores returns every document's BM25 score for query.
func (x *BM25) Scores(query string) []float64 {
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
	return scores
}

// PRF wraps a BM25 index with pseudo-relevance feedback (RM3-style): the
// Terms best terms (by tf·idf) of the Docs top documents of a first pass
// are added to the query with weight Weight, then the index is searched
// again.
type PRF struct {
	*BM25
	Docs, Terms int
	Weight      float64
}

// Search runs the two passes.
func (p *PRF) Search(query string, limit int) []Ranked {
	first := p.BM25.Scores(query)
	top := topN(append([]float64(nil), first...), p.Docs)
	n := float64(len(p.docs))
	inQuery := map[string]bool{}
	for _, w := range p.an.Terms(query) {
		inQuery[w] = true
	}
	weight := map[string]float64{}
	for _, r := range top {
		for w, tf := range p.docs[r.Doc] {
			if inQuery[w] {
				continue
			}
			df := float64(p.df[w])
			weight[w] += float64(tf) / float64(p.lens[r.Doc]) * math.Log(1+(n-df+0.5)/(df+0.5))
		}
	}
	type tw struct {
		t string
		w float64
	}
	var ts []tw
	for t, w := range weight {
		ts = append(ts, tw{t, w})
	}
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].w != ts[j].w {
			return ts[i].w > ts[j].w
		}
		return ts[i].t < ts[j].t
	})
	for i := 0; i < len(ts) && i < p.Terms; i++ {
		extra := p.BM25.termScores(ts[i].t)
		for d := range first {
			first[d] += p.Weight * extra[d]
		}
	}
	return topN(first, limit)
}

// termScores is the BM25 contribution of one (already analysed) term.
func (x *BM25) termScores(w string) []float64 {
	k1, b := x.K1, x.B
	if k1 == 0 {
		k1 = 1.2
	}
	if b == 0 {
		b = 0.75
	}
	out := make([]float64, len(x.docs))
	df := float64(x.df[w])
	if df == 0 {
		return out
	}
	idf := math.Log(1 + (float64(len(x.docs))-df+0.5)/(df+0.5))
	for i, d := range x.docs {
		if tf := float64(d[w]); tf > 0 {
			out[i] = idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(x.lens[i])/x.avgdl))
		}
	}
	return out
}

// FieldBM25 scores two fields, the memory's own text and its context, as
// FTS5's bm25(table, w_text, w_context) does with per-column weights.
type FieldBM25 struct {
	Own, Ctx *BM25
	// CtxWeight is the context column's weight relative to the text's.
	CtxWeight float64
}

// Search ranks by own + CtxWeight·context.
func (f *FieldBM25) Search(query string, limit int) []Ranked {
	own := f.Own.Scores(query)
	ctx := f.Ctx.Scores(query)
	for i := range own {
		own[i] += f.CtxWeight * ctx[i]
	}
	return topN(own, limit)
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
