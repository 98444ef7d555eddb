package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestUsageCounters checks migration 9's split: touches go to memory_usage
// and leave the memories row where it is (no new row version, so no index
// entries), reads add them up, Update folds them into the row without
// counting them twice, and a deletion takes them along.
func TestUsageCounters(t *testing.T) {
	testUsageCounters(t, openTest(t, 8))
}

func testUsageCounters(t *testing.T, st *Store) {
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	m := &memory.Memory{ID: "m", Tier: memory.TierSemantic, Text: "likes tea", Embedding: []float32{1, 0, 0, 0, 0, 0, 0, 0},
		Hits: 3, CreatedAt: t0, LastUsedAt: t0}
	if err := st.Insert(ctx, sc, m); err != nil {
		t.Fatal(err)
	}
	where := func() (ctid string, usageRows int) {
		t.Helper()
		if err := st.db.QueryRow(`SELECT ctid::text FROM memories WHERE id = 'm'`).Scan(&ctid); err != nil {
			t.Fatal(err)
		}
		if err := st.db.QueryRow(`SELECT count(*) FROM memory_usage WHERE id = 'm'`).Scan(&usageRows); err != nil {
			t.Fatal(err)
		}
		return ctid, usageRows
	}
	check := func(what string, hits int, used time.Time) *memory.Memory {
		t.Helper()
		got, err := st.Get(ctx, sc, "m")
		if err != nil {
			t.Fatal(err)
		}
		if got.Hits != hits || !got.LastUsedAt.Equal(used) {
			t.Errorf("%s: hits %d, last used %v; want %d, %v", what, got.Hits, got.LastUsedAt, hits, used)
		}
		return got
	}
	before, _ := where()
	for i := 1; i <= 3; i++ {
		if err := st.Touch(ctx, sc, []string{"m", "missing"}, t0.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	after, n := where()
	if after != before || n != 1 {
		t.Errorf("after touches: row at %s (was %s), %d usage rows; want it in place and one usage row", after, before, n)
	}
	got := check("touched", 6, t0.Add(3*time.Hour))
	if vs, err := st.VectorSearch(ctx, sc, m.Embedding, memory.SearchOptions{Limit: 1}); err != nil || len(vs) != 1 || vs[0].Memory.Hits != 6 {
		t.Errorf("search after touches: %v (%v), want hits 6", vs, err)
	}

	got.Text = "likes green tea"
	if err := st.Update(ctx, sc, got); err != nil {
		t.Fatal(err)
	}
	if _, n := where(); n != 0 {
		t.Errorf("after update: %d usage rows, want them folded into the row", n)
	}
	check("updated", 6, t0.Add(3*time.Hour))
	if err := st.Touch(ctx, sc, []string{"m"}, t0.Add(4*time.Hour)); err != nil {
		t.Fatal(err)
	}
	check("touched after update", 7, t0.Add(4*time.Hour))

	if err := st.Delete(ctx, sc, "m"); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := st.db.QueryRow(`SELECT count(*) FROM memory_usage WHERE id = 'm'`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("after delete: %d usage rows left", left)
	}
}

// TestMigrateUsage upgrades a version 8 schema whose rows carry hits and
// checks that reads keep them and touches add to them.
func TestMigrateUsage(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	if err := st.Insert(ctx, sc, &memory.Memory{ID: "a", Tier: memory.TierEvent, Text: "old", Hits: 5}); err != nil {
		t.Fatal(err)
	}
	downgrade(t, st, 8)
	st2 := upgrade(t, st)
	if err := st2.Touch(ctx, sc, []string{"a"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	got, err := st2.Get(ctx, sc, "a")
	if err != nil || got.Hits != 6 {
		t.Fatalf("after the migration and a touch: %+v (%v), want hits 6", got, err)
	}
}

// TestUsageGoesWithDeletions: a memory's usage rows go when the memory
// does, deleted one by one, by a user's deletion, or with the scope's
// others, on a new schema and on one migrated from version 18 (which
// kept them by a foreign key) holding usage rows from before.
func TestUsageGoesWithDeletions(t *testing.T) {
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	other := memory.Scope{User: "bob", Namespace: "default"}
	insertTouched := func(t *testing.T, st *Store, sc memory.Scope, ids ...string) {
		t.Helper()
		for _, id := range ids {
			if err := st.Insert(ctx, sc, &memory.Memory{ID: id, Tier: memory.TierEvent, Text: "note " + id, Embedding: []float32{1, 0, 0, 0, 0, 0, 0, 0}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Touch(ctx, sc, ids, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	usage := func(t *testing.T, st *Store, sc memory.Scope) int {
		t.Helper()
		var n int
		if err := st.db.QueryRow(`SELECT count(*) FROM memory_usage WHERE user_id = $1`, sc.User).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	run := func(t *testing.T, st *Store) {
		insertTouched(t, st, sc, "a", "b", "c")
		insertTouched(t, st, other, "x")
		before := usage(t, st, sc)
		if err := st.Delete(ctx, sc, "a"); err != nil {
			t.Fatal(err)
		}
		if n := usage(t, st, sc); n != before-1 {
			t.Fatalf("after deleting one memory: %d usage rows, want %d", n, before-1)
		}
		if _, err := st.DeleteUser(ctx, sc.User, sc.Namespace); err != nil {
			t.Fatal(err)
		}
		if n := usage(t, st, sc); n != 0 {
			t.Errorf("after the user's deletion: %d usage rows, want none", n)
		}
		if n := usage(t, st, other); n != 1 {
			t.Errorf("another user's usage rows: %d, want 1", n)
		}
		testUsageCounters(t, st)
	}
	t.Run("new", func(t *testing.T) { run(t, openTest(t, 8)) })
	t.Run("migrated", func(t *testing.T) {
		st := openTest(t, 8)
		downgrade(t, st, 18)
		insertTouched(t, st, sc, "old")
		st2 := upgrade(t, st)
		var fks int
		if err := st2.db.QueryRow(`SELECT count(*) FROM pg_constraint WHERE conrelid = 'memory_usage'::regclass AND contype = 'f'`).Scan(&fks); err != nil {
			t.Fatal(err)
		}
		if fks != 0 {
			t.Errorf("memory_usage keeps %d foreign keys after migration 19", fks)
		}
		run(t, st2)
	})
}
