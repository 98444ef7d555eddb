package background

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// maxBatch bounds one group commit.
const maxBatch = 256

// ErrStopped is returned by Enqueue after Stop (or before Start).
var ErrStopped = errors.New("background: queue not running")

// maxTurnsPerJob bounds one round of a drain job, so a retry redoes little.
const maxTurnsPerJob = 64

// capture is the spool's group committer: Enqueue and ImportTurns hand it
// redacted turns, and it commits whatever waits together.
type capture struct {
	*core
	reqs      chan *enqueueReq
	done      chan struct{} // closed when commitLoop returned
	sendMu    sync.RWMutex
	accepting bool // guarded by sendMu
}

func newCapture(c *core) *capture {
	return &capture{core: c, reqs: make(chan *enqueueReq, 4096), done: make(chan struct{})}
}

// setAccepting opens or closes the hand-over; once closed, every turn
// handed over before is committed or answered.
func (q *capture) setAccepting(on bool) {
	q.sendMu.Lock()
	q.accepting = on
	q.sendMu.Unlock()
}

type enqueueReq struct {
	turns []*memory.Turn // redacted copies
	done  chan error
}

// Enqueue durably queues one turn for ingest: it returns nil only after the
// turn is committed to the spool (memory.TurnSpool), the queue's own
// table; no job is inserted on the caller's path. Secrets are redacted
// before the row is written. Concurrent calls are group-committed: turns
// arriving while a commit is in flight share the next transaction.
func (q *Queue) Enqueue(ctx context.Context, t *memory.Turn) error {
	if t == nil {
		return fmt.Errorf("background: enqueue: %w: nil turn", memory.ErrInvalid)
	}
	return q.cap.enqueue(ctx, []*memory.Turn{t})
}

// ImportTurns queues many turns through the same path as live traffic (the
// admin turn import and evaluation replays). It returns after all are
// committed. A turn without a Context gets the previous turn of the same
// conversation in the import, as a live request carries its resent
// history; the turns are filled in a copy, the caller's stay as given.
// Turns are spooled grouped by scope (each scope's in the given order).
func (q *Queue) ImportTurns(ctx context.Context, turns []*memory.Turn) error {
	turns = byScope(withImportContext(turns))
	for len(turns) > 0 {
		n := min(len(turns), maxBatch)
		if err := q.cap.enqueue(ctx, turns[:n]); err != nil {
			return err
		}
		turns = turns[n:]
	}
	return nil
}

// withImportContext fills each turn's empty Context with the exchange of
// the turn before it in the same scope and session (nil turns and turns
// without a session are left alone: there is no conversation to follow).
func withImportContext(turns []*memory.Turn) []*memory.Turn {
	type conv struct {
		scope   memory.Scope
		session string
	}
	prev := map[conv]*memory.Turn{}
	out := make([]*memory.Turn, len(turns))
	for i, t := range turns {
		out[i] = t
		if t == nil || t.Session == "" {
			continue
		}
		k := conv{t.Scope, t.Session}
		if p := prev[k]; p != nil && strings.TrimSpace(t.Context) == "" {
			c := *t
			c.Context = memory.ExchangeContext(p.User, p.Assistant)
			out[i] = &c
		}
		prev[k] = t
	}
	return out
}

// byScope orders turns by scope, scopes in order of first appearance and
// each scope's turns in the order given (nil turns stay, at the front, for
// enqueue to reject).
func byScope(turns []*memory.Turn) []*memory.Turn {
	rank := map[memory.Scope]int{}
	for _, t := range turns {
		if t == nil {
			continue
		}
		if _, ok := rank[t.Scope]; !ok {
			rank[t.Scope] = len(rank)
		}
	}
	out := slices.Clone(turns)
	slices.SortStableFunc(out, func(a, b *memory.Turn) int {
		ra, rb := -1, -1
		if a != nil {
			ra = rank[a.Scope]
		}
		if b != nil {
			rb = rank[b.Scope]
		}
		return cmp.Compare(ra, rb)
	})
	return out
}

