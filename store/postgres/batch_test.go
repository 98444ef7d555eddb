package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestBatchFailsAlone: the shared suite (storetest "Batch") checks what
// batching does; here, a statement the server refuses inside a batch
// fails alone (its savepoint), and this process's
// cached row shows the batch's touches only once it committed.
func TestBatchFailsAlone(t *testing.T) {
	ctx := context.Background()
	st := openTest(t, 2)
	sc := memory.Scope{User: "u", Namespace: "default"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := st.Insert(ctx, sc, &memory.Memory{ID: "a", Tier: memory.TierSemantic, Text: "sailing", Embedding: []float32{1, 0}, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	hits := func() int {
		t.Helper()
		vs, err := st.VectorSearch(ctx, sc, []float32{1, 0}, memory.SearchOptions{At: t0})
		if err != nil || len(vs) != 1 {
			t.Fatalf("vector search = %v, %v", vs, err)
		}
		return vs[0].Memory.Hits
	}
	hits() // cache the row
	err := st.Batch(ctx, func(ctx context.Context) error {
		if err := st.Touch(ctx, sc, []string{"a"}, t0); err != nil {
			return err
		}
		// Not valid UTF-8: the server refuses the row.
		if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "bad\xff", Scope: sc, Time: t0}); err == nil {
			t.Error("a recall row with an invalid request id was accepted")
		}
		if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "r", Scope: sc, Time: t0}); err != nil {
			return err
		}
		if h := hits(); h != 0 {
			t.Errorf("touch seen before the batch committed: hits %d", h)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if h := hits(); h != 1 {
		t.Errorf("after the batch: hits %d, want 1", h)
	}
	if r, err := st.RecallByRequest(ctx, sc, "r"); err != nil || r == nil {
		t.Errorf("the recall row after the refused one: %v, %v", r, err)
	}
}

// TestBatchChunks: a batch of more calls than maxJoined never holds more
// than maxJoined savepoints (subtransactions) in one transaction, and
// every call lands: the inserts, the touches of the same row again and
// again (written at each commit, added up), and every recall row, a
// request's second row replacing its first.
func TestBatchChunks(t *testing.T) {
	ctx := context.Background()
	st := openTest(t, 2)
	sc := memory.Scope{User: "u", Namespace: "default"}
	if err := st.Insert(ctx, sc, &memory.Memory{ID: "a", Tier: memory.TierSemantic, Text: "sailing", Embedding: []float32{1, 0}}); err != nil {
		t.Fatal(err)
	}
	const n = 3*maxJoined + 5
	most := 0
	err := st.Batch(ctx, func(ctx context.Context) error {
		b := ctx.Value(batchKey{}).(*batch)
		for i := range n {
			if err := st.Insert(ctx, sc, &memory.Memory{ID: fmt.Sprint("m", i), Tier: memory.TierEpisodic, Text: "rowing", Embedding: []float32{0, 1}}); err != nil {
				return err
			}
			if err := st.Touch(ctx, sc, []string{"a", "a", "gone"}, time.Now()); err != nil {
				return err
			}
			for _, fb := range []float64{0, 1} {
				if err := st.AppendRecall(ctx, &memory.RecallRecord{RequestID: fmt.Sprint("r", i), Scope: sc, Time: time.Now(), Feedback: &fb}); err != nil {
					return err
				}
			}
			most = max(most, b.calls)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if most > maxJoined {
		t.Errorf("a transaction of the batch held %d savepoints, want at most %d", most, maxJoined)
	}
	if m, err := st.Get(ctx, sc, "a"); err != nil || m.Hits != n {
		t.Errorf("after %d touches in one batch: %+v, %v", n, m, err)
	}
	if _, err := st.Get(ctx, sc, fmt.Sprint("m", n-1)); err != nil {
		t.Errorf("the last insert: %v", err)
	}
	for _, id := range []string{"r0", fmt.Sprint("r", n-1)} {
		if r, err := st.RecallByRequest(ctx, sc, id); err != nil || r == nil || r.Feedback == nil || *r.Feedback != 1 {
			t.Errorf("recall row %s: %+v, %v", id, r, err)
		}
	}
}
