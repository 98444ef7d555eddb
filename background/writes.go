package background

import (
	"context"
	"sync"
	"time"
)

// Batcher is a store that can commit many writes at once: its Insert,
// AppendTurn and AppendAudit called with the context Batch passes fn join
// one transaction, committed when fn returns, each in a savepoint of its
// own (both stores; PostgreSQL commits every few dozen calls, under the
// server's subtransaction cache). Ingest then commits the writes of the
// jobs that finish together once, instead of one transaction per job and
// another per turn-log row, and a memory goes in with its audit row.
type Batcher interface {
	Batch(ctx context.Context, fn func(ctx context.Context) error) error
}

// maxJoined bounds the writes committed together.
const maxJoined = 256

// maxJoinedRows bounds the rows (events, turn-log rows) committed together,
// about: a commit holds SQLite's write lock, which consolidation and the
// recall path's writer wait for, and jobs of 64 turns each made commits of
// a thousand rows. A write larger than the bound is committed alone.
const maxJoinedRows = 256

// joinTimeout bounds one group write.
const joinTimeout = 30 * time.Second

// writeReq is one job's store write waiting for the group writer.
type writeReq struct {
	fn   func(ctx context.Context) error
	rows int // rows fn writes, about
	done chan error
}

// groupWriter commits the store writes of concurrent ingest jobs together.
// Jobs that hand writes over while a commit is in flight share the next
// one: with one job running nothing waits, with many a commit serves them
// all. It is started by Queue.Start and stopped by Queue.Stop once the
// workers have stopped; after that (or with a store that cannot batch)
// writes run on their own.
type groupWriter struct {
	b    Batcher
	reqs chan *writeReq

	mu      sync.RWMutex
	running bool // guarded by mu; reqs is read until it is false
	stop    chan struct{}
	done    chan struct{}
}

func newGroupWriter(b Batcher) *groupWriter {
	return &groupWriter{b: b, reqs: make(chan *writeReq, maxJoined), stop: make(chan struct{}), done: make(chan struct{})}
}

func (w *groupWriter) start() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.running = true
	w.mu.Unlock()
	go w.loop()
}

// close commits what was handed over and stops the loop; later writes run
// on their own. Safe to call on a nil writer, one never started, and twice.
func (w *groupWriter) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	wasRunning := w.running
	w.running = false
	w.mu.Unlock()
	if wasRunning {
		close(w.stop)
		<-w.done
	}
}

// write (nil-safe) runs fn, which writes about rows rows, with a context
// under which the store's batchable writes join a group commit, and
// returns fn's error or the commit's. Once handed over, the write's
// outcome is waited for even if ctx ends: a job must not report failure
// for writes that then commit (a retry would write its turn-log rows
// twice).
func (w *groupWriter) write(ctx context.Context, rows int, fn func(ctx context.Context) error) error {
	if w == nil {
		return fn(ctx)
	}
	r := &writeReq{fn: fn, rows: rows, done: make(chan error, 1)}
	// The read lock spans the hand-over so close cannot stop the loop
	// between the check and the send.
	w.mu.RLock()
	if !w.running {
		w.mu.RUnlock()
		return fn(ctx)
	}
	select {
	case w.reqs <- r:
		w.mu.RUnlock()
	case <-ctx.Done():
		w.mu.RUnlock()
		return ctx.Err()
	}
	return <-r.done
}

func (w *groupWriter) loop() {
	defer close(w.done)
	batch := make([]*writeReq, 0, maxJoined)
	for {
		batch = batch[:0]
		select {
		case r := <-w.reqs:
			batch = append(batch, r)
		case <-w.stop:
			// No sender holds the lock past running=false: what is in
			// the channel now is all there will be.
			for {
				select {
				case r := <-w.reqs:
					batch = append(batch, r)
				default:
					w.commit(batch)
					return
				}
			}
		}
		rows := batch[0].rows
	gather:
		for len(batch) < maxJoined && rows < maxJoinedRows {
			select {
			case r := <-w.reqs:
				batch = append(batch, r)
				rows += r.rows
			default:
				break gather
			}
		}
		w.commit(batch)
	}
}

// commit runs the batch's writes in one Batch and answers each: its own
// error, else the commit's.
func (w *groupWriter) commit(batch []*writeReq) {
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
	defer cancel()
	errs := make([]error, len(batch))
	err := w.b.Batch(ctx, func(ctx context.Context) error {
		for i, r := range batch {
			errs[i] = r.fn(ctx)
		}
		return nil
	})
	for i, r := range batch {
		if errs[i] != nil {
			r.done <- errs[i]
		} else {
			r.done <- err
		}
	}
}
