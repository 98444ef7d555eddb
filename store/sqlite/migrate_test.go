package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// TestMigrateDropsFTS5 upgrades a version 5 database holding memories and
// the FTS5 index (with its vocabulary table) that earlier versions kept,
// and checks that version 6 dropped both and that search, which runs in
// process, still finds the memories of each scope alone.
func TestMigrateDropsFTS5(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v5.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:5] {
		if err := apply(ctx, db, m.version, m.sql); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`CREATE VIRTUAL TABLE memories_fts USING fts5(lex, tokenize = "unicode61 remove_diacritics 0 categories 'L* N* Co M*'")`,
		`CREATE VIRTUAL TABLE memories_fts_vocab USING fts5vocab(memories_fts, 'row')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for i, row := range []struct{ id, user, text string }{
		{"a", "alice", "The user adopted a cat named Mochi and we hiked up the mountains"},
		{"b", "bob", "鲍勃喜欢喝乌龙茶"},
	} {
		if _, err := db.Exec(`INSERT INTO memories (seq, id, user, namespace, tier, text, value, confidence, source, provenance, key, session,
			no_decay, created_at, last_used_at, hits, valid_from, superseded_by) VALUES (?, ?, ?, 'default', 'semantic', ?, 0.5, 1, '', '{}', '', '', 0, 1, 1, 0, 1, '')`,
			i+1, row.id, row.user, row.text); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO memories_fts (rowid, lex) VALUES (?, ?)`, i+1, memory.LexicalForm(row.text)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	st, err := Open(ctx, path, memory.OpenOptions{Model: "m", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'memories_fts%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("after migrating, %d FTS5 tables are left (%v)", n, err)
	}
	for _, c := range []struct {
		user, q, want string
	}{{"alice", "cat Mochi", "a"}, {"alice", "hiking in the mountain", "a"}, {"bob", "乌龙茶", "b"}, {"alice", "乌龙茶", ""}} {
		got, err := st.LexicalSearch(ctx, memory.Scope{User: c.user, Namespace: "default"}, c.q, memory.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || got[0].Memory.ID != c.want) {
			t.Errorf("%s searching %q after migrating: %v, want %q", c.user, c.q, ids(got), c.want)
		}
	}
	if err := Migrate(ctx, st.DB()); err != nil {
		t.Fatalf("migrating again: %v", err)
	}
	alice := memory.Scope{User: "alice", Namespace: "default"}
	if err := st.Insert(ctx, alice, &memory.Memory{ID: "c", Tier: memory.TierEvent, Text: "a new cat", API: "messages"}); err != nil {
		t.Fatalf("insert after migrating: %v", err)
	}
	// Version 8: a memory from before it has no API; a new one keeps its.
	for id, want := range map[string]string{"a": "", "c": "messages"} {
		if m, err := st.Get(ctx, alice, id); err != nil || m.API != want {
			t.Errorf("memory %s after migrating: api %q, %v; want %q", id, m.API, err, want)
		}
	}
}
