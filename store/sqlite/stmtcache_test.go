package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// River's pool prepares each statement text once per connection, runs it
// again from the cache, and never re-executes a statement whose rows are
// still open (a second query of the same text inside a transaction).
func TestRiverPoolStatementCache(t *testing.T) {
	ctx := context.Background()
	db, err := OpenRiverDB(filepath.Join(t.TempDir(), "river.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := db.ExecContext(ctx, `INSERT INTO t (id, v) VALUES (?, ?)`, i, "v"); err != nil {
			t.Fatal(err)
		}
	}
	cached := func() int {
		var n int
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := conn.Raw(func(dc any) error {
			n = dc.(interface{ Cached() int }).Cached()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := cached(); n != 2 {
		t.Fatalf("%d statements cached, want 2 (create, insert)", n)
	}

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const q = `SELECT id FROM t WHERE id >= ? ORDER BY id`
	outer, err := tx.QueryContext(ctx, q, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for outer.Next() {
		var id int
		if err := outer.Scan(&id); err != nil {
			t.Fatal(err)
		}
		// The same text while the outer rows are open: served unprepared,
		// the outer rows keep their place.
		var inner int
		if err := tx.QueryRowContext(ctx, q, id).Scan(&inner); err != nil {
			t.Fatal(err)
		}
		if inner != id {
			t.Fatalf("inner query from %d read %d", id, inner)
		}
		got = append(got, id)
	}
	if err := outer.Err(); err != nil {
		t.Fatal(err)
	}
	outer.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[4] != 4 {
		t.Fatalf("outer rows %v, want 0..4", got)
	}
	// Closed rows free the statement: the next run uses the cached one.
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM t WHERE id >= ?`, 2).Scan(&n); err != nil || n != 3 {
		t.Fatalf("count = %d, %v", n, err)
	}
	if n := cached(); n != 4 {
		t.Fatalf("%d statements cached, want 4", n)
	}
	// A statement that fails to prepare reports its error as before.
	if _, err := db.ExecContext(ctx, `INSERT INTO nope VALUES (1)`); err == nil {
		t.Fatal("insert into a missing table succeeded")
	}
}
