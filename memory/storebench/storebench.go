// Package storebench holds the benchmark helpers both stores share: a
// deterministic corpus shaped like real memories, a filler that inserts it
// in batches, latency percentiles, and the candidate-search and batch-insert
// benchmarks themselves, written against memory.Store so each backend only
// supplies a store (and, for PostgreSQL, its background rows).
//
// A backend's bench_test.go typically does:
//
//	func BenchmarkSearch(b *testing.B) {
//		st := openFixture(b) // filled once with storebench.Fill for Scope10k and Scope100k
//		storebench.Search(b, st, storebench.Sizes)
//	}
//	func BenchmarkInsert(b *testing.B) { storebench.Insert(b, openEmpty(b), 100) }
//
// Search reports p50_ms and p99_ms per sub-benchmark, and cpu_ms/op (the
// process CPU time per search, all goroutines: on a machine shared with
// other work, the figure that does not move with the load); Insert reports
// memories/s.
package storebench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Dim is the benchmark embedding dimension (the local embedder's default).
const Dim = 256

const (
	centroids = 2000
	vocabSize = 20000
	cjkShare  = 0.1 // share of memories written in Chinese
)

// Sized names a benchmark scope and how many memories it holds.
type Sized struct {
	Name  string
	Scope memory.Scope
	N     int
}

// Sizes are the scopes the targets are stated for.
var Sizes = []Sized{
	{"10k", memory.Scope{User: "bench-10k", Namespace: "default"}, 10_000},
	{"100k", memory.Scope{User: "bench-100k", Namespace: "default"}, 100_000},
}

// Epoch is the corpus clock: memories are created in the year before it,
// and searches run at it.
var Epoch = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// Corpus generates deterministic memories: vectors scattered around shared
// centroids (real embeddings cluster), English texts of Zipf-distributed
// words whose head is real function words, and some Chinese texts of
// Zipf-distributed characters. Not safe for concurrent use.
type Corpus struct {
	r         *rand.Rand
	zipf      *rand.Zipf
	czipf     *rand.Zipf
	centroids [][]float32
	vocab     []string
	nStop     int
}

// NewCorpus returns a corpus; the same seed gives the same memories.
// Centroids and vocabulary are shared by every seed, so queries from one
// corpus match memories of another.
func NewCorpus(seed uint64) *Corpus {
	r := rand.New(rand.NewPCG(seed, 7))
	c := &Corpus{r: r, zipf: rand.NewZipf(r, 1.07, 1, vocabSize-1), czipf: rand.NewZipf(r, 1.1, 1, 2999)}
	cr := rand.New(rand.NewPCG(42, 42))
	for range centroids {
		v := make([]float32, Dim)
		for i := range v {
			v[i] = float32(cr.NormFloat64())
		}
		c.centroids = append(c.centroids, v)
	}
	c.vocab = memory.Stopwords()
	c.nStop = len(c.vocab)
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "de", "po", "zu", "an", "el", "or", "ib"}
	for len(c.vocab) < vocabSize {
		var b strings.Builder
		for range 2 + cr.IntN(3) {
			b.WriteString(syll[cr.IntN(len(syll))])
		}
		c.vocab = append(c.vocab, b.String())
	}
	return c
}

// Vector is an embedding near a random centroid.
func (c *Corpus) Vector() []float32 {
	base := c.centroids[c.r.IntN(len(c.centroids))]
	v := make([]float32, Dim)
	for i := range v {
		v[i] = base[i] + float32(0.6*c.r.NormFloat64())
	}
	return v
}

