package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/scopeindex"
)

// chooseTerms returns the terms to match (unprefixed), rarest first, and
// the sum of their document frequencies. Terms no memory of the scope
// holds are dropped: they cannot match.
func (s *Store) chooseTerms(ctx context.Context, prefix string, terms []string) ([]string, int, error) {
	if len(terms) > scopeindex.LexMaxQueryTerms {
		terms = terms[:scopeindex.LexMaxQueryTerms]
	}
	// Pad the IN list to a multiple of 8 so a few prepared shapes serve
	// every query length.
	n := (len(terms) + 7) &^ 7
	args := make([]any, n)
	for i := range args {
		args[i] = ""
		if i < len(terms) {
			args[i] = prefix + terms[i]
		}
	}
	rows, err := s.query(ctx, `SELECT term, doc FROM `+vocabTable+` WHERE term IN (`+placeholders(n)+`)`, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("term frequencies: %w", err)
	}
	df := make(map[string]int, len(terms))
	for rows.Next() {
		var t string
		var d int
		if err := rows.Scan(&t, &d); err != nil {
			rows.Close()
			return nil, 0, fmt.Errorf("term frequencies: %w", err)
		}
		df[t] = d
	}
	if err := rows.Close(); err != nil {
		return nil, 0, fmt.Errorf("term frequencies: %w", err)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("term frequencies: %w", err)
	}
	out, sum := scopeindex.PickTerms(terms, func(t string) int { return df[prefix+t] })
	return out, sum, nil
}

// newestBound is the lowest rowid among the newest scopeindex.LexNewest matches of
// match, or 0 when there are fewer: ranking only rows at or above it
// bounds the cost of a query whose rarest terms are still common.
func (s *Store) newestBound(ctx context.Context, match string) (int64, error) {
	var lo int64
	err := s.queryRow(ctx, `SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET `+
		strconv.Itoa(scopeindex.LexNewest-1), match).Scan(&lo)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return lo, err
}

// lexicalSearchFTS is LexicalSearch as it ran on FTS5 before the lexical
// index: the reference TestLexicalIndexMatchesFTS5 compares against.
// It ranks the scope's memories by BM25 over their lexical form
// (memory.LexicalForm); any query term may match. Scores are -bm25, so
// higher is better and positive.
func (s *Store) lexicalSearchFTS(ctx context.Context, sc memory.Scope, query string, o memory.SearchOptions) ([]memory.Candidate, error) {
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
	at := o.At
	if at.IsZero() {
		at = time.Now()
	}
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
	if !o.IncludeDead {
		where = append(where, "m.valid_to IS NULL", "m.archived_at IS NULL", "(m.expires_at IS NULL OR +m.expires_at > ?)")
		fargs = append(fargs, micros(at))
	}
	if o.ExcludeConsolidated {
		where = append(where, "m.consolidated_at IS NULL")
	}
	if len(o.Tiers) > 0 {
		where = append(where, "+m.tier IN ("+placeholders(len(o.Tiers))+")")
		for _, t := range o.Tiers {
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
		SELECT m.id, m.seq, -top.rank FROM top JOIN memories m ON m.seq = top.rowid
		WHERE ` + strings.Join(where, " AND ") + ` ORDER BY top.rank LIMIT ` + strconv.Itoa(limit)
	}
	match := ftsQuery(prefix, terms)
	// Even the rarest terms can be common in a large scope: then only the
	// newest of their matches are ranked.
	var lo int64
	if postings > scopeindex.LexNewest {
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
		out, err := s.lexicalQuery(ctx, sc, stmt(window), args)
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

// lexicalQuery runs one ranked window: the statement returns (id, seq,
// score), best first; the rows come from readRows.
func (s *Store) lexicalQuery(ctx context.Context, sc memory.Scope, stmt string, args []any) ([]memory.Candidate, error) {
	rows, err := s.query(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	var (
		ids    []string
		seqs   []int64
		scores []float64
	)
	for rows.Next() {
		var id string
		var seq int64
		var score float64
		if err := rows.Scan(&id, &seq, &score); err != nil {
			rows.Close()
			return nil, err
		}
		ids, seqs, scores = append(ids, id), append(seqs, seq), append(scores, score)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	found, err := s.readRows(ctx, sc, ids, seqs)
	if err != nil {
		return nil, err
	}
	out := make([]memory.Candidate, 0, len(ids))
	for i, id := range ids {
		// A row deleted since the ranking is left out.
		if m, ok := found[id]; ok {
			out = append(out, memory.Candidate{Memory: m, Score: scores[i]})
		}
	}
	return out, nil
}
