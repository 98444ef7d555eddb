package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// TestMigrateFromVersion1 upgrades a database holding memories at schema
// version 1 and checks that version 2 rebuilt their lexical index.
func TestMigrateFromVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		t.Fatal(err)
	}
	if err := apply(ctx, db, 1, migrations[0].sql, nil); err != nil {
		t.Fatal(err)
	}
	for i, row := range []struct{ id, user, text string }{
		{"a", "alice", "The user adopted a cat named Mochi"},
		{"b", "bob", "鲍勃喜欢喝乌龙茶"},
	} {
		if _, err := db.Exec(`INSERT INTO memories (seq, id, user, namespace, tier, text, value, confidence, source, provenance, key, session,
			no_decay, created_at, last_used_at, hits, valid_from, superseded_by) VALUES (?, ?, ?, 'default', 'semantic', ?, 0.5, 1, '', '{}', '', '', 0, 1, 1, 0, 1, '')`,
			i+1, row.id, row.user, row.text); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO memories_fts (rowid, scope, lex) VALUES (?, 'old', ?)`, i+1, memory.LexicalForm(row.text)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	st, err := Open(ctx, path, memory.OpenOptions{Model: "m", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, c := range []struct {
		user, q, want string
	}{{"alice", "cat Mochi", "a"}, {"bob", "乌龙茶", "b"}, {"alice", "乌龙茶", ""}} {
		got, err := st.LexicalSearch(ctx, memory.Scope{User: c.user, Namespace: "default"}, c.q, memory.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || got[0].Memory.ID != c.want) {
			t.Errorf("%s searching %q after migrating: %v, want %q", c.user, c.q, ids(got), c.want)
		}
	}
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrating again: %v", err)
	}
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM memories_fts`).Scan(&n); err != nil || n != 2 {
		t.Errorf("memories_fts holds %d rows (%v) after migrating twice, want 2", n, err)
	}
}

// TestMigrateStemmedReindex upgrades a version 2 database, whose lexical
// index holds unstemmed words, and checks that version 3 indexed it again
// in the stemmed form: an inflection of an indexed word matches.
func TestMigrateStemmedReindex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v2.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:2] {
		if err := apply(ctx, db, m.version, m.sql, m.fn); err != nil {
			t.Fatal(err)
		}
	}
	sc := memory.Scope{User: "alice", Namespace: "default"}
	text := "We hiked up the mountains"
	if _, err := db.Exec(`INSERT INTO memories (seq, id, user, namespace, tier, text, value, confidence, source, provenance, key, session,
		no_decay, created_at, last_used_at, hits, valid_from, superseded_by) VALUES (1, 'a', ?, ?, 'event', ?, 0.5, 1, '', '{}', '', '', 0, 1, 1, 0, 1, '')`,
		sc.User, sc.Namespace, text); err != nil {
		t.Fatal(err)
	}
	// The version 2 form: scoped, lowercased, not stemmed.
	p := scopePrefix(sc)
	if _, err := db.Exec(`INSERT INTO memories_fts (rowid, lex) VALUES (1, ?)`, p+"we "+p+"hiked "+p+"up "+p+"the "+p+"mountains"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	st, err := Open(ctx, path, memory.OpenOptions{Model: "m", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.LexicalSearch(ctx, sc, "hiking in the mountain", memory.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Memory.ID != "a" {
		t.Errorf("searching inflected words after the reindex: %v, want [a]", ids(got))
	}
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM memories_fts`).Scan(&n); err != nil || n != 1 {
		t.Errorf("memories_fts holds %d rows (%v), want 1", n, err)
	}
}
