package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestBatchRefusesOthers: the shared suite (storetest "Batch") checks
// what batching does; on SQLite a write that cannot join a batch fails
// at once instead of waiting for the batch's lock.
func TestBatchRefusesOthers(t *testing.T) {
	ctx := context.Background()
	st, sc, t0 := smallStore(t)
	if err := st.Insert(ctx, sc, &memory.Memory{ID: "a", Tier: memory.TierSemantic, Text: "sailing", Embedding: []float32{1, 0}, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	err := st.Batch(ctx, func(ctx context.Context) error {
		if err := st.Touch(ctx, sc, []string{"a"}, t0); err != nil {
			return err
		}
		if err := st.Archive(ctx, sc, []string{"a"}, t0); err == nil {
			t.Error("Archive inside a batch did not fail")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := st.Get(ctx, sc, "a"); err != nil || m.Hits != 1 || m.ArchivedAt != nil {
		t.Errorf("stored row after the batch: %+v, %v", m, err)
	}
}

// TestBatchInsert checks that Insert, AppendTurn and AppendAudit join a Batch: the rows
// are searchable once the batch committed (not before), a failing Insert
// leaves the batch's other writes in place, and a batch that fails leaves
// nothing behind, in the table or in the search indexes.
func TestBatchInsert(t *testing.T) {
	ctx := context.Background()
	st, sc, t0 := smallStore(t)
	ev := func(id, text string) *memory.Memory {
		return &memory.Memory{ID: id, Tier: memory.TierEvent, Text: text, Embedding: []float32{1, 0}, CreatedAt: t0}
	}
	if err := st.Insert(ctx, sc, ev("old", "kayaking on the lake")); err != nil {
		t.Fatal(err)
	}
	o := memory.SearchOptions{At: t0, Limit: 10}
	found := func(query string) map[string]bool {
		t.Helper()
		vs, err := st.VectorSearch(ctx, sc, []float32{1, 0}, o)
		if err != nil {
			t.Fatal(err)
		}
		ls, err := st.LexicalSearch(ctx, sc, query, o)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, c := range vs {
			ids["v:"+c.Memory.ID] = true
		}
		for _, c := range ls {
			ids["l:"+c.Memory.ID] = true
		}
		return ids
	}
	found("kayaking") // load the scope's indexes
	err := st.Batch(ctx, func(ctx context.Context) error {
		if err := st.Insert(ctx, sc, ev("a", "sourdough starter feeding")); err != nil {
			return err
		}
		if err := st.Insert(ctx, sc, ev("old", "a retry of the old event")); err == nil {
			t.Error("a duplicate id inside a batch was accepted")
		}
		if err := st.Insert(ctx, sc, ev("a", "a retry of a")); err == nil {
			t.Error("a duplicate of the batch's own row was accepted")
		}
		if ms, err := st.GetMany(ctx, sc, []string{"a", "old", "none"}); err != nil || len(ms) != 2 {
			t.Errorf("GetMany inside the batch: %d rows, %v; want its own row and the old one", len(ms), err)
		}
		if err := st.AppendTurn(ctx, &memory.Turn{RequestID: "r1", Scope: sc, Time: t0, User: "hi"}); err != nil {
			return err
		}
		if err := st.AppendAudit(ctx, &memory.AuditEntry{Scope: sc, Time: t0, Actor: "test", Action: "insert", MemoryID: "a"}); err != nil {
			return err
		}
		if err := st.Insert(ctx, sc, ev("b", "sourdough crumb")); err != nil {
			return err
		}
		if ids := found("sourdough"); ids["v:a"] || ids["l:a"] {
			t.Errorf("a batch's insert is searchable before the batch committed: %v", ids)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := found("sourdough")
	for _, k := range []string{"v:a", "v:b", "l:a", "l:b", "v:old"} {
		if !ids[k] {
			t.Errorf("after the batch: %s not found in %v", k, ids)
		}
	}
	if m, err := st.Get(ctx, sc, "old"); err != nil || m.Text != "kayaking on the lake" {
		t.Errorf("the duplicate insert changed the old row: %+v, %v", m, err)
	}
	turns, err := st.Turns(ctx, sc, memory.TurnFilter{})
	if err != nil || len(turns.Data) != 1 || turns.Data[0].RequestID != "r1" {
		t.Errorf("turn log after the batch: %+v, %v", turns.Data, err)
	}

	// A batch that fails commits none of its writes.
	failed := errors.New("fail the batch")
	err = st.Batch(ctx, func(ctx context.Context) error {
		if err := st.Insert(ctx, sc, ev("c", "sourdough loaf")); err != nil {
			return err
		}
		if err := st.AppendTurn(ctx, &memory.Turn{RequestID: "r2", Scope: sc, Time: t0, User: "hi"}); err != nil {
			return err
		}
		if err := st.AppendAudit(ctx, &memory.AuditEntry{Scope: sc, Time: t0, Actor: "test", Action: "insert", MemoryID: "c"}); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("failed batch: %v", err)
	}
	if ids := found("sourdough"); ids["v:c"] || ids["l:c"] {
		t.Errorf("a rolled-back insert is searchable: %v", ids)
	}
	if _, err := st.Get(ctx, sc, "c"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("a rolled-back insert is stored: %v", err)
	}
	if turns, err := st.Turns(ctx, sc, memory.TurnFilter{}); err != nil || len(turns.Data) != 1 {
		t.Errorf("turn log after a failed batch: %d turns, %v", len(turns.Data), err)
	}
	if audit, err := st.Audit(ctx, sc, time.Time{}, 10); err != nil || len(audit) != 1 || audit[0].MemoryID != "a" {
		t.Errorf("audit after the batches: %+v, %v; want the committed batch's row alone", audit, err)
	}
}
