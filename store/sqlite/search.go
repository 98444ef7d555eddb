package sqlite

import (
	"context"
	"fmt"
	"runtime"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/scopeindex"
)

// defaultLimit is the candidate count when SearchOptions.Limit is 0.
const defaultLimit = 50

// VectorSearch returns the scope's memories most similar (cosine) to vec.
func (s *Store) VectorSearch(ctx context.Context, sc memory.Scope, vec []float32, o memory.SearchOptions) ([]memory.Candidate, error) {
	if err := s.check(sc); err != nil {
		return nil, err
	}
	if len(vec) != s.dim {
		return nil, fmt.Errorf("vector search: %w: query has %d dimensions, store expects %d", memory.ErrDimension, len(vec), s.dim)
	}
	q, ok := scopeindex.Normalise(vec)
	if !ok {
		return nil, nil
	}
	limit := o.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	f := scopeindex.NewFilter(o)
	ix, err := s.rlockIndex(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("vector search: load index: %w", err)
	}
	// The quantised scan ranks approximately: take a margin of extra
	// candidates and re-score them exactly.
	hits := ix.v.Search(q, &f, limit+scopeindex.RerankMargin(limit), min(2, runtime.GOMAXPROCS(0)))
	ids := make([]string, len(hits))
	seqs := make([]int64, len(hits))
	for i, h := range hits {
		ids[i], seqs[i] = ix.v.ID(h.Slot), ix.v.Seq(h.Slot)
	}
	ix.mu.RUnlock()

	found, err := s.readRows(ctx, sc, ids, seqs)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	// Only what is returned is copied out of the cache.
	return scopeindex.Rescore(q, ids, found, &f, limit, o), nil
}

// HybridSearch runs VectorSearch, then LexicalSearch (memory.HybridSearcher).
// One after the other, not side by side: both search in memory, where a
// second goroutine only adds scheduling. On 2 cores, sequential searches
// cut the 10k recall path's CPU by ~10% and its p50 from 0.85 to 0.77 ms
// (short questions; p99 2.5–3.1 → 2.0–2.4 ms over runs,
// BenchmarkRecallPath), and at 100k the vector scan already splits over
// the cores.
func (s *Store) HybridSearch(ctx context.Context, sc memory.Scope, vec []float32, query string, o memory.SearchOptions) (byVector, byText []memory.Candidate, err error) {
	if byVector, err = s.VectorSearch(ctx, sc, vec, o); err != nil {
		return nil, nil, err
	}
	if byText, err = s.LexicalSearch(ctx, sc, query, o); err != nil {
		return nil, nil, err
	}
	return byVector, byText, nil
}

// readRows returns the scope's memories ids (at rowids seqs), keyed by id:
// from the row cache where it holds them, the rest read with getBySeq and
// kept in the cache. An id missing from the result was not found. The rows
// may be the cache's own: callers copy (memory.SearchCopy) what they return and
// change nothing.
func (s *Store) readRows(ctx context.Context, sc memory.Scope, ids []string, seqs []int64) (map[string]*memory.Memory, error) {
	found := make(map[string]*memory.Memory, len(ids))
	var miss []int64
	for i, id := range ids {
		if m, ok := s.rows.peek(sc, id); ok {
			found[id] = m
		} else {
			miss = append(miss, seqs[i])
		}
	}
	if len(miss) == 0 {
		return found, nil
	}
	note := s.rows.note()
	read, err := s.getBySeq(ctx, sc, miss)
	if err != nil {
		s.rows.put(note, nil)
		return nil, err
	}
	kept := make([]*memory.Memory, 0, len(read))
	for id, m := range read {
		kept = append(kept, m)
		found[id] = m
	}
	s.rows.put(note, kept)
	return found, nil
}

// getBySeq reads the scope's memories at the given rowids (one B-tree seek
// each, where an id costs two), keyed by id. A rowid the index holds for a
// row since deleted may name another row: results are matched by id.
func (s *Store) getBySeq(ctx context.Context, sc memory.Scope, seqs []int64) (map[string]*memory.Memory, error) {
	return readIn(ctx, s, sc, "seq", seqs)
}

// LexicalSearch ranks the scope's memories by BM25 over their lexical form
// (memory.LexicalForm); any query term may match. Scores are -bm25 as FTS5
// computes it, so higher is better and positive. The ranking runs over the
// scope's in-memory lexical index (lexIndex); see lexterms.go for how the
// terms matched are chosen.
func (s *Store) LexicalSearch(ctx context.Context, sc memory.Scope, query string, o memory.SearchOptions) ([]memory.Candidate, error) {
	if err := s.check(sc); err != nil {
		return nil, err
	}
	terms := memory.ContentTerms(memory.QueryTerms(query))
	if len(terms) == 0 {
		return nil, nil
	}
	limit := o.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	f := scopeindex.NewFilter(o)
	lx, err := s.rlockLexIndex(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("lexical search: load index: %w", err)
	}
	chosen, postings := scopeindex.PickTerms(terms, lx.x.DF)
	hits := lx.x.Search(chosen, postings, &f, limit)
	ids := make([]string, len(hits))
	seqs := make([]int64, len(hits))
	for i, h := range hits {
		ids[i], seqs[i] = lx.x.ID(h.Slot), h.Seq
	}
	lx.mu.RUnlock()

	found, err := s.readRows(ctx, sc, ids, seqs)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	out := make([]memory.Candidate, 0, len(hits))
	for i, id := range ids {
		// A row changed between the ranking and the read is checked again.
		if m, ok := found[id]; ok && f.KeepMemory(m) {
			out = append(out, memory.Candidate{Memory: memory.SearchCopy(m, o), Score: hits[i].Score})
		}
	}
	return out, nil
}
