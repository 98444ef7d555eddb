package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
)

// searchFilter adds the SearchOptions filters to a scoped condition list.
func searchFilter(w *where, o memory.SearchOptions) {
	if !o.IncludeDead {
		w.add("valid_to IS NULL AND archived_at IS NULL AND (expires_at IS NULL OR expires_at > %s)", orNow(o.At))
	}
	if len(o.Tiers) > 0 {
		w.add("tier = ANY(%s)", pq.Array(tierStrings(o.Tiers)))
	}
	if o.ExcludeConsolidated {
		w.add("consolidated_at IS NULL")
	}
}

func limitOf(o memory.SearchOptions) int {
	if o.Limit <= 0 {
		return 50
	}
	return o.Limit
}

// VectorSearch returns the scope's memories nearest to vec by cosine
// similarity (the candidate score), best first.
//
// A small scope is scanned exactly through the scope index: cheap, and an
// approximate index over the whole table would waste most of its walk on
// other scopes' rows. A large scope walks the HNSW index with iterative
// scans (relaxed order, re-sorted here), which keep going until enough rows
// pass the scope filter.
func (s *Store) VectorSearch(ctx context.Context, sc memory.Scope, vec []float32, o memory.SearchOptions) ([]memory.Candidate, error) {
	if err := s.checkVectorQuery(sc, vec); err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	limit := limitOf(o)
	if s.local != nil {
		return s.vectorLocal(ctx, sc, vec, o, limit)
	}
	large, err := s.largeScope(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	if large {
		return s.vectorIndexed(ctx, sc, vec, o, limit)
	}
	return s.vectorExact(ctx, sc, vec, o, limit)
}

// HybridSearch is VectorSearch and LexicalSearch of one query at once
// (memory.HybridSearcher). On the in-process indexes both rank under one
// lock and their rows come in one read, one round trip for a recall
// instead of two; on the SQL paths it runs the two searches.
func (s *Store) HybridSearch(ctx context.Context, sc memory.Scope, vec []float32, query string, o memory.SearchOptions) (byVector, byText []memory.Candidate, err error) {
	if s.local == nil {
		// Two statements on the server: their round trips overlap.
		var vecErr error
		var wg sync.WaitGroup
		wg.Go(func() { byVector, vecErr = s.VectorSearch(ctx, sc, vec, o) })
		byText, err = s.LexicalSearch(ctx, sc, query, o)
		wg.Wait()
		if err = errors.Join(vecErr, err); err != nil {
			return nil, nil, err
		}
		return byVector, byText, nil
	}
	if err := s.checkVectorQuery(sc, vec); err != nil {
		return nil, nil, fmt.Errorf("hybrid search: %w", err)
	}
	return s.hybridLocal(ctx, sc, vec, memory.ContentTerms(memory.QueryTerms(query)), o)
}

// checkVectorQuery validates a vector search's scope and query vector.
func (s *Store) checkVectorQuery(sc memory.Scope, vec []float32) error {
	if err := s.check(sc); err != nil {
		return err
	}
	if len(vec) != s.opts.Dim {
		return fmt.Errorf("%w: query has %d dimensions, store expects %d", memory.ErrDimension, len(vec), s.opts.Dim)
	}
	if !finiteNonZero(vec) {
		return fmt.Errorf("%w: query vector is zero or not finite", memory.ErrInvalid)
	}
	return nil
}

func finiteNonZero(v []float32) bool {
	nonZero := false
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
		if x != 0 {
			nonZero = true
		}
	}
	return nonZero
}

