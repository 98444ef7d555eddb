package sqlite

import (
	"context"
	"database/sql"
	"fmt"
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
// Search now takes the counts from the lexical index (lexIndex.df); the
// table serves the FTS5 reference in the tests and operators' queries.
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
