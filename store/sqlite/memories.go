package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// memCols is the column list of a whole memory (sqlkit.MemCols).
var memCols = sqlkit.SQLite.Rebind(sqlkit.MemCols("embedding"))

var insertMemorySQL = `INSERT INTO memories (` + memCols + `) VALUES ` + sqlkit.InsertValues(1) + ` RETURNING seq`

// Insert writes ms in one transaction (a savepoint of the Batch ctx
// carries): all or none.
func (s *Store) Insert(ctx context.Context, sc memory.Scope, ms ...*memory.Memory) error {
	if err := sqlkit.Prepare(s.Store.Conn, sc, ms, s.dim); err != nil || len(ms) == 0 {
		return err
	}
	// The rows as written refresh the indexes: reading them back cost as
	// much as writing them.
	// The rows as written go into the row cache too (as read back:
	// AsStored), encoded now: a caller may change m before a batch
	// commits. A row the batch also touches is left to the touch.
	written := make([]search.Row, 0, len(ms))
	fresh := make([]search.Encoded, 0, len(ms))
	b := s.batchOf(ctx)
	err := s.joinWriteThen(ctx, func(tx *sql.Tx) error {
		written, fresh = written[:0], fresh[:0]
		for _, m := range ms {
			var seq int64
			if err := tx.QueryRowContext(ctx, insertMemorySQL, sqlkit.MemoryArgs(sqlkit.SQLite, m)...).Scan(&seq); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					continue // dropped: its user was deleted after it began (tombstone.go)
				}
				if strings.Contains(err.Error(), "UNIQUE") {
					return fmt.Errorf("%w: memory id %s already exists", memory.ErrInvalid, m.ID)
				}
				return err
			}
			written = append(written, search.RowOf(m, seq))
			fresh = append(fresh, search.Encode(sqlkit.AsStored(m)))
		}
		return nil
	}, func() {
		if b != nil && len(b.touches[sc]) > 0 {
			fresh = slices.DeleteFunc(fresh, func(e search.Encoded) bool {
				_, touched := b.touches[sc][search.EncodedID(e)]
				return touched
			})
		}
		s.idx.Written(sc, written, fresh)
	})
	return sqlkit.Wrap("insert memories", err)
}

// Touch records an access of each id: hits+1 and last_used_at=t (never
// moved backwards by a late, older touch).
func (s *Store) Touch(ctx context.Context, sc memory.Scope, ids []string, t time.Time) error {
	if err := sqlkit.Check(s.Store.Conn, sc); err != nil {
		return fmt.Errorf("touch memories: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	// Hits and last use are not part of the indexes: no refresh, but the
	// cached rows are brought up to date (see rowCache), once committed.
	s.idx.BeginTouch(ids)
	if b := s.batchOf(ctx); b != nil {
		// Written with the batch's other touches when fn returns.
		b.touch(sc, ids, t.UnixMicro())
		b.after = append(b.after, func(committed bool) {
			s.idx.EndTouch(sc, ids, sqlkit.Micro(t), committed && !b.touchFailed)
		})
		return nil
	}
	m := make(map[string]touched, len(ids))
	addTouch(m, ids, t.UnixMicro())
	err := s.joinWriteThen(ctx, func(tx *sql.Tx) error { return writeTouches(ctx, tx, sc, m) }, nil)
	s.idx.EndTouch(sc, ids, sqlkit.Micro(t), err == nil)
	return sqlkit.Wrap("touch memories", err)
}
