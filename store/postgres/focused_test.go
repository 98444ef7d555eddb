package postgres

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
)

// openTest opens a store in a fresh schema, closed when t ends.
func openTest(t testing.TB, dim int) *Store {
	t.Helper()
	dsn := testpg.New(t)
	st, err := Open(context.Background(), dsn, memory.OpenOptions{Model: "test-model", Dim: dim})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// randVec is a random unit-ish vector from r.
func randVec(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func candIDs(cs []memory.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Memory.ID
	}
	return out
}

// TestVectorSearchExact checks that the in-process search (quantised
// scan, exact re-score) returns the exact top results for a scope with
// neighbours in other scopes: the exact order is computed here.
func TestVectorSearchExact(t *testing.T) {
	const dim = 32
	st := openTest(t, dim)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	mine := memory.Scope{User: "alice", Namespace: "default"}
	var ms []*memory.Memory
	for range 600 {
		ms = append(ms, &memory.Memory{Tier: memory.TierSemantic, Text: "mine", Embedding: randVec(r, dim)})
	}
	if err := st.Insert(ctx, mine, ms...); err != nil {
		t.Fatal(err)
	}
	for u := range 5 {
		var others []*memory.Memory
		for range 400 {
			others = append(others, &memory.Memory{Tier: memory.TierSemantic, Text: "theirs", Embedding: randVec(r, dim)})
		}
		if err := st.Insert(ctx, memory.Scope{User: "user" + string(rune('a'+u)), Namespace: "default"}, others...); err != nil {
			t.Fatal(err)
		}
	}
	cos := func(a, b []float32) float64 {
		var d, na, nb float64
		for i := range a {
			d, na, nb = d+float64(a[i])*float64(b[i]), na+float64(a[i])*float64(a[i]), nb+float64(b[i])*float64(b[i])
		}
		return d / math.Sqrt(na*nb)
	}
	for q := range 20 {
		vec := randVec(r, dim)
		limit := 10
		if q%2 == 1 {
			limit = 50
		}
		exact := slices.Clone(ms)
		slices.SortFunc(exact, func(a, b *memory.Memory) int { return cmp.Compare(cos(b.Embedding, vec), cos(a.Embedding, vec)) })
		got, err := st.VectorSearch(ctx, mine, vec, memory.SearchOptions{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != limit {
			t.Fatalf("query %d: %d results, want %d", q, len(got), limit)
		}
		if got[0].Memory.ID != exact[0].ID {
			t.Errorf("query %d: top result %s, exact %s", q, got[0].Memory.ID, exact[0].ID)
		}
		shared := 0
		for _, c := range got {
			if c.Memory.Scope != mine {
				t.Fatalf("returned %v's memory", c.Memory.Scope)
			}
			for _, m := range exact[:limit] {
				if m.ID == c.Memory.ID {
					shared++
				}
			}
		}
		// Short of a near tie at the cut.
		if shared < limit-1 {
			t.Errorf("query %d: top-%d shares %d with the exact top", q, limit, shared)
		}
	}
}

// TestHalfvec stores a 3072-dimension model as halfvec and searches it.
func TestHalfvec(t *testing.T) {
	const dim = 3072
	st := openTest(t, dim)
	ctx := context.Background()
	var typ string
	if err := st.db.QueryRowContext(ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = 'memories'::regclass AND attname = 'embedding'`).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	if typ != "halfvec(3072)" {
		t.Fatalf("embedding column is %s, want halfvec(3072)", typ)
	}
	r := rand.New(rand.NewPCG(3, 4))
	sc := memory.Scope{User: "alice", Namespace: "default"}
	var ms []*memory.Memory
	for range 20 {
		ms = append(ms, &memory.Memory{Tier: memory.TierSemantic, Text: "wide", Embedding: randVec(r, dim)})
	}
	if err := st.Insert(ctx, sc, ms...); err != nil {
		t.Fatal(err)
	}
	t.Run("search", func(t *testing.T) {
		got, err := st.VectorSearch(ctx, sc, ms[7].Embedding, memory.SearchOptions{Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Memory.ID != ms[7].ID || got[0].Score < 0.999 {
			t.Fatalf("nearest to memory 7 = %v", candIDs(got))
		}
		if len(got[0].Memory.Embedding) != dim {
			t.Fatalf("embedding came back with %d dimensions", len(got[0].Memory.Embedding))
		}
	})
}

// TestEmbedderMismatch reopens a database with another model and dimension.
func TestEmbedderMismatch(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	dsn := testDSN(t, st)
	for _, o := range []memory.OpenOptions{{Model: "other-model", Dim: 8}, {Model: "test-model", Dim: 16}} {
		_, err := Open(ctx, dsn, o)
		if !errors.Is(err, memory.ErrEmbedderMismatch) {
			t.Fatalf("open with %+v: %v, want ErrEmbedderMismatch", o, err)
		}
		for _, want := range []string{`"test-model" (8 dimensions)`, o.Model, "memproxy reembed"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	}
	again, err := Open(ctx, dsn, memory.OpenOptions{Model: "test-model", Dim: 8})
	if err != nil {
		t.Fatalf("reopen with the same embedder: %v", err)
	}
	_ = again.Close()
}

// testDSN recovers the DSN a store was opened with, for reopening: the
// search_path is what isolates the schema.
func testDSN(t *testing.T, st *Store) string {
	t.Helper()
	var schema string
	if err := st.db.QueryRow(`SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	return testpg.DSN(schema)
}

// TestConcurrentMigrate starts several stores on one fresh schema at once:
// the advisory lock must serialise them.
func TestConcurrentMigrate(t *testing.T) {
	st := openTest(t, 8)
	dsn := testDSN(t, st)
	if _, err := st.db.Exec(`DROP VIEW memory_rows; DROP TABLE memory_usage;
		DROP TABLE schema_migrations, meta, memories, memory_deletions, turns, audit, recall, gate_state, client_keys;
		DROP FUNCTION memory_stamp, memory_deleted`); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := Open(context.Background(), dsn, memory.OpenOptions{Model: "test-model", Dim: 8})
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("concurrent open: %v", err)
		}
	}
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(migrations) {
		t.Errorf("schema_migrations has %d rows, want %d", n, len(migrations))
	}
}

// TestLexicalChinese searches Chinese text through the bigram form.
func TestLexicalChinese(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "li", Namespace: "default"}
	a := &memory.Memory{Tier: memory.TierSemantic, Text: "用户上次说供应商把交货日期改到五月十八号"}
	b := &memory.Memory{Tier: memory.TierSemantic, Text: "用户喜欢喝绿茶"}
	if err := st.Insert(ctx, sc, a, b); err != nil {
		t.Fatal(err)
	}
	t.Run("search", func(t *testing.T) {
		got, err := st.LexicalSearch(ctx, sc, "交货日期是哪天？", memory.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Memory.ID != a.ID || got[0].Score <= 0 {
			t.Fatalf("lexical search for 交货日期 = %v", candIDs(got))
		}
	})
}

// TestLexicalStopwords: function words do not drown the content words of a
// question, and a query of function words alone still matches.
func TestLexicalStopwords(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "eve", Namespace: "default"}
	tea := &memory.Memory{Tier: memory.TierSemantic, Text: "The user drinks green tea."}
	chatter := &memory.Memory{Tier: memory.TierEvent, Text: "What is it that you do? What is my plan? It is what it is."}
	if err := st.Insert(ctx, sc, tea, chatter); err != nil {
		t.Fatal(err)
	}
	t.Run("search", func(t *testing.T) {
		got, err := st.LexicalSearch(ctx, sc, "what is my favourite tea", memory.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Memory.ID != tea.ID {
			t.Errorf("content query = %v, want only the tea memory", candIDs(got))
		}
		got, err = st.LexicalSearch(ctx, sc, "what is it", memory.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Memory.ID != chatter.ID {
			t.Errorf("function-word query = %v, want the chatter first", candIDs(got))
		}
	})
}

// TestLexicalQuoting: lexemes holding quotes or backslashes, in a scope
// whose names hold them too, match.
func TestLexicalQuoting(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: `o'neil\x`, Namespace: `it's`}
	m := &memory.Memory{Tier: memory.TierSemantic, Text: `O'Brien's path is C:\temp\o'k and 'quoted' words`}
	if err := st.Insert(ctx, sc, m); err != nil {
		t.Fatal(err)
	}
	t.Run("search", func(t *testing.T) {
		for _, q := range []string{`O'Brien's`, `C:\temp\o'k`, `'quoted'`, `path`} {
			got, err := st.LexicalSearch(ctx, sc, q, memory.SearchOptions{})
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if len(got) != 1 || got[0].Memory.ID != m.ID {
				t.Errorf("lexical search for %s = %v, want [%s]", q, candIDs(got), m.ID)
			}
		}
	})
}