func (q *capture) enqueue(ctx context.Context, turns []*memory.Turn) error {
	red := make([]*memory.Turn, 0, len(turns))
	for _, t := range turns {
		if t == nil {
			return fmt.Errorf("background: enqueue: %w: nil turn", memory.ErrInvalid)
		}
		if err := t.Scope.Validate(); err != nil {
			return fmt.Errorf("background: enqueue: %w", err)
		}
		rt := q.red.Turn(t)
		memory.PrepareSpooled(rt, q.now())
		red = append(red, rt)
	}
	r := &enqueueReq{turns: red, done: make(chan error, 1)}
	// The read lock spans the hand-over so Stop (write lock) cannot close
	// the committer between the check and the send: a handed-over turn is
	// always committed or answered.
	q.sendMu.RLock()
	if !q.accepting {
		q.sendMu.RUnlock()
		return ErrStopped
	}
	select {
	case q.reqs <- r:
		q.sendMu.RUnlock()
	case <-ctx.Done():
		q.sendMu.RUnlock()
		return fmt.Errorf("background: enqueue: %w", ctx.Err())
	}
	// Once handed over, the commit proceeds even if ctx ends; waiting for
	// its outcome tells the caller the truth.
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("background: enqueue: %w", ctx.Err())
	}
}

// commitLoop is the group committer: it takes the first waiting request,
// gathers whatever else is already waiting, and commits all of them in one
// spool transaction. Requests that arrive during the commit form the next
// batch; on a spool that commits several at once (spoolCommitters, on
// PostgreSQL), that batch is committed beside the one in flight instead
// of after it, up to that many: the server flushes its log once for the
// commits that wait together, so a capture arriving during a commit
// waits for one log flush, not for the rest of another and then its own.
func (q *capture) commitLoop(ctx context.Context) {
	defer close(q.done)
	par := q.committers()
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var batch []*enqueueReq
		select {
		case r := <-q.reqs:
			batch = append(make([]*enqueueReq, 0, 16), r)
		case <-ctx.Done():
			wg.Wait()
			q.flushPending(nil)
			return
		}
		if par > 1 {
			sem <- struct{}{} // a commit slot, before gathering: what waits meanwhile joins
		}
		n := len(batch[0].turns)
	gather:
		for n < maxBatch {
			select {
			case r := <-q.reqs:
				batch = append(batch, r)
				n += len(r.turns)
			default:
				break gather
			}
		}
		if par <= 1 {
			q.commit(batch)
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			q.commit(batch)
		})
	}
}

// spoolCommitters is a spool that can commit several batches at once
// (memory.TurnSpool implementations may say so).
type spoolCommitters interface {
	// Committers is how many spool commits may run at once.
	Committers() int
}

// committers is how many spool commits run at once: 1 unless the spool
// says otherwise.
func (q *capture) committers() int {
	if c, ok := q.spool.(spoolCommitters); ok {
		return min(max(c.Committers(), 1), 16)
	}
	return 1
}

// flushPending commits requests still buffered at shutdown.
func (q *capture) flushPending(batch []*enqueueReq) {
	for {
		select {
		case r := <-q.reqs:
			batch = append(batch, r)
		default:
			if len(batch) > 0 {
				q.commit(batch)
			}
			return
		}
	}
}

func (q *capture) commit(batch []*enqueueReq) {
	turns := 0
	for _, r := range batch {
		turns += len(r.turns)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := q.spoolTurns(ctx, batch)
	cancel()
	q.met.enqueueLatency.Observe(time.Since(start).Seconds())
	if err != nil {
		err = fmt.Errorf("background: enqueue: %w", err)
		q.met.enqueueErrors.Add(float64(turns))
	} else {
		q.met.enqueued.Add(float64(turns))
	}
	for _, r := range batch {
		r.done <- err
	}
}

// spoolTurns commits the batch's turns to the spool in one transaction
// and hands their scopes to the dispatcher, which makes their jobs.
func (q *capture) spoolTurns(ctx context.Context, batch []*enqueueReq) error {
	var turns []*memory.Turn
	seen := map[memory.Scope]bool{}
	var scopes []memory.Scope
	for _, r := range batch {
		for _, t := range r.turns {
			turns = append(turns, t)
			if !seen[t.Scope] {
				seen[t.Scope] = true
				scopes = append(scopes, t.Scope)
			}
		}
	}
	if err := q.spool.SpoolTurns(ctx, turns); err != nil {
		return err
	}
	q.dispatch.notify(scopes)
	return nil
}
