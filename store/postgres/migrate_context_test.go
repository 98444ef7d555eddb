package postgres

import (
	"context"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

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
	for _, q := range []string{
		`ALTER TABLE memories DROP COLUMN context`,
		`UPDATE memories SET lex = to_tsvector('simple', 'we hiked up the mountains')`,
		`DELETE FROM schema_migrations WHERE version = 3`,
	} {
		if _, err := st.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st2, err := Open(ctx, testDSN(t, st), memory.OpenOptions{Model: "test-model", Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	got, err := st2.LexicalSearch(ctx, sc, "hiking in the mountain", memory.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Memory.ID != "a" || got[0].Memory.Context != "" {
		t.Errorf("searching inflected words after the migration: %v, want [a]", candIDs(got))
	}
}
