package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestBatch: Touch and AppendRecall join one transaction, committed when
// the function returns; a failing statement leaves the others; the cached
// row shows the touches only once the batch committed; a batch whose
// function fails leaves nothing.
func TestBatch(t *testing.T) {
	ctx := context.Background()
	st := openTest(t, 2)
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
	err := st.Batch(ctx, func(ctx context.Context) error {
		for i := range 3 {
			if err := st.Touch(ctx, sc, []string{"a"}, t0.Add(time.Duration(i)*time.Hour)); err != nil {
				return err
			}
			if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "r", Scope: sc, Time: t0}); err != nil {
				return err
			}
		}
		// Not valid UTF-8: the server refuses the row, in its savepoint.
		if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "bad\xff", Scope: sc, Time: t0}); err == nil {
			t.Error("a recall row with an invalid request id was accepted")
		}
		if h := hits(); h != 0 {
			t.Errorf("touches seen before the batch committed: hits %d", h)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if h := hits(); h != 3 {
		t.Errorf("after a batch of 3 touches: hits %d", h)
	}
	if m, err := st.Get(ctx, sc, "a"); err != nil || m.Hits != 3 {
		t.Errorf("stored row after the batch: %+v, %v", m, err)
	}
	if r, err := st.RecallByRequest(ctx, sc, "r"); err != nil || r == nil {
		t.Errorf("recall row of the batch: %v, %v", r, err)
	}

	boom := errors.New("boom")
	err = st.Batch(ctx, func(ctx context.Context) error {
		if err := st.Touch(ctx, sc, []string{"a"}, t0); err != nil {
			return err
		}
		if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "r2", Scope: sc, Time: t0}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("failed batch: %v", err)
	}
	if h := hits(); h != 3 {
		t.Errorf("a failed batch's touch shows: hits %d", h)
	}
	if m, _ := st.Get(ctx, sc, "a"); m == nil || m.Hits != 3 {
		t.Errorf("a failed batch's touch was stored: %+v", m)
	}
	if r, _ := st.RecallByRequest(ctx, sc, "r2"); r != nil {
		t.Errorf("a failed batch's recall row was stored: %+v", r)
	}
}
