package research

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/memproxy/memproxy/eval"
	"github.com/memproxy/memproxy/eval/locomo"
	"github.com/memproxy/memproxy/inject"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Embedder is the shape of every embedder the harness can use (the
// product's embed package and HashEmbedder).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Retrieval is how a design searches and ranks its units.
type Retrieval struct {
	// Lexical ranks with BM25 under this analyzer; nil for none.
	Lexical *Analyzer
	// CtxWeight > 0 searches the unit's text and its context as two
	// fields, context weighted by CtxWeight (instead of one joined text).
	CtxWeight float64
	// PRFTerms > 0 adds pseudo-relevance feedback: that many expansion
	// terms from the top 3 documents, at weight 0.3.
	PRFTerms int
	// K1 and B tune BM25 (defaults when zero; B < 0 means 0).
	K1, B float64
	// VectorWeight scales the vector list's RRF contribution (1 when 0).
	VectorWeight float64
	// SimFromFusion makes the score's sim the fused RRF score normalised
	// to [0, 1] instead of max(cosine, coverage).
	SimFromFusion bool
	// Vector ranks by cosine with this embedder; nil for none.
	Vector Embedder
	// Candidates per search (50 when 0) and the RRF constant (60 when 0).
	Candidates int
	RRFK       float64
	// Score, when set, re-ranks the fused candidates as the product does:
	// w_sim·max(cosine, term coverage) + w_rec·retention. Without it the
	// fused rank is the order.
	Score *ScoreParams
	// EmbedUser embeds only the user message (as ingest does today)
	// instead of the index text.
	EmbedUser bool
	// Product, when set, ranks with the product's memory.Recaller instead
	// of the harness's own fusion and score.
	Product *ProductRecall
}

// ScoreParams mirror the product's score (policy recall.weights and the
// event half-life of policy decay).
type ScoreParams struct {
	Sim, Recency float64
	HalfLife     time.Duration
	Shape        float64
}

// Design is one candidate memory design.
type Design struct {
	Name  string
	Units UnitDesign
	Retrieval
	// TopK memories injected (5 when 0). Budget > 0 renders them with the
	// product's injector (inject.Render: fence and guard included, a
	// memory that does not fit ends the list) and counts the section's
	// tokens; 0 counts the bare top-k lines, unbounded.
	TopK   int
	Budget int
	// Guard overrides the shipped guard text ("" keeps it).
	Guard string
	// Prefix, when set, replaces the injector's line prefix
	// ("- [event 2023-05-08 m:8f2c] ") by this layout (a time.Format
	// layout for the date) to measure a more compact rendering; the
	// injector's fit rule (stop at the first misfit) is kept.
	Prefix string
	// Fill lets the injector skip a memory that does not fit and try the
	// next ones (the shipped injector stops at the first misfit).
	Fill bool
}

// Result is a design's figures on a data set.
type Result struct {
	Design  string
	Summary eval.Summary
	// Units is the mean number of memory units per sample.
	Units float64
	// Elapsed is the wall time of indexing and querying.
	Elapsed time.Duration
}

// fill keeps, in rank order, the items that fit the budget together,
// skipping any that would overflow it.
func fill(items []inject.Item, budget int, guard string) []inject.Item {
	var kept []inject.Item
	for _, it := range items {
		try := append(append([]inject.Item(nil), kept...), it)
		if _, used, _ := inject.Render(try, inject.Options{Guard: guard, BudgetTokens: budget}); len(used) == len(try) {
			kept = try
		}
	}
	return kept
}

// renderPrefix emulates inject.Render with another line prefix: fences
// and guard count, lines go in rank order until one does not fit.
func renderPrefix(items []inject.Item, budget int, guard, layout string) ([]inject.Item, int) {
	head := []string{inject.OpenFence}
	head = append(head, strings.Split(guard, "\n")...)
	used := memory.CountTokens(inject.CloseFence)
	for _, l := range head {
		used += memory.CountTokens(l)
	}
	var out []inject.Item
	for _, it := range items {
		n := memory.CountTokens(it.Date.Format(layout) + inject.Sanitize(it.Text))
		if used+n > budget {
			break
		}
		used += n
		out = append(out, it)
	}
	if len(out) == 0 {
		return nil, 0
	}
	return out, used
}

// guard is the shipped policy's guard text, rendered above the memories.
var guard = policy.Default().Inject.Guard

// Line renders a memory the way the injector lists it, for token counting.
func Line(u Unit) string {
	return fmt.Sprintf("- [event %s m:0000] %s", u.Time.Format("2006-01-02"), u.Text)
}

// Run scores design d on samples.
func Run(ctx context.Context, samples []locomo.Sample, d Design) (Result, error) {
	start := time.Now()
	topK := d.TopK
	if topK == 0 {
		topK = 5
	}
	var results []eval.QuestionResult
	units := 0
	for si := range samples {
		s := &samples[si]
		us := d.Units.Build(s)
		units += len(us)
		base, err := newRanker(ctx, us, d.Retrieval)
		if err != nil {
			return Result{}, err
		}
		var rk interface {
			rank(ctx context.Context, query string, at time.Time) ([]int, error)
		} = base
		if d.Product != nil {
			if rk, err = newProductRanker(base, d.Product); err != nil {
				return Result{}, err
			}
		}
		at := s.LastDate().Add(24 * time.Hour)
		for qi, q := range s.QA {
			order, err := rk.rank(ctx, q.Question, at)
			if err != nil {
				return Result{}, err
			}
			qr := eval.QuestionResult{Sample: s.ID, Index: qi, Category: q.Category, Question: q.Question, Evidence: q.Evidence}
			var items []inject.Item
			for _, i := range order {
				h := eval.Hit{ID: fmt.Sprint(i), Refs: us[i].Refs, Single: true}
				if len(qr.Ranked) < 25 {
					qr.Ranked = append(qr.Ranked, h)
				}
				if len(items) < topK {
					items = append(items, inject.Item{ID: h.ID, Tier: memory.TierEvent, Date: us[i].Time, Text: us[i].Text})
				}
			}
			if d.Budget > 0 {
				g := cmp.Or(d.Guard, guard)
				if d.Fill {
					items = fill(items, d.Budget, g)
				}
				var used []inject.Item
				var tokens int
				if d.Prefix != "" {
					used, tokens = renderPrefix(items, d.Budget, g, d.Prefix)
				} else {
					_, used, tokens = inject.Render(items, inject.Options{Guard: g, BudgetTokens: d.Budget})
				}
				for _, it := range used {
					var i int
					fmt.Sscan(it.ID, &i)
					qr.Injected = append(qr.Injected, eval.Hit{ID: it.ID, Refs: us[i].Refs, Single: true})
				}
				qr.InjectedTokens = tokens
			} else {
				for _, it := range items {
					var i int
					fmt.Sscan(it.ID, &i)
					qr.Injected = append(qr.Injected, eval.Hit{ID: it.ID, Refs: us[i].Refs, Single: true})
					qr.InjectedTokens += memory.CountTokens(Line(us[i]))
				}
			}
			results = append(results, qr)
		}
	}
	r := Result{Design: d.Name, Summary: eval.Summarize(results), Elapsed: time.Since(start)}
	if len(samples) > 0 {
		r.Units = float64(units) / float64(len(samples))
	}
	return r, nil
}

// lexSearcher is a lexical ranker: plain or field-weighted BM25.
type lexSearcher interface {
	Search(query string, limit int) []Ranked
}

type ranker struct {
	units []Unit
	r     Retrieval
	bm    lexSearcher
	vi    *VectorIndex
}

func newRanker(ctx context.Context, us []Unit, r Retrieval) (*ranker, error) {
	rk := &ranker{units: us, r: r}
	texts := make([]string, len(us))
	etexts := make([]string, len(us))
	for i, u := range us {
		texts[i] = u.Index
		etexts[i] = u.Index
		if r.EmbedUser {
			etexts[i] = u.User
		}
	}
	if r.Lexical != nil {
		mk := func(ts []string) *BM25 {
			x := NewBM25(*r.Lexical, ts)
			x.K1, x.B = r.K1, r.B
			if r.B < 0 {
				x.B = 1e-9
			}
			return x
		}
		if r.CtxWeight > 0 {
			own, ctx := make([]string, len(us)), make([]string, len(us))
			for i, u := range us {
				own[i], ctx[i] = u.Text, u.Ctx
			}
			rk.bm = &FieldBM25{Own: mk(own), Ctx: mk(ctx), CtxWeight: r.CtxWeight}
		} else if r.PRFTerms > 0 {
			rk.bm = &PRF{BM25: mk(texts), Docs: 3, Terms: r.PRFTerms, Weight: 0.3}
		} else {
			rk.bm = mk(texts)
		}
	}
	if r.Vector != nil {
		vecs, err := r.Vector.Embed(ctx, etexts)
		if err != nil {
			return nil, fmt.Errorf("embed units: %w", err)
		}
		rk.vi = &VectorIndex{vecs: vecs}
	}
	return rk, nil
}

// rank returns unit indexes, best first.
func (rk *ranker) rank(ctx context.Context, query string, at time.Time) ([]int, error) {
	limit := rk.r.Candidates
	if limit == 0 {
		limit = 50
	}
	k := rk.r.RRFK
	if k == 0 {
		k = 60
	}
	fused := map[int]float64{}
	cos := map[int]float64{}
	var qvec []float32
	if rk.bm != nil {
		for i, h := range rk.bm.Search(query, limit) {
			fused[h.Doc] += 1 / (k + float64(i+1))
		}
	}
	if rk.vi != nil {
		vs, err := rk.r.Vector.Embed(ctx, []string{query})
		if err != nil {
			return nil, fmt.Errorf("embed query: %w", err)
		}
		qvec = vs[0]
		w := rk.r.VectorWeight
		if w == 0 {
			w = 1
		}
		for i, h := range rk.vi.Search(qvec, limit) {
			fused[h.Doc] += w / (k + float64(i+1))
			cos[h.Doc] = h.Score
		}
	}
	type cand struct {
		i     int
		score float64
	}
	var cs []cand
	for i, f := range fused {
		cs = append(cs, cand{i, f})
	}
	sortCands := func() {
		sort.Slice(cs, func(a, b int) bool {
			if cs[a].score != cs[b].score {
				return cs[a].score > cs[b].score
			}
			return cs[a].i < cs[b].i
		})
	}
	sortCands()
	if len(cs) > limit {
		cs = cs[:limit]
	}
	if p := rk.r.Score; p != nil && len(cs) > 0 {
		terms := contentTerms(query)
		maxFused := cs[0].score
		for j := range cs {
			u := rk.units[cs[j].i]
			c, ok := cos[cs[j].i]
			if !ok && qvec != nil && rk.vi != nil {
				c = cosine(qvec, rk.vi.vecs[cs[j].i])
			}
			sim := math.Max(c, coverage(terms, u.Text))
			if rk.r.SimFromFusion {
				sim = cs[j].score / maxFused
			}
			cs[j].score = p.Sim*sim + p.Recency*retention(at.Sub(u.Time), p.HalfLife, p.Shape)
		}
		sortCands()
	}
	out := make([]int, len(cs))
	for j, c := range cs {
		out[j] = c.i
	}
	return out, nil
}

func retention(age, h time.Duration, shape float64) float64 {
	if age <= 0 || h <= 0 {
		return 1
	}
	return math.Exp2(-math.Pow(float64(age)/float64(h), shape))
}

func contentTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range (Analyzer{Stopwords: true}).Terms(q) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// coverage is the share of the query's content terms found in text.
func coverage(terms []string, text string) float64 {
	if len(terms) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, w := range words(text) {
		have[w] = true
	}
	n := 0
	for _, t := range terms {
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(len(terms))
}
