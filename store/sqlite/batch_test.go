package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestBatch checks that Touch and AppendRecall join a Batch (committed
// together, each failing alone), that searches see the touches once the
// batch committed, and that other writes inside a batch fail instead of
// waiting for it.
func TestBatch(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "b.db"), memory.OpenOptions{Model: "m", Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc := memory.Scope{User: "u", Namespace: "default"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := st.Insert(ctx, sc, &memory.Memory{ID: "a", Tier: memory.TierSemantic, Text: "sailing", Embedding: []float32{1, 0}, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	o := memory.SearchOptions{At: t0}
	hits := func() int {
		t.Helper()
		vs, err := st.VectorSearch(ctx, sc, []float32{1, 0}, o)
		if err != nil || len(vs) != 1 {
			t.Fatalf("vector search = %v, %v", vs, err)
		}
		return vs[0].Memory.Hits
	}
	hits() // cache the row
	err = st.Batch(ctx, func(ctx context.Context) error {
		for i := range 3 {
			if err := st.Touch(ctx, sc, []string{"a"}, t0.Add(time.Duration(i)*time.Hour)); err != nil {
				return err
			}
			if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "r", Scope: sc, Time: t0}); err != nil {
				return err
			}
		}
		if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "bad", Scope: memory.Scope{}}); err == nil {
			t.Error("a recall row without a scope was accepted")
		}
		if err := st.Archive(ctx, sc, []string{"a"}, t0); err == nil {
			t.Error("Archive inside a batch did not fail")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if h := hits(); h != 3 {
		t.Errorf("after a batch of 3 touches: hits %d", h)
	}
	if m, err := st.Get(ctx, sc, "a"); err != nil || m.Hits != 3 || m.ArchivedAt != nil {
		t.Errorf("stored row after the batch: %+v, %v", m, err)
	}
	if r, err := st.RecallByRequest(ctx, sc, "r"); err != nil || r == nil {
		t.Errorf("recall row of the batch: %v, %v", r, err)
	}
}
