package recallpath

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// fakeWriter records writes, and the batches they ran in when batching.
type fakeWriter struct {
	mu      sync.Mutex
	touches int
	recalls int
	batches int
	outside int // writes made outside a batch while batching
	batch   bool
}

type inBatch struct{}

func (w *fakeWriter) Touch(ctx context.Context, s memory.Scope, ids []string, t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.touches++
	if w.batch && ctx.Value(inBatch{}) == nil {
		w.outside++
	}
	return nil
}

func (w *fakeWriter) AppendRecall(ctx context.Context, r *memory.RecallRecord) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.recalls++
	if w.batch && ctx.Value(inBatch{}) == nil {
		w.outside++
	}
	return nil
}

// batchingWriter is a fakeWriter that is a Batcher.
type batchingWriter struct{ *fakeWriter }

func (w batchingWriter) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	w.mu.Lock()
	w.batches++
	w.mu.Unlock()
	return fn(context.WithValue(ctx, inBatch{}, true))
}

func newTestHook(t *testing.T, w Writer) *Hook {
	t.Helper()
	pol := policy.Default()
	rec, err := memory.NewRecaller(memory.RecallerConfig{Search: noSearch{}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Policy: pol, Gate: gate.New(pol.Gate, pol.Explicit), Recaller: rec, Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

type noSearch struct{}

func (noSearch) VectorSearch(context.Context, memory.Scope, []float32, memory.SearchOptions) ([]memory.Candidate, error) {
	return nil, nil
}
func (noSearch) LexicalSearch(context.Context, memory.Scope, string, memory.SearchOptions) ([]memory.Candidate, error) {
	return nil, nil
}

// TestWriterBatches checks that the background writer commits the writes
// of a window together through Batch, and that Flush returns only when
// every write handed over before it is done, with or without batching, the
// touches the writer holds longer than recall rows included (as is Close).
func TestWriterBatches(t *testing.T) {
	sc := memory.Scope{User: "u", Namespace: "default"}
	for _, batching := range []bool{true, false} {
		fw := &fakeWriter{batch: batching}
		var w Writer = fw
		if batching {
			w = batchingWriter{fw}
		}
		h := newTestHook(t, w)
		const n = 100
		for i := range n {
			h.enqueueJob(job{late: true, write: func(ctx context.Context) { _ = h.cfg.Writer.Touch(ctx, sc, []string{"a"}, time.Time{}) }})
			if i%2 == 0 {
				h.enqueue(func(ctx context.Context) { _ = h.cfg.Writer.AppendRecall(ctx, &memory.RecallRecord{Scope: sc}) })
			}
		}
		if err := h.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		fw.mu.Lock()
		if fw.touches != n || fw.recalls != n/2 || fw.outside != 0 {
			t.Errorf("batching %v: after Flush %d touches, %d recall rows (want %d, %d), %d outside a batch",
				batching, fw.touches, fw.recalls, n, n/2, fw.outside)
		}
		if batching && (fw.batches == 0 || fw.batches >= n) {
			t.Errorf("%d writes committed in %d batches", n+n/2, fw.batches)
		}
		fw.mu.Unlock()
		// Close writes what is still queued or held.
		h.enqueueJob(job{late: true, write: func(ctx context.Context) { _ = h.cfg.Writer.Touch(ctx, sc, []string{"a"}, time.Time{}) }})
		h.Close()
		if fw.touches != n+1 {
			t.Errorf("batching %v: Close left a write behind", batching)
		}
	}
}
