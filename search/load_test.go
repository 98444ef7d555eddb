package search

import (
	"context"
	"errors"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// slowSource holds every Load until release is closed, counting them.
type slowSource struct {
	*fakeSource
	started chan struct{}
	release chan struct{}
}

func (s *slowSource) Load(ctx context.Context, sc memory.Scope, add func(Row)) error {
	s.started <- struct{}{}
	select {
	case <-s.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.fakeSource.Load(ctx, sc, add)
}

// TestColdLoadOutlivesDeadlinesOnce: searches whose deadline passes during a
// cold scope's load return their context's error, the load goes on in the
// background, is started only once however many searches wait for it, and
// the next search finds the scope loaded.
func TestColdLoadOutlivesDeadlinesOnce(t *testing.T) {
	src := &slowSource{fakeSource: newFake(), started: make(chan struct{}, 10), release: make(chan struct{})}
	src.put(scA, mem("m1", "green tea in the morning", 1, 0))
	e := NewEngine(src, 2, Options{})
	for i := range 3 {
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() {
			_, err := e.Lexical(ctx, scA, "green tea", memory.SearchOptions{Limit: 5})
			errc <- err
		}()
		if i == 0 {
			<-src.started
		}
		cancel() // the request's deadline passes
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("search %d past its deadline: %v, want context.Canceled", i, err)
		}
	}
	close(src.release)
	got, err := e.Lexical(t.Context(), scA, "green tea", memory.SearchOptions{Limit: 5})
	if err != nil || len(got) != 1 {
		t.Fatalf("search after the load: %v %v", got, err)
	}
	if loads, _ := src.counts(); loads != 1 || len(src.started) != 0 {
		t.Errorf("loads = %d (+%d started), want one load for every waiting search", loads, len(src.started))
	}
}
