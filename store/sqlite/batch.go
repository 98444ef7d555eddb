package sqlite

import (
	"context"
	"database/sql"

	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// Batch runs fn with a context under which the store's Touch, AppendRecall,
// Insert, AppendTurn and AppendAudit join one write transaction, committed
// when fn returns (the recall path's flush window, the ingest jobs that
// finish together, a memory with its audit row). Each joined call runs in
// its own savepoint, so one that fails leaves the others in place and
// returns its error. Other writes made with the context fail at once
// instead of waiting for the batch's lock. What a joined write changes in
// memory (row cache, search indexes) is applied once the batch committed,
// before its lock is released.
func (s *Store) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	b := &batch{s: s.conn}
	err := s.writeThen(ctx, func(tx *sql.Tx) error {
		b.tx = tx
		return fn(context.WithValue(ctx, batchKey{}, b))
	}, func() { b.end(true) })
	if err != nil {
		b.end(false)
	}
	return err
}

type batchKey struct{}

// batch is an open Batch transaction.
type batch struct {
	s     *conn
	tx    *sql.Tx
	after []func(committed bool) // run when the batch ended
}

// end runs the after functions once.
func (b *batch) end(committed bool) {
	for _, f := range b.after {
		f(committed)
	}
	b.after = nil
}

// batchOf returns the batch of s that ctx carries, if any.
func (s *conn) batchOf(ctx context.Context) *batch {
	b, _ := ctx.Value(batchKey{}).(*batch)
	if b == nil || b.s != s {
		return nil
	}
	return b
}

// reader is what a memory read runs on (sqlkit.Conn.Reader): the batch
// ctx carries when there is one, so a read made with a batch's context
// sees the batch's own writes (ingest looks up which of its events a
// failed insert collided with, and the other row may be one an earlier
// job wrote in the same batch).
func (s *conn) reader(ctx context.Context) sqlkit.Execer {
	if b := s.batchOf(ctx); b != nil {
		return b.tx
	}
	return s.db
}

// join runs fn as joinWriteThen does and after (when not nil) once fn's writes
// are committed: after the write lock is released without a batch (so
// after may read), as the batch commits with one.
func (s *conn) join(ctx context.Context, after func(), fn func(tx *sql.Tx) error) error {
	if s.batchOf(ctx) != nil {
		return s.joinWriteThen(ctx, fn, after)
	}
	if err := s.write(ctx, fn); err != nil {
		return err
	}
	if after != nil {
		after()
	}
	return nil
}

// joinWriteThen runs fn in the batch ctx carries, inside a savepoint, or
// else in a transaction of its own (write), and committed (when not nil)
// once the write is committed and before the write lock is released: at
// once without a batch, when the batch commits with one.
func (s *conn) joinWriteThen(ctx context.Context, fn func(tx *sql.Tx) error, committed func()) error {
	b := s.batchOf(ctx)
	if b == nil {
		return s.writeThen(ctx, fn, committed)
	}
	if err := sqlkit.Savepoint(ctx, b.tx, fn); err != nil {
		return err
	}
	if committed != nil {
		b.after = append(b.after, func(ok bool) {
			if ok {
				committed()
			}
		})
	}
	return nil
}
