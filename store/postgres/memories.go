package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// insertBatch bounds the rows of one INSERT (24 parameters each, well under
// PostgreSQL's 65,535).
const insertBatch = 500

// Insert writes ms in one transaction, all or none (or joins the Batch of
// ctx).
func (s *Store) Insert(ctx context.Context, sc memory.Scope, ms ...*memory.Memory) error {
	if err := sqlkit.Prepare(s.Store.Conn, sc, ms, s.opts.Dim); err != nil || len(ms) == 0 {
		return err
	}
	err := s.joined(ctx, len(ms) > insertBatch, nil, func(q dbtx) error {
		for start := 0; start < len(ms); start += insertBatch {
			if err := insertRows(ctx, q, ms[start:min(start+insertBatch, len(ms))]); err != nil {
				return err
			}
		}
		return nil
	})
	return sqlkit.Wrap("insert memories", err)
}

func insertRows(ctx context.Context, tx dbtx, ms []*memory.Memory) error {
	args := make([]any, 0, len(ms)*24)
	for _, m := range ms {
		args = append(args, sqlkit.MemoryArgs(sqlkit.Postgres, m)...)
	}
	q := sqlkit.Postgres.Rebind(`INSERT INTO memories (` + sqlkit.MemCols("embedding") + `) VALUES ` + sqlkit.InsertValues(len(ms)))
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "23505" {
			return fmt.Errorf("%w: duplicate memory id: %w", memory.ErrInvalid, err)
		}
		return err
	}
	return nil
}

// Touch records an access of every id: hits+1, last_used_at=t, in the
// narrow memory_usage rows (migration 9), which reads add to the memories
// row. The increment happens in the upsert itself, so concurrent touches
// never lose a hit; ids not in the scope are ignored. Rows are upserted in
// id order, so two batches sharing ids lock them in the same order.
func (s *Store) Touch(ctx context.Context, sc memory.Scope, ids []string, t time.Time) error {
	if err := sqlkit.Check(s.Store.Conn, sc); err != nil {
		return fmt.Errorf("touch memories: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	after := func() { s.local.EndTouch(sc, ids, sqlkit.Micro(t), true) }
	err := s.joined(ctx, false, after, func(q dbtx) error {
		_, err := q.ExecContext(ctx, `INSERT INTO memory_usage AS u (user_id, namespace, id, hits, last_used_at)
			SELECT user_id, namespace, id, 1, $4 FROM memories WHERE user_id = $1 AND namespace = $2 AND id = ANY($3) ORDER BY id
			ON CONFLICT (user_id, namespace, id) DO UPDATE SET hits = u.hits + 1, last_used_at = excluded.last_used_at`,
			sc.User, sc.Namespace, pq.Array(ids), sqlkit.Micro(t))
		return err
	})
	return sqlkit.Wrap("touch memories", err)
}
