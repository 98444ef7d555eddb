package search

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// TestSearchesCheck: every search of a store passes its guard first, and a
// vector search checks the query's size against the engine's dimension,
// before the engine loads or reads anything.
func TestSearchesCheck(t *testing.T) {
	ctx := context.Background()
	src := newFake()
	src.put(scA, mem("x", "sailing on the lake", 1, 0))
	closed := false
	s := NewEngine(src, 2, Options{}).Searches(func(sc memory.Scope) error {
		if closed {
			return memory.ErrClosed
		}
		return sc.Validate()
	})
	o := memory.SearchOptions{At: at}
	if _, err := s.VectorSearch(ctx, scA, []float32{1, 0, 0}, o); !errors.Is(err, memory.ErrDimension) {
		t.Fatalf("3 dimensions on a 2-dimensional engine: %v, want ErrDimension", err)
	}
	if _, _, err := s.HybridSearch(ctx, scA, []float32{1}, "lake", o); !errors.Is(err, memory.ErrDimension) {
		t.Fatalf("hybrid with 1 dimension: %v, want ErrDimension", err)
	}
	if loads, _ := src.counts(); loads != 0 {
		t.Fatalf("a refused search loaded the scope %d times", loads)
	}
	if _, err := s.LexicalSearch(ctx, memory.Scope{}, "lake", o); !errors.Is(err, memory.ErrInvalidScope) {
		t.Fatalf("empty scope: %v, want ErrInvalidScope", err)
	}
	cs, err := s.VectorSearch(ctx, scA, []float32{1, 0}, o)
	if err != nil || len(cs) != 1 || cs[0].Memory.ID != "x" {
		t.Fatalf("vector search: %v, %v", candIDs(cs), err)
	}
	if st := s.IndexStats(); st.Scopes != 1 {
		t.Fatalf("stats after one scope's search: %+v", st)
	}
	closed = true
	for name, err := range map[string]error{
		"vector":  func() error { _, err := s.VectorSearch(ctx, scA, []float32{1, 0}, o); return err }(),
		"lexical": func() error { _, err := s.LexicalSearch(ctx, scA, "lake", o); return err }(),
		"hybrid":  func() error { _, _, err := s.HybridSearch(ctx, scA, []float32{1, 0}, "lake", o); return err }(),
		"tier":    func() error { _, _, err := s.ListTier(ctx, scA, memory.TierSemantic, at, 10); return err }(),
	} {
		if !errors.Is(err, memory.ErrClosed) {
			t.Errorf("%s search on a closed store: %v, want ErrClosed", name, err)
		}
	}
}

// TestEngineSkipsForeignVectors: a row whose stored vector has another
// size (written for another embedder) is indexed for the lexical search
// only, whichever way it reaches the index (a load, a written row).
func TestEngineSkipsForeignVectors(t *testing.T) {
	src := newFake()
	src.put(scA, mem("old", "sailing on the lake", 1, 0, 0))
	src.put(scA, mem("new", "sailing in the bay", 1, 0))
	e := NewEngine(src, 2, Options{})
	if got := vecIDs(t, e, scA, 1, 0); !slices.Equal(got, []string{"new"}) {
		t.Fatalf("vector search after the load: %v, want [new]", got)
	}
	if got := lexIDs(t, e, scA, "sailing"); len(got) != 2 {
		t.Fatalf("lexical search after the load: %v, want both", got)
	}
	e.Written(scA, []Row{src.put(scA, mem("other", "sailing far", 0, 1, 0))}, nil)
	if got := vecIDs(t, e, scA, 0, 1); slices.Contains(got, "other") {
		t.Fatalf("a written row of 3 dimensions was vector-indexed: %v", got)
	}
	if !e.Indexed(scA, "other") {
		t.Fatal("a written row of 3 dimensions was not indexed lexically")
	}
}
