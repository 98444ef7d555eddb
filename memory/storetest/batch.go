package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Batcher is a store whose Touch and AppendRecall can join one
// transaction (the recall path's background writer uses it).
type Batcher interface {
	Batch(ctx context.Context, fn func(ctx context.Context) error) error
}

// testBatch, for stores that batch: touches and recall rows made under
// Batch's context are committed together when the function returns, and
// a search sees the touches only then; a batch whose function fails
// leaves nothing behind.
func (s *suite) testBatch(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	b, ok := st.(Batcher)
	if !ok {
		t.Fatal("the store does not implement Batch (both stores do)")
	}
	m := newMem("the user goes sailing", memory.TierSemantic, unit(0, 0))
	insert(t, st, alice, m)
	hits := func() int {
		t.Helper()
		vs, err := st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: t0})
		if err != nil || len(vs) != 1 {
			t.Fatalf("vector search = %v, %v", vs, err)
		}
		return vs[0].Memory.Hits
	}
	hits() // a store with a row cache caches it now
	err := b.Batch(ctx, func(ctx context.Context) error {
		for i := range 3 {
			if err := st.Touch(ctx, alice, []string{m.ID}, t0.Add(time.Duration(i)*time.Hour)); err != nil {
				return err
			}
			if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "r", Scope: alice, Time: t0}); err != nil {
				return err
			}
		}
		if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "bad", Scope: memory.Scope{}}); err == nil {
			t.Error("a recall row without a scope was accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if h := hits(); h != 3 {
		t.Errorf("after a batch of 3 touches: hits %d", h)
	}
	if got, err := st.Get(ctx, alice, m.ID); err != nil || got.Hits != 3 {
		t.Errorf("stored row after the batch: %+v, %v", got, err)
	}
	if r, err := st.RecallByRequest(ctx, alice, "r"); err != nil || r == nil {
		t.Errorf("recall row of the batch: %v, %v", r, err)
	}

	boom := errors.New("boom")
	err = b.Batch(ctx, func(ctx context.Context) error {
		if err := st.Touch(ctx, alice, []string{m.ID}, t0); err != nil {
			return err
		}
		if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "r2", Scope: alice, Time: t0}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("failed batch: %v", err)
	}
	if h := hits(); h != 3 {
		t.Errorf("a failed batch's touch shows in search: hits %d", h)
	}
	if got, _ := st.Get(ctx, alice, m.ID); got == nil || got.Hits != 3 {
		t.Errorf("a failed batch's touch was stored: %+v", got)
	}
	if r, _ := st.RecallByRequest(ctx, alice, "r2"); r != nil {
		t.Errorf("a failed batch's recall row was stored: %+v", r)
	}
}
