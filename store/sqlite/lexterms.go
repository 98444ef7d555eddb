package sqlite

import (
	"context"
	"database/sql"
	"fmt"
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
