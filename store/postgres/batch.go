package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// Batch runs fn with a context under which the store's Insert, Touch,
// AppendTurn, AppendAudit and AppendRecall join one transaction, committed
// when fn returns (the recall path's flush window, the ingest jobs that
// finish together: one WAL flush instead of one per write). fn must not
// wait on writes outside the batch to rows the batch wrote. Each joined
// call runs in its own savepoint, so one that fails leaves the others in
// place. Past 64 savepoints the server's subtransaction cache overflows,
// so a batch commits every maxJoined calls and goes on in a new
// transaction; a failing fn rolls back only the calls since. Touches add
// up and are written as the batch commits.
func (s *Store) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("batch: begin: %w", err)
	}
	b := &batch{db: s.db, tx: tx}
	if err := fn(context.WithValue(ctx, batchKey{}, b)); err != nil {
		if b.tx == nil {
			return err
		}
		return errors.Join(err, rollback(b.tx))
	}
	if b.tx == nil {
		return fmt.Errorf("batch: %w", b.err)
	}
	return b.commit(ctx)
}

// maxJoined bounds the calls (savepoints) one transaction of a Batch
// takes, under the server's 64 cached subtransactions.
const maxJoined = 48

type batchKey struct{}

// batchOf is the Batch ctx runs in, or nil.
func batchOf(ctx context.Context) *batch {
	b, _ := ctx.Value(batchKey{}).(*batch)
	return b
}

// batch is an open Batch transaction. Calls joining it are serialised:
// a transaction runs one statement at a time.
type batch struct {
	mu      sync.Mutex
	db      *sql.DB
	tx      *sql.Tx // nil after a failed intermediate commit (err)
	err     error
	calls   int      // joined calls in tx
	after   []func() // run once tx committed
	touches usage    // the Touch calls since the last commit, written just before it
}

// commit commits the batch's transaction and runs its after hooks.
func (b *batch) commit(ctx context.Context) error {
	tx := b.tx
	b.tx = nil
	if err := b.touches.write(ctx, tx); err != nil {
		return fmt.Errorf("batch: touch memories: %w", errors.Join(err, rollback(tx)))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("batch: commit: %w", err)
	}
	for _, f := range b.after {
		f()
	}
	b.after, b.calls, b.touches = nil, 0, nil
	return nil
}

// next commits the transaction once it holds maxJoined calls and begins
// the next; the caller holds mu.
func (b *batch) next(ctx context.Context) error {
	if b.tx == nil {
		return fmt.Errorf("batch: %w", b.err)
	}
	if b.calls < maxJoined {
		return nil
	}
	if err := b.commit(ctx); err != nil {
		b.err = err
		return err
	}
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		b.err = fmt.Errorf("batch: begin: %w", err)
		return b.err
	}
	b.tx = tx
	return nil
}

// dbtx is what a write runs on: the pool, or a transaction.
type dbtx = sqlkit.Execer

// joined runs fn in the batch of ctx, in a savepoint of its own, or
// without a batch on the pool (one statement, atomic alone) or, when
// several is set, in a transaction of its own. after, when set, runs once
// fn's writes are committed (at once outside a batch).
func (s *conn) joined(ctx context.Context, several bool, after func(), fn func(q dbtx) error) error {
	b := batchOf(ctx)
	if b == nil {
		var err error
		if several {
			err = s.inTx(ctx, func(tx *sql.Tx) error { return fn(tx) })
		} else {
			err = fn(s.db)
		}
		if err == nil && after != nil {
			after()
		}
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.next(ctx); err != nil {
		return err
	}
	b.calls++
	if err := sqlkit.Savepoint(ctx, b.tx, func(tx *sql.Tx) error { return fn(tx) }); err != nil {
		return err
	}
	if after != nil {
		b.after = append(b.after, after)
	}
	return nil
}