// largeScope reports whether the scope holds more than exactLimit memories.
// The count stops at exactLimit+1 rows of the primary key, so it costs the
// same for a scope of a million as for one just over the limit, and its
// answer is cached for a while (scopeSizes).
func (s *Store) largeScope(ctx context.Context, sc memory.Scope) (bool, error) {
	bound := s.exactLimit + 1
	now := time.Now()
	if n, ok := s.sizes.get(sc, bound, now); ok {
		return n >= bound, nil
	}
	n, err := s.countUpTo(ctx, sc, bound)
	if err != nil {
		return false, err
	}
	s.sizes.put(sc, n, bound, now)
	return n >= bound, nil
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

// vectorExact orders the scope's rows by exact distance. It ranks the
// narrow memory_vectors rows (halfvec) and re-ranks the best of them by the
// full vector's distance, reading memories for those alone: halfvec
// rounding moves a distance by about 1e-3, so the re-ranked margin of
// extra rows keeps the result the exact top. memory_vectors has no vector
// index, so the planner cannot answer the ORDER BY approximately.
func (s *Store) vectorExact(ctx context.Context, sc memory.Scope, vec []float32, o memory.SearchOptions, limit int) ([]memory.Candidate, error) {
	w := scoped(sc)
	q := w.arg(vectorArg(vec))
	searchFilter(w, o)
	query := `WITH top AS (SELECT id FROM memory_vectors WHERE ` + w.String() + `
			ORDER BY embedding <=> ` + q + `::` + s.vecTyp + `::halfvec LIMIT ` + w.arg(limit+exactMargin(limit)) + `)
		SELECT ` + s.cols + `, m.embedding <=> ` + q + `::` + s.vecTyp + ` AS dist FROM top JOIN memory_rows m USING (id)
		WHERE m.user_id = $1 AND m.namespace = $2 ORDER BY dist, id LIMIT ` + w.arg(limit)
	return s.candidates(ctx, s.db, query, w.args, func(dist float64) float64 { return 1 - dist })
}

// exactMargin is how many rows past the limit the exact path re-ranks.
func exactMargin(limit int) int { return max(limit/2, 10) }

// vectorIndexed walks the HNSW index with pgvector 0.8 iterative scans
// (relaxed order, re-sorted here), which keep going until enough rows pass
// the scope filter. For the default limit the session defaults (Open)
// already hold the scan settings and the query runs alone, one round
// trip; another limit sets its ef_search, and enable_sort=off to hold the
// planner to the index order, in a transaction of its own. Either way the
// settings never leak into pooled connections used by other queries.
func (s *Store) vectorIndexed(ctx context.Context, sc memory.Scope, vec []float32, o memory.SearchOptions, limit int) (out []memory.Candidate, err error) {
	w := scoped(sc)
	q := w.arg(vectorArg(vec)) + "::" + s.vecTyp
	w.add("embedding IS NOT NULL")
	searchFilter(w, o)
	query := `WITH near AS MATERIALIZED (
		SELECT id, embedding <=> ` + q + ` AS dist FROM memories WHERE ` + w.String() + `
		ORDER BY embedding <=> ` + q + ` LIMIT ` + w.arg(limit) + `)
		SELECT ` + s.cols + `, near.dist FROM near JOIN memory_rows m USING (id)
		WHERE m.user_id = $1 AND m.namespace = $2 ORDER BY near.dist, id`
	score := func(dist float64) float64 { return 1 - dist }
	ef := efSearch(limit)
	if strconv.Itoa(ef) == sessionDefaults["hnsw.ef_search"] {
		return s.candidates(ctx, s.db, query, w.args, score)
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("vector search: begin: %w", err)
	}
	defer func() {
		if cerr := tx.Commit(); err == nil && cerr != nil {
			err = fmt.Errorf("vector search: commit: %w", cerr)
		}
	}()
	// ef_search is the candidate list of each iteration; a larger list for
	// larger limits keeps the relaxed order close to the true order.
	if _, err := tx.ExecContext(ctx, `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),
		set_config('hnsw.ef_search', $1, true), set_config('enable_sort', 'off', true)`, strconv.Itoa(ef)); err != nil {
		return nil, fmt.Errorf("vector search: settings: %w", err)
	}
	return s.candidates(ctx, tx, query, w.args, score)
}

// efSearch is the HNSW candidate list for a search of limit rows.
func efSearch(limit int) int { return min(max(2*limit, 64), 1000) }

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// candidates scans memCols plus a trailing raw score column.
func (s *Store) candidates(ctx context.Context, db queryer, query string, args []any, score func(float64) float64) ([]memory.Candidate, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var out []memory.Candidate
	for rows.Next() {
		var raw float64
		m, err := scanMemory(rows, &raw)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		out = append(out, memory.Candidate{Memory: m, Score: score(raw)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}

// LexicalSearch matches any term of the query's lexical form (English
// function words aside, see stopwordList) against the scope's memories and
// ranks them with ts_rank (the raw score). A query without terms returns
// nothing.
func (s *Store) LexicalSearch(ctx context.Context, sc memory.Scope, query string, o memory.SearchOptions) ([]memory.Candidate, error) {
	if err := s.check(sc); err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	terms := memory.ContentTerms(memory.QueryTerms(query))
	if len(terms) == 0 {
		return nil, nil
	}
	if s.local != nil {
		return s.lexicalLocal(ctx, sc, terms, o)
	}
	terms = s.chooseTerms(ctx, terms)
	w := scoped(sc)
	tsq := "to_tsquery('simple', " + w.arg(orQuery(terms)) + ")"
	// Matched through the scope-prefixed index (migration 5); ts_rank
	// reads the plain lex.
	w.add("memory_scoped_lex(user_id, namespace, lex) @@ memory_scoped_query($1, $2, " + tsq + ")")
	searchFilter(w, o)
	// Only the newest lexCandidates matches are ranked: a common term
	// matches thousands of a large scope's rows, and ranking them all
	// (reading each one's lex) cost 40 ms at 100k memories. The columns are
	// read for the best few alone.
	q := `WITH cand AS MATERIALIZED (SELECT id, lex FROM memories WHERE ` + w.String() +
		` ORDER BY created_at DESC, id DESC LIMIT ` + w.arg(lexCandidates) + `),
		top AS (SELECT id, ts_rank(lex, ` + tsq + `) AS rank FROM cand ORDER BY rank DESC, id LIMIT ` + w.arg(limitOf(o)) + `)
		SELECT ` + s.cols + `, top.rank FROM top JOIN memory_rows m USING (id)
		WHERE m.user_id = $1 AND m.namespace = $2 ORDER BY top.rank DESC, id`
	return s.candidates(ctx, s.db, q, w.args, func(r float64) float64 { return r })
}

// orQuery renders terms as a tsquery matching any of them, each quoted so
// no term is read as an operator.
func orQuery(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		t = strings.ReplaceAll(t, `\`, `\\`)
		quoted[i] = "'" + strings.ReplaceAll(t, "'", "''") + "'"
	}
	return strings.Join(quoted, " | ")
}
