package research

import (
	"context"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// ProductRecall runs the product's own memory.Recaller (fusion, score,
// filters, top-k) over an in-memory candidate source, so a design is
// measured with exactly the ranking the proxy applies.
type ProductRecall struct {
	Recall policy.Recall
	Decay  policy.Decay
	// VectorWeight is RecallerConfig.VectorWeight (0: the Recaller's 1).
	VectorWeight float64
	// MinScore is the gate's threshold (policy gate.min_score); 0 selects
	// whatever ranks.
	MinScore float64
}

// memSearcher serves the Recaller's two searches from the harness's
// indexes: BM25 over the units' index text and brute-force cosine.
type memSearcher struct {
	mems []*memory.Memory
	bm   lexSearcher
	vi   *VectorIndex
}

var _ memory.Searcher = (*memSearcher)(nil)

func (m *memSearcher) VectorSearch(_ context.Context, _ memory.Scope, vec []float32, o memory.SearchOptions) ([]memory.Candidate, error) {
	if m.vi == nil {
		return nil, nil
	}
	return m.cands(m.vi.Search(vec, o.Limit)), nil
}

func (m *memSearcher) LexicalSearch(_ context.Context, _ memory.Scope, q string, o memory.SearchOptions) ([]memory.Candidate, error) {
	if m.bm == nil {
		return nil, nil
	}
	return m.cands(m.bm.Search(q, o.Limit)), nil
}

func (m *memSearcher) cands(rs []Ranked) []memory.Candidate {
	out := make([]memory.Candidate, len(rs))
	for i, r := range rs {
		out[i] = memory.Candidate{Memory: m.mems[r.Doc], Score: r.Score}
	}
	return out
}

type productRanker struct {
	rec      *memory.Recaller
	index    map[string]int
	minScore float64
}

func newProductRanker(rk *ranker, p *ProductRecall) (*productRanker, error) {
	s := &memSearcher{bm: rk.bm, vi: rk.vi}
	pr := &productRanker{index: map[string]int{}}
	for i, u := range rk.units {
		m := &memory.Memory{
			ID: fmt.Sprintf("u%05d", i), Tier: memory.TierEvent, Text: u.Text,
			Value: 0.5, Confidence: 1, Source: memory.SourceEvent,
			Provenance: memory.Provenance{TurnRefs: u.Refs},
			CreatedAt:  u.Time, LastUsedAt: u.Time, ValidFrom: u.Time,
		}
		if rk.vi != nil {
			m.Embedding = rk.vi.vecs[i]
		}
		s.mems = append(s.mems, m)
		pr.index[m.ID] = i
	}
	var emb memory.QueryEmbedder
	if rk.r.Vector != nil {
		emb = rk.r.Vector
	}
	rec, err := memory.NewRecaller(memory.RecallerConfig{Search: s, Embedder: emb, Recall: p.Recall, Decay: p.Decay, VectorWeight: p.VectorWeight})
	if err != nil {
		return nil, err
	}
	pr.rec = rec
	pr.minScore = p.MinScore
	return pr, nil
}

func (pr *productRanker) rank(ctx context.Context, query string, at time.Time) ([]int, error) {
	res, err := pr.rec.Recall(ctx, memory.Scope{User: "eval", Namespace: memory.DefaultNamespace}, memory.Query{Text: query, At: at, TopK: 1 << 20, MinScore: pr.minScore})
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(res.Ranked))
	for _, c := range res.Ranked {
		if c.Filtered == "" || c.Filtered == memory.FilteredTopK {
			out = append(out, pr.index[c.ID])
		}
	}
	return out, nil
}
