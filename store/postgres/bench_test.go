package postgres

// Benchmarks of candidate search and batch inserts.
//
// The search benchmarks run against a fixture schema, bench_pg_<N>, holding
// one scope of 10k memories, one of 100k, and N background memories spread
// over N/100 other users (N = MEMPROXY_BENCH_BACKGROUND, default 1,000,000),
// all 256-dimensional (the local embedder's default). Building it (COPY)
// takes minutes, so it is built once and kept: a meta row marks it
// complete, and later runs reuse it in seconds. Drop it with
// `DROP SCHEMA bench_pg2_1000000 CASCADE` to rebuild. (bench_pg_<N>, the
// fixtures of builds with the SQL search path, are not reused: opening
// one would drop what those builds' benchmarks read.)
//
//	go test ./store/postgres -run '^$' -bench . -benchtime 2000x
//
// Each search benchmark reports p50_ms and p99_ms over its iterations, and
// the process CPU per search (cpu_ms/op: memproxy's share; the server's is
// not in it).
// load_ms is loading the scope's in-process indexes before timing.

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storebench"
)

const (
	benchDim       = 256
	benchCentroids = 2000
	benchVocab     = 20000
	fixtureDone    = "bench.fixture"
)

var (
	bench10k  = memory.Scope{User: "bench-10k", Namespace: "default"}
	bench100k = memory.Scope{User: "bench-100k", Namespace: "default"}
)

// corpus generates deterministic memories: vectors scattered around shared
// centroids (real embeddings cluster), texts of Zipf-distributed words whose
// head is real English function words.
type corpus struct {
	r         *rand.Rand
	zipf      *rand.Zipf
	centroids [][]float32
	vocab     []string
}

// stopwordList seeds the benchmark vocabulary with the words lexical
// search drops, as real chat text has them.
var stopwordList = memory.Stopwords()

func newCorpus(seed uint64) *corpus {
	r := rand.New(rand.NewPCG(seed, 7))
	c := &corpus{r: r, zipf: rand.NewZipf(r, 1.07, 1, benchVocab-1)}
	cr := rand.New(rand.NewPCG(42, 42)) // centroids and vocabulary are shared by every corpus
	for range benchCentroids {
		v := make([]float32, benchDim)
		for i := range v {
			v[i] = float32(cr.NormFloat64())
		}
		c.centroids = append(c.centroids, v)
	}
	c.vocab = append(c.vocab, stopwordList...)
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "de", "po", "zu", "an", "el", "or", "ib"}
	for len(c.vocab) < benchVocab {
		n := 2 + cr.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syll[cr.IntN(len(syll))])
		}
		c.vocab = append(c.vocab, b.String())
	}
	return c
}

func (c *corpus) vector() []float32 {
	base := c.centroids[c.r.IntN(len(c.centroids))]
	v := make([]float32, benchDim)
	for i := range v {
		v[i] = base[i] + float32(0.6*c.r.NormFloat64())
	}
	return v
}

func (c *corpus) text(words int) string {
	w := make([]string, words)
	for i := range w {
		w[i] = c.vocab[c.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

// query is a question-like text: two function words and two content words.
func (c *corpus) query() string {
	var w []string
	for len(w) < 2 {
		if k := c.zipf.Uint64(); k < uint64(len(stopwordList)) {
			w = append(w, c.vocab[k])
		}
	}
	for len(w) < 4 {
		if k := c.zipf.Uint64(); k >= uint64(len(stopwordList)) {
			w = append(w, c.vocab[k])
		}
	}
	return strings.Join(w, " ")
}

func vectorText(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', 5, 32))
	}
	b.WriteByte(']')
	return b.String()
}

func backgroundSize() int {
	if v, err := strconv.Atoi(os.Getenv("MEMPROXY_BENCH_BACKGROUND")); err == nil && v >= 0 {
		return v
	}
	return 1_000_000
}

// benchStore opens (building on first use) the search fixture.
func benchStore(b *testing.B) *Store {
	b.Helper()
	n := backgroundSize()
	schema := fmt.Sprintf("bench_pg2_%d", n)
	ctx := context.Background()
	st, err := Open(ctx, testpg.NewNamed(b, schema), memory.OpenOptions{Model: "bench-synthetic", Dim: benchDim})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	if v, ok, err := st.Meta(ctx, fixtureDone); err != nil {
		b.Fatal(err)
	} else if ok && v == "complete" {
		return st
	}
	start := time.Now()
	if err := buildFixture(ctx, st, n); err != nil {
		b.Fatalf("build fixture %s: %v", schema, err)
	}
	b.Logf("built fixture %s in %v", schema, time.Since(start).Round(time.Second))
	return st
}

func buildFixture(ctx context.Context, st *Store, background int) error {
	if _, err := st.db.ExecContext(ctx, `TRUNCATE memories, memory_usage`); err != nil {
		return err
	}
	c := newCorpus(1)
	load := func(sc memory.Scope, n int) error { return copyMemories(ctx, st, c, sc, n) }
	if err := load(bench10k, 10_000); err != nil {
		return err
	}
	if err := load(bench100k, 100_000); err != nil {
		return err
	}
	const perUser = 100
	for u := 0; u*perUser < background; u += 100 {
		// 100 users per COPY transaction keeps transactions moderate.
		if err := copyUsers(ctx, st, c, u, min(100, (background-u*perUser+perUser-1)/perUser), perUser); err != nil {
			return err
		}
	}
	if _, err := st.db.ExecContext(ctx, `VACUUM ANALYZE memories`); err != nil {
		return err
	}
	_, err := st.SetMetaIfAbsent(ctx, fixtureDone, "complete")
	return err
}

const copyCols = `user_id, namespace, id, tier, text, embedding, value, confidence, source, key, session,
	created_at, last_used_at, valid_from`

func copyMemories(ctx context.Context, st *Store, c *corpus, sc memory.Scope, n int) error {
	return st.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `COPY memories (`+copyCols+`) FROM STDIN`)
		if err != nil {
			return err
		}
		t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range n {
			text := c.text(12)
			ts := t.Add(time.Duration(i) * time.Minute)
			if _, err := stmt.ExecContext(ctx, sc.User, sc.Namespace, fmt.Sprintf("%s-%07d", sc.User, i), "semantic",
				text, vectorText(c.vector()), 0.5, 0.9, "extracted", "", "", ts, ts, ts); err != nil {
				return err
			}
		}
		if _, err := stmt.ExecContext(ctx); err != nil {
			return err
		}
		return stmt.Close()
	})
}

