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
	st := openTest(t, 8)
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
	if err := st.db.QueryRow(`SELECT count(*) FROM memory_usage`).Scan(&left); err != nil {
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
