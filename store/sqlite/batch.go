package sqlite

import (
	"context"
	"database/sql"
)

// Batch runs fn with a context under which the store's Touch and
// AppendRecall join one write transaction, committed when fn returns: the
// recall path's background writer hands over all the touches and recall-log
// rows of a flush window at once. A write transaction per request made
// every other pooled connection empty its page cache at its next read
// (SQLite does after another connection wrote), which cost more than the
// writes. Each joined call runs in its own savepoint, so one that fails
// leaves the others in place and returns its error as usual. Other writes
// made with the context run on their own. Touch's effect on the row cache
// is applied once the batch committed.
func (s *Store) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	b := &batch{s: s}
	err := s.write(ctx, func(tx *sql.Tx) error {
		b.tx = tx
		return fn(context.WithValue(ctx, batchKey{}, b))
	})
	for _, f := range b.after {
		f(err == nil)
	}
	return err
}

type batchKey struct{}

// batch is an open Batch transaction.
type batch struct {
	s     *Store
	tx    *sql.Tx
	after []func(committed bool) // run when the batch ended
}

// batchOf returns the batch of s that ctx carries, if any.
func (s *Store) batchOf(ctx context.Context) *batch {
	b, _ := ctx.Value(batchKey{}).(*batch)
	if b == nil || b.s != s {
		return nil
	}
	return b
}

// joinWrite runs fn in the batch ctx carries, inside a savepoint, or else
// in a transaction of its own (write).
func (s *Store) joinWrite(ctx context.Context, fn func(tx *sql.Tx) error) error {
	b := s.batchOf(ctx)
	if b == nil {
		return s.write(ctx, fn)
	}
	if _, err := b.tx.ExecContext(ctx, `SAVEPOINT joined`); err != nil {
		return err
	}
	if err := fn(b.tx); err != nil {
		_, _ = b.tx.ExecContext(ctx, `ROLLBACK TO joined`)
		_, _ = b.tx.ExecContext(ctx, `RELEASE joined`)
		return err
	}
	_, err := b.tx.ExecContext(ctx, `RELEASE joined`)
	return err
}
