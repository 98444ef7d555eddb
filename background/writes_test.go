package background

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// fakeBatcher counts batches and holds the first one open until release
// is closed, so the writes that arrive meanwhile queue up behind it.
type fakeBatcher struct {
	mu      sync.Mutex
	batches [][]string
	entered chan struct{} // closed when the first batch began
	release chan struct{}
	fail    error // the commit's error, for every batch
}

type joinedKey struct{}

func (f *fakeBatcher) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	f.mu.Lock()
	first := len(f.batches) == 0
	f.batches = append(f.batches, nil)
	n := len(f.batches) - 1
	f.mu.Unlock()
	if first {
		close(f.entered)
		<-f.release
	}
	var names []string
	if err := fn(context.WithValue(ctx, joinedKey{}, &names)); err != nil {
		return err
	}
	f.mu.Lock()
	f.batches[n] = names
	f.mu.Unlock()
	return f.fail
}

// joined records a write under the batch ctx carries.
func joined(ctx context.Context, name string, err error) error {
	names, _ := ctx.Value(joinedKey{}).(*[]string)
	if names == nil {
		return errors.New("write outside a batch")
	}
	*names = append(*names, name)
	return err
}

// TestGroupWriter checks that writes handed over while a commit is in
// flight share the next one, that each writer gets its own error, that a
// failed commit fails every write in it, and that after close writes run
// on their own.
func TestGroupWriter(t *testing.T) {
	ctx := context.Background()
	f := &fakeBatcher{entered: make(chan struct{}), release: make(chan struct{})}
	w := newGroupWriter(f)
	w.start()

	first := make(chan error, 1)
	go func() { first <- w.write(ctx, 1, func(ctx context.Context) error { return joined(ctx, "first", nil) }) }()
	<-f.entered
	bad := errors.New("bad write")
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range errs {
		wg.Go(func() {
			errs[i] = w.write(ctx, 1, func(ctx context.Context) error {
				if i == 2 {
					return joined(ctx, "bad", bad)
				}
				return joined(ctx, "ok", nil)
			})
		})
	}
	// The loop is held in the first commit: the five queue up behind it
	// (yield until their goroutines have handed them over).
	for len(w.reqs) < len(errs) {
		runtime.Gosched()
	}
	close(f.release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Errorf("first write: %v", err)
	}
	for i, err := range errs {
		if want := error(nil); i == 2 {
			if !errors.Is(err, bad) {
				t.Errorf("write %d: %v, want its own error", i, err)
			}
		} else if err != want {
			t.Errorf("write %d: %v", i, err)
		}
	}
	f.mu.Lock()
	if len(f.batches) != 2 || len(f.batches[0]) != 1 || len(f.batches[1]) != 5 {
		t.Errorf("batches: %v, want the first alone and the five queued behind it in one", f.batches)
	}
	f.mu.Unlock()

	f.fail = errors.New("commit failed")
	if err := w.write(ctx, 1, func(ctx context.Context) error { return joined(ctx, "lost", nil) }); !errors.Is(err, f.fail) {
		t.Errorf("write in a failed commit: %v", err)
	}

	w.close()
	w.close()
	ran := false
	if err := w.write(ctx, 1, func(ctx context.Context) error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("write after close: ran %v, err %v", ran, err)
	}
	var nilWriter *groupWriter
	if err := nilWriter.write(ctx, 1, func(ctx context.Context) error { return nil }); err != nil {
		t.Errorf("nil writer: %v", err)
	}
}

// TestGroupWriterRows: a commit gathers writes until about maxJoinedRows
// rows; the rest wait for the next.
func TestGroupWriterRows(t *testing.T) {
	ctx := context.Background()
	f := &fakeBatcher{entered: make(chan struct{}), release: make(chan struct{})}
	w := newGroupWriter(f)
	w.start()
	defer w.close()
	first := make(chan error, 1)
	go func() { first <- w.write(ctx, 1, func(ctx context.Context) error { return joined(ctx, "first", nil) }) }()
	<-f.entered
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if err := w.write(ctx, maxJoinedRows*3/4, func(ctx context.Context) error { return joined(ctx, "big", nil) }); err != nil {
				t.Error(err)
			}
		})
	}
	for len(w.reqs) < 3 {
		runtime.Gosched()
	}
	close(f.release)
	wg.Wait()
	<-first
	f.mu.Lock()
	defer f.mu.Unlock()
	var sizes []int
	for _, b := range f.batches {
		sizes = append(sizes, len(b))
	}
	if fmt.Sprint(sizes) != "[1 2 1]" {
		t.Errorf("writes per commit: %v, want [1 2 1]", sizes)
	}
}
