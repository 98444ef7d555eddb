package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
)

// A long chat message has dozens of content terms, most of them common in
// a large scope; matching all of them makes FTS5 rank nearly every row
// (bm25 reads each match's size and walks every phrase's instances), which
// costs tens of milliseconds at 10k memories. Lexical search therefore
// matches the rarest terms within a postings budget. BM25 gives a term an
// IDF that falls to nothing as it approaches half the scope, so the terms
// left out are the ones that move the ranking least, and a query whose
// terms all fit the budget (every query on a small scope) is matched whole
// and ranked exactly as before.
const (
	// lexPostings is the budget: the sum of the chosen terms' document
	// frequencies.
	lexPostings = 600
	// lexMaxTerms is the most terms a query is matched with.
	lexMaxTerms = 10
	// lexMinTerms are always matched (the rarest that match at all), over
	// the budget if need be.
	lexMinTerms = 2
	// lexMaxQueryTerms bounds the frequency lookup of a pasted document:
	// its first distinct content terms.
	lexMaxQueryTerms = 64
	// lexNewest bounds how many of the chosen terms' matches are ranked
	// when even they exceed the budget: the newest ones.
	lexNewest = lexPostings
)

// vocabTable exposes memories_fts's per-term document counts (fts5vocab,
// row form). Its terms are scope-prefixed like the index, so the counts
// are the scope's own. It stores nothing: created if missing at Open.
const vocabTable = "memories_fts_vocab"

func ensureVocab(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS `+vocabTable+` USING fts5vocab(memories_fts, 'row')`); err != nil {
		return fmt.Errorf("create lexical vocabulary table: %w", err)
	}
	return nil
}

// lexTerm is one query term with its document frequency in the scope.
type lexTerm struct {
	term string // unprefixed
	df   int
	pos  int // order in the query
}

// chooseTerms returns the terms to match (unprefixed), rarest first, and
// the sum of their document frequencies. Terms no memory of the scope
// holds are dropped: they cannot match.
func (s *Store) chooseTerms(ctx context.Context, prefix string, terms []string) ([]string, int, error) {
	if len(terms) > lexMaxQueryTerms {
		terms = terms[:lexMaxQueryTerms]
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
	cand := make([]lexTerm, 0, len(terms))
	for i, t := range terms {
		if d := df[prefix+t]; d > 0 {
			cand = append(cand, lexTerm{term: t, df: d, pos: i})
		}
	}
	slices.SortFunc(cand, func(a, b lexTerm) int { return cmp.Or(cmp.Compare(a.df, b.df), cmp.Compare(a.pos, b.pos)) })
	var out []string
	sum := 0
	for _, c := range cand {
		if len(out) >= lexMaxTerms || (len(out) >= lexMinTerms && sum+c.df > lexPostings) {
			break
		}
		out = append(out, c.term)
		sum += c.df
	}
	return out, sum, nil
}

// newestBound is the lowest rowid among the newest lexNewest matches of
// match, or 0 when there are fewer: ranking only rows at or above it
// bounds the cost of a query whose rarest terms are still common.
func (s *Store) newestBound(ctx context.Context, match string) (int64, error) {
	var lo int64
	err := s.queryRow(ctx, `SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET `+
		strconv.Itoa(lexNewest-1), match).Scan(&lo)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return lo, err
}

// FTS5 adds a segment to its index at every write transaction and merges
// them only lazily, and every term lookup seeks into every segment: on a
// store filled by many small ingest transactions a one-term MATCH cost 70µs
// against 10µs on a merged index (110k memories). So the index is merged
// whole ('optimize') after lexCompactRows inserted rows (milliseconds on a
// small store), or a tenth of the index when that is more (0.3 s at 110k
// memories), so the work per inserted row stays a small constant.
const lexCompactRows = 500

// noteLexWrites counts rows added to memories_fts and merges the index
// when enough have accumulated. It runs on the writer's goroutine (ingest,
// off the request path); a failed merge is retried at the next threshold.
func (s *Store) noteLexWrites(ctx context.Context, n int) {
	total := s.lexWrites.Add(int64(n))
	if total < lexCompactRows || total < s.lexCompactAt.Load() {
		return
	}
	s.lexWrites.Store(0)
	_ = s.write(ctx, func(tx *sql.Tx) error {
		var top sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT max(seq) FROM memories`).Scan(&top); err != nil {
			return err
		}
		s.lexCompactAt.Store(top.Int64 / 10)
		_, err := tx.ExecContext(ctx, `INSERT INTO memories_fts (memories_fts) VALUES ('optimize')`)
		return err
	})
}
