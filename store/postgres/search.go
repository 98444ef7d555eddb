package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// VectorSearch returns the scope's memories nearest to vec by cosine
// similarity (the candidate score), best first, ranked in process.
func (s *Store) VectorSearch(ctx context.Context, sc memory.Scope, vec []float32, o memory.SearchOptions) ([]memory.Candidate, error) {
	if err := s.checkVectorQuery(sc, vec); err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return s.local.Vector(ctx, sc, vec, o)
}

// HybridSearch is VectorSearch and LexicalSearch of one query at once
// (memory.HybridSearcher): both rank under one lock and their rows come
// in one read, one round trip for a recall instead of two.
func (s *Store) HybridSearch(ctx context.Context, sc memory.Scope, vec []float32, query string, o memory.SearchOptions) (byVector, byText []memory.Candidate, err error) {
	if err := s.checkVectorQuery(sc, vec); err != nil {
		return nil, nil, fmt.Errorf("hybrid search: %w", err)
	}
	return s.local.Hybrid(ctx, sc, vec, query, o)
}

// checkVectorQuery validates a vector search's scope and query size; a
// query without direction (zero, not finite) finds nothing, on both
// stores.
func (s *Store) checkVectorQuery(sc memory.Scope, vec []float32) error {
	if err := s.check(sc); err != nil {
		return err
	}
	if len(vec) != s.opts.Dim {
		return fmt.Errorf("%w: query has %d dimensions, store expects %d", memory.ErrDimension, len(vec), s.opts.Dim)
	}
	return nil
}

// countUpTo counts the scope's memories, stopping at bound: as cheap for a
// scope of a million as for one just over bound.
func (s *Store) countUpTo(ctx context.Context, sc memory.Scope, bound int) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM memories
		WHERE user_id = $1 AND namespace = $2 LIMIT $3) t`, sc.User, sc.Namespace, bound).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count scope: %w", err)
	}
	return n, nil
}

// LexicalSearch ranks the scope's memories by BM25 over their lexical
// form (memory.LexicalForm, English function words aside); any query
// term may match. A query without terms returns nothing.
func (s *Store) LexicalSearch(ctx context.Context, sc memory.Scope, query string, o memory.SearchOptions) ([]memory.Candidate, error) {
	if err := s.check(sc); err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	return s.local.Lexical(ctx, sc, query, o)
}

// ListTier returns the scope's memories of tier live at at, found in the
// search index (memory.TierLister); ok is false when more than most match.
func (s *Store) ListTier(ctx context.Context, sc memory.Scope, tier memory.Tier, at time.Time, most int) ([]*memory.Memory, bool, error) {
	if err := s.check(sc); err != nil {
		return nil, false, fmt.Errorf("list tier: %w", err)
	}
	return s.local.Tier(ctx, sc, tier, memory.SearchOptions{At: at}, most)
}
