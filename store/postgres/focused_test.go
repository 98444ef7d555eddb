package postgres

import (
	"context"
	"errors"
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

// usePaths runs f once per search path named: "local" (the in-process
// indexes), "sql" or "sql-exact" (PostgreSQL, exact vector scan) and
// "sql-hnsw" (PostgreSQL, HNSW for any scope size). Not for parallel
// tests: it switches st's fields.
func usePaths(t *testing.T, st *Store, paths []string, f func(t *testing.T)) {
	t.Helper()
	local := st.local
	defer func() { st.local, st.exactLimit = local, DefaultExactLimit }()
	for _, p := range paths {
		if strings.HasPrefix(p, "sql") {
			// As a store opened with Options.SQLSearch does.
			if err := st.ensureVectorIndex(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		switch p {
		case "local":
			st.local, st.exactLimit = local, DefaultExactLimit
		case "sql", "sql-exact":
			st.local, st.exactLimit = nil, 1<<30
		case "sql-hnsw":
			st.local, st.exactLimit = nil, 0
		default:
			t.Fatalf("unknown search path %q", p)
		}
		t.Run(p, f)
	}
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

// TestVectorPathsAgree checks that the HNSW path (iterative scan) and the
// exact path return the same top results for a scope with neighbours in
// other scopes.
func TestVectorPathsAgree(t *testing.T) {
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
	if _, err := st.db.ExecContext(ctx, `ANALYZE memories`); err != nil {
		t.Fatal(err)
	}
	local := st.local
	defer func() { st.local, st.exactLimit = local, DefaultExactLimit }()
	for q := range 20 {
		vec := randVec(r, dim)
		st.local, st.exactLimit = nil, 1_000_000
		// The default limit runs on the session's HNSW settings, another
		// in a transaction that sets its own.
		limit := 10
		if q%2 == 1 {
			limit = 50
		}
		exact, err := st.VectorSearch(ctx, mine, vec, memory.SearchOptions{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		st.local, st.exactLimit = nil, 100
		hnsw, err := st.VectorSearch(ctx, mine, vec, memory.SearchOptions{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		st.local = local
		inproc, err := st.VectorSearch(ctx, mine, vec, memory.SearchOptions{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(exact) != limit || len(hnsw) != limit || len(inproc) != limit {
			t.Fatalf("query %d: exact %d, hnsw %d, in-process %d results, want %d each", q, len(exact), len(hnsw), len(inproc), limit)
		}
		// The in-process index re-scores from the full vectors as the
		// exact path does: the same top, short of a near tie at the cut.
		if exact[0].Memory.ID != inproc[0].Memory.ID {
			t.Errorf("query %d: top result differs: exact %s, in-process %s", q, exact[0].Memory.ID, inproc[0].Memory.ID)
		}
		shared := 0
		for _, id := range candIDs(inproc) {
			if slices.Contains(candIDs(exact), id) {
				shared++
			}
		}
		if shared < limit-1 {
			t.Errorf("query %d: in-process top-%d shares %d with exact", q, limit, shared)
		}
		for _, c := range hnsw {
			if c.Memory.Scope != mine {
				t.Fatalf("hnsw path returned %v's memory", c.Memory.Scope)
			}
		}
		if exact[0].Memory.ID != hnsw[0].Memory.ID {
			t.Errorf("query %d: top result differs: exact %s (%.4f), hnsw %s (%.4f)", q,
				exact[0].Memory.ID, exact[0].Score, hnsw[0].Memory.ID, hnsw[0].Score)
		}
		common := 0
		for _, id := range candIDs(hnsw) {
			if slices.Contains(candIDs(exact), id) {
				common++
			}
		}
		if common < limit*8/10 {
			t.Errorf("query %d: hnsw top-%d shares %d with exact top-%d, want >= %d", q, limit, common, limit, limit*8/10)
		}
		for i := 1; i < len(hnsw); i++ {
			if hnsw[i].Score > hnsw[i-1].Score {
				t.Errorf("query %d: hnsw results not sorted by score at %d", q, i)
			}
		}
	}
}

// TestVectorPlans checks the two paths use the plans they were written for:
// the HNSW index for a large scope, no HNSW index for a small one.
func TestVectorPlans(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	if err := st.ensureVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	explain := func(indexed bool) string {
		t.Helper()
		tx, err := st.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback() }()
		if indexed {
			if _, err := tx.ExecContext(ctx, `SELECT set_config('enable_sort', 'off', true)`); err != nil {
				t.Fatal(err)
			}
		}
		q := `EXPLAIN SELECT id FROM memories WHERE user_id = 'a' AND namespace = 'b' AND embedding IS NOT NULL
			ORDER BY embedding <=> '[1,0,0,0,0,0,0,0]'::vector LIMIT 5`
		if !indexed {
			q = `EXPLAIN WITH scope AS MATERIALIZED (SELECT id, embedding <=> '[1,0,0,0,0,0,0,0]'::vector AS dist
				FROM memories WHERE user_id = 'a' AND namespace = 'b' AND embedding IS NOT NULL)
				SELECT * FROM scope ORDER BY dist LIMIT 5`
		}
		rows, err := tx.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			b.WriteString(line + "\n")
		}
		return b.String()
	}
	if p := explain(true); !strings.Contains(p, "memories_p") || !strings.Contains(p, "embedding_idx") {
		t.Errorf("large-scope plan does not use the HNSW index:\n%s", p)
	}
	if p := explain(false); strings.Contains(p, "embedding_idx") {
		t.Errorf("exact plan uses the HNSW index:\n%s", p)
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
	if err := st.ensureVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	var idx string
	if err := st.db.QueryRowContext(ctx, `SELECT indexdef FROM pg_indexes WHERE tablename = 'memories'
		AND indexname = 'memories_embedding' AND schemaname = current_schema()`).Scan(&idx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(idx, "hnsw") || !strings.Contains(idx, "halfvec_cosine_ops") {
		t.Fatalf("index is %q, want hnsw halfvec_cosine_ops", idx)
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
	usePaths(t, st, []string{"local", "sql-exact", "sql-hnsw"}, func(t *testing.T) {
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
		DROP TABLE schema_migrations, meta, memories, memory_vectors, memory_deletions, turns, audit, recall, gate_state, client_keys;
		DROP FUNCTION memory_vectors_sync, memory_scoped_query, memory_scoped_lex, memory_stamp, memory_deleted`); err != nil {
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
	usePaths(t, st, []string{"local", "sql"}, func(t *testing.T) {
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
	usePaths(t, st, []string{"local", "sql"}, func(t *testing.T) {
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

// TestLexicalQuoting: lexemes holding quotes or backslashes survive the
// scope prefix on both the index and the query side.
func TestLexicalQuoting(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: `o'neil\x`, Namespace: `it's`}
	m := &memory.Memory{Tier: memory.TierSemantic, Text: `O'Brien's path is C:\temp\o'k and 'quoted' words`}
	if err := st.Insert(ctx, sc, m); err != nil {
		t.Fatal(err)
	}
	usePaths(t, st, []string{"local", "sql"}, func(t *testing.T) {
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

// TestSearchPathIndependent: the scoped lexical index's expression is
// inlined by the planner under the session's search_path, so a session
// (or autovacuum) without the store's schema on it must still be able to
// query and analyze memories.
func TestSearchPathIndependent(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	if err := st.Insert(ctx, memory.Scope{User: "u", Namespace: "n"}, &memory.Memory{Tier: memory.TierEvent, Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	var schema string
	if err := st.db.QueryRow(`SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	conn, err := st.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		`SET search_path = pg_catalog`,
		`SELECT count(*) FROM ` + schema + `.memories WHERE user_id = 'u'`,
		`ANALYZE ` + schema + `.memories`,
		`RESET search_path`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
