package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// undo reverts the schema changes of migrations 4 and later, so tests can
// rebuild an older schema and upgrade it.
var undo = map[int][]string{
	10: {vectorIndex("vector_cosine_ops")},
	9:  {`DROP VIEW memory_rows`, `DROP TABLE memory_usage`},
	8:  {`DROP TABLE memory_deletions`, `DROP FUNCTION memory_deleted CASCADE`},
	7: {
		`DROP TRIGGER memory_stamp ON memories`,
		`DROP FUNCTION memory_stamp`,
		`ALTER TABLE memories DROP COLUMN xid, DROP COLUMN ver`,
	},
	5: {
		`DROP INDEX memories_scoped_lex`,
		`DROP FUNCTION memory_scoped_query, memory_scoped_lex`,
		`CREATE INDEX memories_lex ON memories USING gin (lex)`,
	},
	4: {`DROP TABLE memory_vectors`, `DROP FUNCTION memory_vectors_sync CASCADE`},
}

// downgrade takes st's schema back to version v (at least 3, or 2 for the
// caller to revert migration 3 itself).
func downgrade(t *testing.T, st *Store, v int) {
	t.Helper()
	for m := len(migrations); m > v; m-- {
		for _, q := range undo[m] {
			if _, err := st.db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := st.db.Exec(`DELETE FROM schema_migrations WHERE version > $1`, v); err != nil {
		t.Fatal(err)
	}
}

// upgrade opens st's schema again, which runs the migrations downgrade
// undid; the store is closed when t ends.
func upgrade(t *testing.T, st *Store) *Store {
	t.Helper()
	st2, err := Open(context.Background(), testDSN(t, st), memory.OpenOptions{Model: "test-model", Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st2.Close() })
	return st2
}

// TestMigrateContextRelex upgrades a version 2 schema, whose lex holds
// unstemmed words and which has no context column, and checks that
// version 3 added the column and rebuilt lex in the stemmed form.
func TestMigrateContextRelex(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	if err := st.Insert(ctx, sc, &memory.Memory{ID: "a", Tier: memory.TierEvent, Text: "We hiked up the mountains"}); err != nil {
		t.Fatal(err)
	}
	// Back to version 2: no context column, the old lexical form.
	downgrade(t, st, 2)
	for _, q := range []string{
		`ALTER TABLE memories DROP COLUMN context`,
		`UPDATE memories SET lex = to_tsvector('simple', 'we hiked up the mountains')`,
	} {
		if _, err := st.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st2 := upgrade(t, st)
	got, err := st2.LexicalSearch(ctx, sc, "hiking in the mountain", memory.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Memory.ID != "a" || got[0].Memory.Context != "" {
		t.Errorf("searching inflected words after the migration: %v, want [a]", candIDs(got))
	}
}

// TestMigrateVectors upgrades a version 3 schema holding memories and
// checks that version 4 copied them into memory_vectors, so the exact path
// finds them, and that the trigger keeps the copy in step afterwards.
func TestMigrateVectors(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	near := &memory.Memory{ID: "near", Tier: memory.TierEvent, Text: "near", Embedding: []float32{1, 0, 0, 0, 0, 0, 0, 0}}
	far := &memory.Memory{ID: "far", Tier: memory.TierEvent, Text: "far", Embedding: []float32{0, 1, 0, 0, 0, 0, 0, 0}}
	if err := st.Insert(ctx, sc, near, far); err != nil {
		t.Fatal(err)
	}
	downgrade(t, st, 3)
	st2 := upgrade(t, st)
	q := []float32{1, 0.1, 0, 0, 0, 0, 0, 0}
	search := func() []string {
		t.Helper()
		got, err := st2.VectorSearch(ctx, sc, q, memory.SearchOptions{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return candIDs(got)
	}
	if got := search(); !slices.Equal(got, []string{"near", "far"}) {
		t.Fatalf("after the migration: %v, want [near far]", got)
	}
	if err := st2.Archive(ctx, sc, []string{"near"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := search(); !slices.Equal(got, []string{"far"}) {
		t.Fatalf("after archiving near: %v, want [far]", got)
	}
	far.Embedding = []float32{0, 0, 0, 0, 0, 0, 0, 1}
	if err := st2.Update(ctx, sc, far); err != nil {
		t.Fatal(err)
	}
	got, err := st2.VectorSearch(ctx, sc, far.Embedding, memory.SearchOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Memory.ID != "far" || got[0].Score < 0.999 {
		t.Fatalf("after re-embedding far: %v", got)
	}
	if err := st2.Delete(ctx, sc, "far"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st2.db.QueryRow(`SELECT count(*) FROM memory_vectors`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("memory_vectors holds %d rows after deleting far, want 1 (near, archived)", n)
	}
}

// TestTouchRoom: every memories partition leaves room for in-place
// (HOT) touches.
func TestTouchRoom(t *testing.T) {
	st := openTest(t, 8)
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'memories'::regclass AND 'fillfactor=85' = ANY(c.reloptions)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != partitions {
		t.Errorf("%d of %d memories partitions have fillfactor 85", n, partitions)
	}
}
