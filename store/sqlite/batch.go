package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"runtime"
	"slices"

	"github.com/memproxy/memproxy/memory"

	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// Batch runs fn with a context under which the store's Touch, AppendRecall,
// Insert, AppendTurn and AppendAudit join one write transaction, committed
// when fn returns (the recall path's flush window, the ingest jobs that
// finish together, a memory with its audit row). Each joined call runs in
// its own savepoint, so one that fails leaves the others in place and
// returns its error; touches are added up and written when fn returns
// (one statement a scope), and their failure is Batch's error. Other writes made with the context fail at once
// instead of waiting for the batch's lock. What a joined write changes in
// memory (row cache, search indexes) is applied once the batch committed,
// before its lock is released.
func (s *Store) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	b := &batch{s: s.conn}
	var touchErr error
	err := s.writeThen(ctx, func(tx *sql.Tx) error {
		b.tx = tx
		if err := fn(context.WithValue(ctx, batchKey{}, b)); err != nil {
			return err
		}
		// The batch's touches, added up: one statement a scope, and a
		// memory many requests of the window injected is written once.
		// A failure leaves the other writes in place, as a joined call's
		// does, and is the batch's error.
		if touchErr = sqlkit.Savepoint(ctx, tx, func(tx *sql.Tx) error { return b.flushTouches(ctx, tx) }); touchErr != nil {
			b.touchFailed = true
		}
		return nil
	}, func() { b.end(true) })
	if err != nil {
		b.end(false)
		return err
	}
	return sqlkit.Wrap("touch memories", touchErr)
}

// touchSQL adds up a scope's touches in its usage rows (migration 10):
// the JSON array holds [id, count, last use in unix micros] per memory;
// ids of no memory are left out (the id index tells), and the upsert adds
// to what is there, never moving the last use back.
const touchSQL = `INSERT INTO memory_usage (id, user, namespace, hits, last_used_at)
	SELECT t.id, ?, ?, t.n, t.at
	FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS n, json_extract(value, '$[2]') AS at
		FROM json_each(?)) AS t
	WHERE EXISTS (SELECT 1 FROM memories m WHERE m.id = t.id)
	ON CONFLICT (id, user, namespace) DO UPDATE
	SET hits = hits + excluded.hits, last_used_at = max(last_used_at, excluded.last_used_at)`

// touched is one memory's touches in a batch.
type touched struct {
	n  int
	at int64
}

// touch adds a Touch of ids at t to the batch.
func (b *batch) touch(sc memory.Scope, ids []string, t int64) {
	if b.touches == nil {
		b.touches = map[memory.Scope]map[string]touched{}
	}
	m := b.touches[sc]
	if m == nil {
		m = map[string]touched{}
		b.touches[sc] = m
	}
	addTouch(m, ids, t)
}

// addTouch adds one Touch of ids at t to m; an id given twice in one
// Touch is one touch, as on PostgreSQL.
func addTouch(m map[string]touched, ids []string, t int64) {
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			continue
		}
		x := m[id]
		x.n++
		x.at = max(x.at, t)
		m[id] = x
	}
}

// flushTouches writes the batch's touches.
func (b *batch) flushTouches(ctx context.Context, tx *sql.Tx) error {
	for sc, m := range b.touches {
		if err := writeTouches(ctx, tx, sc, m); err != nil {
			return err
		}
	}
	return nil
}

// writeTouches adds a scope's touches to its usage rows (touchSQL).
func writeTouches(ctx context.Context, tx *sql.Tx, sc memory.Scope, m map[string]touched) error {
	rows := make([][3]any, 0, len(m))
	for id, x := range m {
		rows = append(rows, [3]any{id, x.n, x.at})
	}
	list, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, touchSQL, sc.User, sc.Namespace, string(list))
	return err
}

// yieldEvery is how many units of a long loop of bookkeeping (a batch's
// after functions, the journal's inserts) run between yields of the
// processor (runtime.Gosched) to goroutines the loop woke, such as a
// request waiting for a lock it released.
const yieldEvery = 16

type batchKey struct{}

// batch is an open Batch transaction.
type batch struct {
	s           *conn
	tx          *sql.Tx
	after       []func(committed bool) // run when the batch ended
	touches     map[memory.Scope]map[string]touched
	touchFailed bool // the touches were not written
}

// end runs the after functions once. A batch of the recall path's
// writer ends hundreds of touches, each taking the row cache's lock: a
// recall that waited for the lock is woken onto this goroutine's
// processor and would run only once the whole loop is done, so the loop
// yields every yieldEvery functions.
func (b *batch) end(committed bool) {
	for i, f := range b.after {
		f(committed)
		if i%yieldEvery == yieldEvery-1 {
			runtime.Gosched()
		}
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
