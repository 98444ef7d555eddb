package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
// never lose a hit; ids not in the scope are ignored. In a Batch the
// touches add up and are written as it commits, one statement for all:
// the recall path's writer hands over a touch per recall, and a memory
// injected by many of them is written once.
func (s *Store) Touch(ctx context.Context, sc memory.Scope, ids []string, t time.Time) error {
	if err := sqlkit.Check(s.Store.Conn, sc); err != nil {
		return fmt.Errorf("touch memories: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	t = sqlkit.Micro(t)
	after := func() { s.local.EndTouch(sc, ids, t, true) }
	b := batchOf(ctx)
	if b == nil {
		u := usage{}
		u.add(sc, ids, t)
		if err := u.write(ctx, s.db); err != nil {
			return sqlkit.Wrap("touch memories", err)
		}
		after()
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tx == nil {
		return fmt.Errorf("touch memories: batch: %w", b.err)
	}
	if b.touches == nil {
		b.touches = usage{}
	}
	b.touches.add(sc, ids, t)
	b.after = append(b.after, after)
	return nil
}

// usage is what touches add to memories, by key.
type usage map[[3]string]struct {
	hits int64
	last time.Time
}

// add adds a touch of ids (an id twice is one touch) at t.
func (u usage) add(sc memory.Scope, ids []string, t time.Time) {
	for i, id := range ids {
		if k := [3]string{sc.User, sc.Namespace, id}; !slices.Contains(ids[:i], id) {
			a := u[k]
			a.hits++
			if t.After(a.last) {
				a.last = t
			}
			u[k] = a
		}
	}
}

// write upserts the usage rows, in key order (the statement's ORDER BY),
// so two writers lock them in the same order.
func (u usage) write(ctx context.Context, q dbtx) error {
	if len(u) == 0 {
		return nil
	}
	var cols [4][]string
	var hits []int64
	for k, a := range u {
		cols[0], cols[1], cols[2] = append(cols[0], k[0]), append(cols[1], k[1]), append(cols[2], k[2])
		cols[3], hits = append(cols[3], a.last.Format(time.RFC3339Nano)), append(hits, a.hits)
	}
	_, err := q.ExecContext(ctx, `INSERT INTO memory_usage AS u (user_id, namespace, id, hits, last_used_at)
		SELECT m.user_id, m.namespace, m.id, x.hits, x.last
		FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::bigint[]) AS x(u, ns, id, last, hits)
		JOIN memories m ON m.user_id = x.u AND m.namespace = x.ns AND m.id = x.id
		ORDER BY m.user_id, m.namespace, m.id
		ON CONFLICT (user_id, namespace, id) DO UPDATE
		SET hits = u.hits + excluded.hits, last_used_at = greatest(u.last_used_at, excluded.last_used_at)`,
		pq.Array(cols[0]), pq.Array(cols[1]), pq.Array(cols[2]), pq.Array(cols[3]), pq.Array(hits))
	return err
}