func copyUsers(ctx context.Context, st *Store, c *corpus, first, users, perUser int) error {
	return st.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `COPY memories (`+copyCols+`) FROM STDIN`)
		if err != nil {
			return err
		}
		t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for u := first; u < first+users; u++ {
			user := fmt.Sprintf("bg-%06d", u)
			for i := range perUser {
				text := c.text(12)
				ts := t.Add(time.Duration(i) * time.Minute)
				if _, err := stmt.ExecContext(ctx, user, "default", fmt.Sprintf("%s-%04d", user, i), "semantic",
					text, vectorText(c.vector()), 0.5, 0.9, "extracted", "", "", ts, ts, ts); err != nil {
					return err
				}
			}
		}
		if _, err := stmt.ExecContext(ctx); err != nil {
			return err
		}
		return stmt.Close()
	})
}

func BenchmarkSearch(b *testing.B) {
	st := benchStore(b)
	ctx := context.Background()
	qc := newCorpus(99)
	var vecs [][]float32
	var texts []string
	for range 512 {
		vecs = append(vecs, qc.vector())
		texts = append(texts, qc.query())
	}
	opts := memory.SearchOptions{Limit: 50, At: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	// warm loads the scope's in-process indexes before timing, and
	// reports how long that took (a scope's first search after start or
	// after it was unloaded).
	warm := func(b *testing.B, sc memory.Scope) {
		st.local.ForgetUser(sc.User, sc.Namespace)
		t := time.Now()
		if _, err := st.VectorSearch(ctx, sc, vecs[0], opts); err != nil {
			b.Fatal(err)
		}
		load := time.Since(t)
		b.Cleanup(func() { b.ReportMetric(float64(load)/float64(time.Millisecond), "load_ms") })
	}
	for _, sc := range []memory.Scope{bench10k, bench100k} {
		size := strings.TrimPrefix(sc.User, "bench-")
		b.Run("vector/"+size, func(b *testing.B) {
			warm(b, sc)
			storebench.Run(b, func(i int) error {
				got, err := st.VectorSearch(ctx, sc, vecs[i%len(vecs)], opts)
				if err == nil && len(got) != opts.Limit {
					err = fmt.Errorf("vector search returned %d candidates, want %d", len(got), opts.Limit)
				}
				return err
			})
		})
		b.Run("lexical/"+size, func(b *testing.B) {
			warm(b, sc)
			storebench.Run(b, func(i int) error {
				_, err := st.LexicalSearch(ctx, sc, texts[i%len(texts)], opts)
				return err
			})
		})
	}
}

// BenchmarkInsert measures batch insert throughput (100 memories per
// Insert) into a fresh schema.
func BenchmarkInsert(b *testing.B) {
	for _, name := range []string{"default"} {
		b.Run(name, func(b *testing.B) {
			st := openTest(b, benchDim)
			ctx := context.Background()
			c := newCorpus(5)
			const batch = 100
			sc := memory.Scope{User: "insert", Namespace: "default"}
			var total int
			start := time.Now()
			for b.Loop() {
				ms := make([]*memory.Memory, batch)
				for i := range ms {
					ms[i] = &memory.Memory{Tier: memory.TierEvent, Text: c.text(12), Embedding: c.vector(), Value: 0.5}
				}
				if err := st.Insert(ctx, sc, ms...); err != nil {
					b.Fatal(err)
				}
				total += batch
			}
			b.ReportMetric(float64(total)/time.Since(start).Seconds(), "memories/s")
		})
	}
}