// Text is a memory text of about the given number of words (characters
// for a Chinese text).
func (c *Corpus) Text(words int) string {
	if c.r.Float64() < cjkShare {
		var b strings.Builder
		for range words * 2 {
			b.WriteRune(rune(0x4E00 + c.czipf.Uint64()))
		}
		return b.String()
	}
	w := make([]string, words)
	for i := range w {
		w[i] = c.vocab[c.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

// Query is a question-like text: two function words and two content
// words, or a short Chinese phrase.
func (c *Corpus) Query() string {
	if c.r.Float64() < cjkShare {
		var b strings.Builder
		for range 4 {
			b.WriteRune(rune(0x4E00 + c.czipf.Uint64()))
		}
		return b.String()
	}
	var w []string
	for len(w) < 2 {
		if k := c.zipf.Uint64(); k < uint64(c.nStop) {
			w = append(w, c.vocab[k])
		}
	}
	for len(w) < 4 {
		if k := c.zipf.Uint64(); k >= uint64(c.nStop) {
			w = append(w, c.vocab[k])
		}
	}
	return strings.Join(w, " ")
}

var tiers = []memory.Tier{memory.TierEvent, memory.TierEvent, memory.TierEvent, memory.TierEpisodic, memory.TierSemantic, memory.TierSemantic, memory.TierProfile}

// Memory is one memory of the corpus created at t; about one in fifty is
// already superseded and one in fifty archived, so searches filter.
func (c *Corpus) Memory(t time.Time) *memory.Memory {
	m := &memory.Memory{
		Tier:       tiers[c.r.IntN(len(tiers))],
		Text:       c.Text(8 + c.r.IntN(20)),
		Embedding:  c.Vector(),
		Value:      c.r.Float64(),
		Confidence: 0.8,
		Source:     memory.SourceExtracted,
		CreatedAt:  t,
		LastUsedAt: t,
		ValidFrom:  t,
	}
	switch c.r.IntN(50) {
	case 0:
		vt := t.Add(time.Hour)
		m.ValidTo, m.SupersededBy = &vt, "x"
	case 1:
		at := t.Add(time.Hour)
		m.ArchivedAt = &at
	}
	return m
}

// Fill inserts n memories into sc in batches of batch (one transaction
// each), created over the year before Epoch.
func Fill(ctx context.Context, st memory.Store, sc memory.Scope, c *Corpus, n, batch int) error {
	step := 365 * 24 * time.Hour / time.Duration(max(n, 1))
	t := Epoch.Add(-365 * 24 * time.Hour)
	for done := 0; done < n; {
		k := min(batch, n-done)
		ms := make([]*memory.Memory, k)
		for i := range ms {
			ms[i] = c.Memory(t)
			t = t.Add(step)
		}
		if err := st.Insert(ctx, sc, ms...); err != nil {
			return fmt.Errorf("fill %v: %w", sc, err)
		}
		done += k
	}
	return nil
}

// Latencies collects per-operation durations.
type Latencies []time.Duration

// Report sorts l and reports its p50 and p99 in milliseconds.
func (l Latencies) Report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	b.ReportMetric(l.pct(0.50), "p50_ms")
	b.ReportMetric(l.pct(0.99), "p99_ms")
}

func (l Latencies) pct(p float64) float64 {
	i := int(math.Ceil(p*float64(len(l)))) - 1
	return float64(l[max(i, 0)]) / float64(time.Millisecond)
}

// Queries are the search inputs; the same seed gives the same queries.
type Queries struct {
	Vecs  [][]float32
	Texts []string
}

// NewQueries returns n query vectors and texts.
func NewQueries(seed uint64, n int) Queries {
	c := NewCorpus(seed)
	var q Queries
	for range n {
		q.Vecs = append(q.Vecs, c.Vector())
		q.Texts = append(q.Texts, c.Query())
	}
	return q
}

// SearchOptions is what every search benchmark asks for: 50 live
// candidates at Epoch.
var SearchOptions = memory.SearchOptions{Limit: 50, At: Epoch}

// Search runs vector, lexical and hybrid (both, as recall does)
// candidate search on each sized scope of st, reporting p50_ms and p99_ms.
// The scopes must already hold their memories (Fill).
func Search(b *testing.B, st memory.Store, sizes []Sized) {
	ctx := context.Background()
	q := NewQueries(99, 512)
	for _, sz := range sizes {
		// Warm caches (lazily loaded vector and lexical indexes) outside
		// the timing.
		if _, err := st.VectorSearch(ctx, sz.Scope, q.Vecs[0], SearchOptions); err != nil {
			b.Fatal(err)
		}
		if _, err := st.LexicalSearch(ctx, sz.Scope, q.Texts[0], SearchOptions); err != nil {
			b.Fatal(err)
		}
		b.Run("vector/"+sz.Name, func(b *testing.B) {
			Run(b, func(i int) error {
				got, err := st.VectorSearch(ctx, sz.Scope, q.Vecs[i%len(q.Vecs)], SearchOptions)
				if err == nil && len(got) != SearchOptions.Limit {
					err = fmt.Errorf("vector search returned %d candidates, want %d", len(got), SearchOptions.Limit)
				}
				return err
			})
		})
		b.Run("lexical/"+sz.Name, func(b *testing.B) {
			Run(b, func(i int) error {
				_, err := st.LexicalSearch(ctx, sz.Scope, q.Texts[i%len(q.Texts)], SearchOptions)
				return err
			})
		})
		b.Run("hybrid/"+sz.Name, func(b *testing.B) {
			Run(b, func(i int) error {
				if _, err := st.VectorSearch(ctx, sz.Scope, q.Vecs[i%len(q.Vecs)], SearchOptions); err != nil {
					return err
				}
				_, err := st.LexicalSearch(ctx, sz.Scope, q.Texts[i%len(q.Texts)], SearchOptions)
				return err
			})
		})
	}
}

// Run times op (given the iteration) over the benchmark's iterations and
// reports its latency percentiles and process CPU per operation.
func Run(b *testing.B, op func(i int) error) {
	lat := make(Latencies, 0, b.N)
	i := 0
	cpu0 := cpuTime()
	for b.Loop() {
		t := time.Now()
		err := op(i)
		lat = append(lat, time.Since(t))
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	if i > 0 {
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(i), "cpu_ms/op")
	}
	lat.Report(b)
}

// Insert measures batch insert throughput into st (batch memories per
// Insert call) and reports memories/s.
func Insert(b *testing.B, st memory.Store, batch int) {
	ctx := context.Background()
	c := NewCorpus(5)
	sc := memory.Scope{User: "bench-insert", Namespace: "default"}
	ms := make([][]*memory.Memory, 64)
	for i := range ms {
		for range batch {
			ms[i] = append(ms[i], c.Memory(Epoch))
		}
	}
	total := 0
	var spent time.Duration
	for b.Loop() {
		// Fresh copies so ids and defaults are filled anew each time.
		cp := make([]*memory.Memory, batch)
		for i, m := range ms[total/batch%len(ms)] {
			x := *m
			x.ID = ""
			cp[i] = &x
		}
		t := time.Now()
		if err := st.Insert(ctx, sc, cp...); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(t)
		total += batch
	}
	b.ReportMetric(float64(total)/spent.Seconds(), "memories/s")
}

// CPUTime is the process's user+system CPU time so far (zero where the
// platform cannot tell), for benchmarks outside this package that report
// cpu_ms/op the way Search does.
func CPUTime() time.Duration { return cpuTime() }
