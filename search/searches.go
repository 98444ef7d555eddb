package search

import (
	"context"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Searches are a store's searches (memory.Searcher, memory.HybridSearcher,
// memory.TierLister) over its engine, for the store to embed: each checks
// its scope with the store's guard (the store open, the scope valid) and a
// query vector's size against the engine's dimension, then ranks in
// process.
type Searches struct {
	e     *Engine
	check func(memory.Scope) error
}

// Searches returns e's searches for a store whose every scoped call
// passes check first.
func (e *Engine) Searches(check func(memory.Scope) error) Searches {
	return Searches{e: e, check: check}
}

// VectorSearch returns the scope's memories most similar (cosine) to vec,
// best first.
func (s Searches) VectorSearch(ctx context.Context, sc memory.Scope, vec []float32, o memory.SearchOptions) ([]memory.Candidate, error) {
	if err := s.checkVector(sc, vec); err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return s.e.Vector(ctx, sc, vec, o)
}

// LexicalSearch ranks the scope's memories by BM25 over their lexical
// form (Engine.Lexical); a query without terms returns nothing.
func (s Searches) LexicalSearch(ctx context.Context, sc memory.Scope, query string, o memory.SearchOptions) ([]memory.Candidate, error) {
	if err := s.check(sc); err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	return s.e.Lexical(ctx, sc, query, o)
}

// HybridSearch is VectorSearch and LexicalSearch of one query at once
// (memory.HybridSearcher): both rank under one lock and read their rows
// together (on a Feed one round trip for a recall instead of two).
func (s Searches) HybridSearch(ctx context.Context, sc memory.Scope, vec []float32, query string, o memory.SearchOptions) (byVector, byText []memory.Candidate, err error) {
	if err := s.checkVector(sc, vec); err != nil {
		return nil, nil, fmt.Errorf("hybrid search: %w", err)
	}
	return s.e.Hybrid(ctx, sc, vec, query, o)
}

// CachedRows returns the rows of ids in scope sc that the engine's row
// cache holds, by id, and the ids it does not hold (to be read from the
// store). A row of another scope is not returned. The rows share the
// cache's bytes: read them, never change them; a caller that writes a
// memory back reads it from the store.
func (s Searches) CachedRows(sc memory.Scope, ids []string) (map[string]*memory.Memory, []string, error) {
	if err := s.check(sc); err != nil {
		return nil, nil, fmt.Errorf("cached rows: %w", err)
	}
	found := make(map[string]*memory.Memory, len(ids))
	at := s.e.rows.peekInto(sc, ids, found)
	miss := make([]string, len(at))
	for k, i := range at {
		miss[k] = ids[i]
	}
	return found, miss, nil
}

// ListTier returns the scope's memories of tier live at at, found in the
// search index (memory.TierLister); ok is false when more than most match.
func (s Searches) ListTier(ctx context.Context, sc memory.Scope, tier memory.Tier, at time.Time, most int) ([]*memory.Memory, bool, error) {
	if err := s.check(sc); err != nil {
		return nil, false, fmt.Errorf("list tier: %w", err)
	}
	return s.e.Tier(ctx, sc, tier, memory.SearchOptions{At: at}, most)
}

// IndexStats reports the loaded search indexes against their bound.
func (s Searches) IndexStats() Stats { return s.e.Stats() }

// checkVector validates a vector search's scope and query size; a query
// without direction (zero, not finite) finds nothing, on every store.
func (s Searches) checkVector(sc memory.Scope, vec []float32) error {
	if err := s.check(sc); err != nil {
		return err
	}
	if len(vec) != s.e.dim {
		return fmt.Errorf("%w: query has %d dimensions, store expects %d", memory.ErrDimension, len(vec), s.e.dim)
	}
	return nil
}
