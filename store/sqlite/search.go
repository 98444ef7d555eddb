package sqlite

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/memproxy/memproxy/memory"
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
	q, ok := normalise(vec)
	if !ok {
		return nil, nil
	}
	limit := o.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	f := newFilter(o)
	ix := s.index(sc)
	if err := s.ensure(ctx, sc, ix); err != nil {
		return nil, fmt.Errorf("vector search: load index: %w", err)
	}
	ix.mu.RLock()
	// The quantised scan ranks approximately: take a margin of extra
	// candidates and re-score them exactly.
	hits := ix.search(quantQuery(q, ix.stride), &f, limit+rerankMargin(limit), min(2, runtime.GOMAXPROCS(0)))
	ids := make([]string, len(hits))
	seqs := make([]int64, len(hits))
	for i, h := range hits {
		ids[i], seqs[i] = ix.ids[h.slot], ix.seqs[h.slot]
	}
	ix.mu.RUnlock()

	found, err := s.getBySeq(ctx, sc, seqs)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	out := make([]memory.Candidate, 0, len(ids))
	for _, id := range ids {
		// A row changed between the scan and the read is checked again.
		m, ok := found[id]
		if !ok || !f.keepMemory(m) || len(m.Embedding) != len(q) {
			continue
		}
		e, ok := normalise(m.Embedding)
		if !ok {
			continue
		}
		out = append(out, memory.Candidate{Memory: m, Score: float64(dot(q, e))})
	}
	slices.SortStableFunc(out, func(a, b memory.Candidate) int { return cmp.Compare(b.Score, a.Score) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// getBySeq reads the scope's memories at the given rowids (one B-tree seek
// each, where an id costs two), keyed by id. A rowid the index holds for a
// row since deleted may name another row: results are matched by id.
func (s *Store) getBySeq(ctx context.Context, sc memory.Scope, seqs []int64) (map[string]*memory.Memory, error) {
	found := make(map[string]*memory.Memory, len(seqs))
	for len(seqs) > 0 {
		part := seqs[:min(len(seqs), batchSize)]
		seqs = seqs[len(part):]
		args := []any{sc.User, sc.Namespace}
		for _, q := range part {
			args = append(args, q)
		}
		rows, err := s.query(ctx, `SELECT `+memCols+` FROM memories WHERE +user = ? AND +namespace = ? AND seq IN (`+
			placeholders(len(part))+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			m, err := scanMemory(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			found[m.ID] = m
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// rerankMargin is how many candidates beyond the limit are re-scored
// exactly, covering quantisation error near the cut.
func rerankMargin(limit int) int { return max(16, limit/2) }

func normalise(v []float32) ([]float32, bool) {
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil, false
	}
	inv := 1 / math.Sqrt(n)
	q := make([]float32, len(v))
	for i, f := range v {
		q[i] = float32(float64(f) * inv)
	}
	return q, true
}

// LexicalSearch ranks the scope's memories by BM25 over their lexical form
// (memory.LexicalForm); any query term may match. Scores are -bm25, so
// higher is better and positive.
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
	f := newFilter(o)
	prefix := scopePrefix(sc)
	terms, postings, err := s.chooseTerms(ctx, prefix, terms)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	if len(terms) == 0 {
		return nil, nil
	}
	// FTS5 ranks the scope's matches on its own (its sorter, no row reads);
	// only the best few are joined to memories and filtered. When filters
	// leave fewer than limit, the window widens until the matches run out.
	where := []string{"+m.user = ?", "+m.namespace = ?"}
	var fargs []any
	if !f.includeDead {
		where = append(where, "m.valid_to IS NULL", "m.archived_at IS NULL", "(m.expires_at IS NULL OR +m.expires_at > ?)")
		fargs = append(fargs, f.at)
	}
	if f.exclConsolid {
		where = append(where, "m.consolidated_at IS NULL")
	}
	if len(f.tiers) > 0 {
		where = append(where, "+m.tier IN ("+placeholders(len(f.tiers))+")")
		for _, t := range f.tiers {
			fargs = append(fargs, string(t))
		}
	}
	// The limits are literals: SQLite re-prepares a statement whose LIMIT
	// is a parameter at every new value (it may push the limit into the
	// virtual table), which cost a third of a short search. They take few
	// values (the window is rounded), each a cached statement.
	stmt := func(window int) string {
		return `WITH top AS (SELECT rowid, rank FROM memories_fts WHERE memories_fts MATCH ? AND rowid >= ? ORDER BY rank LIMIT ` +
			strconv.Itoa(window) + `)
		SELECT ` + memColsM + `, -top.rank FROM top JOIN memories m ON m.seq = top.rowid
		WHERE ` + strings.Join(where, " AND ") + ` ORDER BY top.rank LIMIT ` + strconv.Itoa(limit)
	}
	match := ftsQuery(prefix, terms)
	// Even the rarest terms can be common in a large scope: then only the
	// newest of their matches are ranked.
	var lo int64
	if postings > lexNewest {
		if lo, err = s.newestBound(ctx, match); err != nil {
			return nil, fmt.Errorf("lexical search: %w", err)
		}
	}
	// The chosen terms' postings bound the matches: when they are few, one
	// window takes them all and no count is needed (filters would
	// otherwise widen the window pass by pass on a small scope).
	window := limit + limit/2 + 10
	all := lo == 0 && postings <= 4*window
	if all {
		window = (postings + 63) &^ 63
	}
	for ; ; window *= 4 {
		args := append([]any{match, lo, sc.User, sc.Namespace}, fargs...)
		out, err := s.lexicalQuery(ctx, stmt(window), args)
		if err != nil {
			return nil, fmt.Errorf("lexical search: %w", err)
		}
		if len(out) >= limit || all {
			return out, nil
		}
		var matched int
		if err := s.queryRow(ctx, `SELECT count(*) FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? AND rowid >= ? LIMIT `+
			strconv.Itoa(window)+`)`, match, lo).Scan(&matched); err != nil {
			return nil, fmt.Errorf("lexical search: %w", err)
		}
		if matched < window {
			if lo == 0 {
				return out, nil
			}
			// The newest matches ran out under the filters: rank them all.
			lo = 0
		}
	}
}

// memColsM is memCols qualified with the table alias m.
var memColsM = "m." + strings.ReplaceAll(strings.ReplaceAll(memCols, "\n\t", " "), ", ", ", m.")

func (s *Store) lexicalQuery(ctx context.Context, stmt string, args []any) ([]memory.Candidate, error) {
	rows, err := s.query(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []memory.Candidate
	for rows.Next() {
		var score float64
		m, err := scanMemory(scanFunc(func(dest ...any) error { return rows.Scan(append(dest, &score)...) }))
		if err != nil {
			return nil, err
		}
		out = append(out, memory.Candidate{Memory: m, Score: score})
	}
	return out, rows.Err()
}

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }
