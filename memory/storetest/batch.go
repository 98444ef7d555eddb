package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Batcher is a store whose writes can join one transaction: Touch and
// AppendRecall (the recall path's background writer), Insert, AppendTurn
// and AppendAudit (ingest).
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
	if got, err := st.Get(ctx, alice, m.ID); err != nil || got.Hits != 3 || !got.LastUsedAt.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("stored row after the batch (want 3 hits, last used at the latest touch): %+v, %v", got, err)
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

// testBatchWrites checks the ingest side of Batch: Insert, AppendTurn and
// AppendAudit made under its context are committed together, a call that
// fails (a duplicate id) leaves the others in place, and a batch whose
// function fails stores none of them.
func (s *suite) testBatchWrites(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	b := st.(Batcher)
	dup := newMem("already here", memory.TierEvent, unit(1, 0))
	insert(t, st, alice, dup)
	fresh := newMem("went sailing on Sunday", memory.TierEvent, unit(2, 0))
	err := b.Batch(ctx, func(ctx context.Context) error {
		if err := st.Insert(ctx, alice, fresh); err != nil {
			return err
		}
		again := *dup
		if err := st.Insert(ctx, alice, &again); err == nil {
			t.Error("a duplicate id was inserted in a batch")
		}
		if err := st.AppendTurn(ctx, &memory.Turn{RequestID: "b-1", Scope: alice, Time: t0, User: "hi", Assistant: "hello"}); err != nil {
			return err
		}
		return st.AppendAudit(ctx, &memory.AuditEntry{Scope: alice, Time: t0, Actor: "background", Action: "insert", MemoryID: fresh.ID})
	})
	must(t, err)
	if got := get(t, st, alice, fresh.ID); got.Text != fresh.Text {
		t.Errorf("the batch's memory: %+v", got)
	}
	turns, err := st.Turns(ctx, alice, memory.TurnFilter{})
	must(t, err)
	audit, err := st.Audit(ctx, alice, time.Time{}, 10)
	must(t, err)
	if len(turns.Data) != 1 || len(audit) != 1 {
		t.Errorf("after the batch: %d turns and %d audit rows, want 1 and 1", len(turns.Data), len(audit))
	}

	boom := errors.New("boom")
	lost := newMem("never stored", memory.TierEvent, unit(3, 0))
	err = b.Batch(ctx, func(ctx context.Context) error {
		must(t, st.Insert(ctx, alice, lost))
		must(t, st.AppendTurn(ctx, &memory.Turn{RequestID: "b-2", Scope: alice, Time: t0, User: "hi", Assistant: "hello"}))
		must(t, st.AppendAudit(ctx, &memory.AuditEntry{Scope: alice, Time: t0, Actor: "background", Action: "insert", MemoryID: lost.ID}))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("failed batch: %v", err)
	}
	if _, err := st.Get(ctx, alice, lost.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("a failed batch's memory: %v, want not found", err)
	}
	turns, err = st.Turns(ctx, alice, memory.TurnFilter{})
	must(t, err)
	audit, err = st.Audit(ctx, alice, time.Time{}, 10)
	must(t, err)
	if len(turns.Data) != 1 || len(audit) != 1 {
		t.Errorf("after a failed batch: %d turns and %d audit rows, want 1 and 1", len(turns.Data), len(audit))
	}
}
