package sqlkit

import (
	"context"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
)

// Search is a store's searches, ranked in process by its engine (package
// search) over the store's rows.
type Search struct {
	engine *search.Engine
	c      *Conn
	dim    int
}

// NewSearch is the searches of engine, for c's store, whose vectors have
// dim dimensions.
func NewSearch(engine *search.Engine, c *Conn, dim int) Search {
	return Search{engine: engine, c: c, dim: dim}
}

// VectorSearch returns the scope's memories most similar (cosine) to vec,
// best first.
func (s Search) VectorSearch(ctx context.Context, sc memory.Scope, vec []float32, o memory.SearchOptions) ([]memory.Candidate, error) {
	if err := s.checkVector(sc, vec); err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return s.engine.Vector(ctx, sc, vec, o)
}

// LexicalSearch ranks the scope's memories by BM25 over their lexical
// form (search.Engine.Lexical); a query without terms returns nothing.
func (s Search) LexicalSearch(ctx context.Context, sc memory.Scope, query string, o memory.SearchOptions) ([]memory.Candidate, error) {
	if err := s.c.check(sc); err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	return s.engine.Lexical(ctx, sc, query, o)
}

// HybridSearch is VectorSearch and LexicalSearch of one query at once
// (memory.HybridSearcher): both rank under one lock and read their rows
// together (on PostgreSQL one round trip for a recall instead of two).
func (s Search) HybridSearch(ctx context.Context, sc memory.Scope, vec []float32, query string, o memory.SearchOptions) (byVector, byText []memory.Candidate, err error) {
	if err := s.checkVector(sc, vec); err != nil {
		return nil, nil, fmt.Errorf("hybrid search: %w", err)
	}
	return s.engine.Hybrid(ctx, sc, vec, query, o)
}

// ListTier returns the scope's memories of tier live at at, found in the
// search index (memory.TierLister); ok is false when more than most match.
func (s Search) ListTier(ctx context.Context, sc memory.Scope, tier memory.Tier, at time.Time, most int) ([]*memory.Memory, bool, error) {
	if err := s.c.check(sc); err != nil {
		return nil, false, fmt.Errorf("list tier: %w", err)
	}
	return s.engine.Tier(ctx, sc, tier, memory.SearchOptions{At: at}, most)
}

// IndexStats reports the loaded search indexes against their bound.
func (s Search) IndexStats() search.Stats { return s.engine.Stats() }

// checkVector validates a vector search's scope and query size; a query
// without direction (zero, not finite) finds nothing, on both stores.
func (s Search) checkVector(sc memory.Scope, vec []float32) error {
	if err := s.c.check(sc); err != nil {
		return err
	}
	if len(vec) != s.dim {
		return fmt.Errorf("%w: query has %d dimensions, store expects %d", memory.ErrDimension, len(vec), s.dim)
	}
	return nil
}
