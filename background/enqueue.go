package background

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
)

// maxBatch bounds one group commit.
const maxBatch = 256

// ErrStopped is returned by Enqueue after Stop (or before Start).
var ErrStopped = errors.New("background: queue not running")

// maxTurnsPerJob bounds one ingest job, so a retry redoes little.
const maxTurnsPerJob = 64

type enqueueReq struct {
	turns []*memory.Turn // redacted copies
	done  chan error
}

// Enqueue durably queues one turn for ingest: it returns nil only after the
// job row is committed. Secrets are redacted before the row is written.
// Concurrent calls are group-committed: turns arriving while a commit is in
// flight share the next transaction. A turn whose scope's last job still
// waits in the queue joins it (see joinWaiting).
func (q *Queue) Enqueue(ctx context.Context, t *memory.Turn) error {
	if t == nil {
		return fmt.Errorf("background: enqueue: %w: nil turn", memory.ErrInvalid)
	}
	return q.enqueue(ctx, []*memory.Turn{t})
}

// ImportTurns queues many turns through the same path as live traffic (the
// admin turn import and evaluation replays). It returns after all are
// committed. A turn without a Context gets the previous turn of the same
// conversation in the import, as a live request carries its resent
// history; the turns are filled in a copy, the caller's stay as given.
// Turns are committed grouped by scope (each scope's in the given order),
// so a job carries up to maxTurnsPerJob turns of one scope however the
// import interleaves its users.
func (q *Queue) ImportTurns(ctx context.Context, turns []*memory.Turn) error {
	turns = byScope(withImportContext(turns))
	for len(turns) > 0 {
		n := min(len(turns), maxBatch)
		if err := q.enqueue(ctx, turns[:n]); err != nil {
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

func (q *Queue) enqueue(ctx context.Context, turns []*memory.Turn) error {
	red := make([]*memory.Turn, 0, len(turns))
	for _, t := range turns {
		if t == nil {
			return fmt.Errorf("background: enqueue: %w: nil turn", memory.ErrInvalid)
		}
		if err := t.Scope.Validate(); err != nil {
			return fmt.Errorf("background: enqueue: %w", err)
		}
		rt := q.red.Turn(t)
		if rt.Time.IsZero() {
			rt.Time = q.now()
		}
		rt.Time = rt.Time.UTC()
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
// InsertMany. Requests that arrive during the commit form the next batch.
func (q *Queue) commitLoop(ctx context.Context) {
	defer close(q.done)
	batch := make([]*enqueueReq, 0, 64)
	for {
		batch = batch[:0]
		select {
		case r := <-q.reqs:
			batch = append(batch, r)
		case <-ctx.Done():
			q.flushPending(batch)
			return
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
		q.commit(batch)
	}
}

// flushPending commits requests still buffered at shutdown.
func (q *Queue) flushPending(batch []*enqueueReq) {
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

func (q *Queue) commit(batch []*enqueueReq) {
	turns := 0
	for _, r := range batch {
		turns += len(r.turns)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := q.insertTurns(ctx, groupTurns(batch))
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

// insertTurns commits the turns: to their scopes' jobs still waiting
// where it can (see joinWaiting), the rest in new jobs.
func (q *Queue) insertTurns(ctx context.Context, g scopeTurns) error {
	if j, err := q.joinWaiting(ctx, g); err != nil {
		// New jobs take them all.
		q.log.WarnContext(ctx, "enqueue: joining waiting jobs", "err", err)
		q.waiting.clear()
	} else {
		g = j
	}
	params := ingestParams(g)
	if len(params) == 0 {
		return nil
	}
	// The new jobs' ids are read back: the next turns of their scopes
	// join them while they wait.
	res, err := q.client.InsertMany(ctx, params)
	if err != nil {
		return err
	}
	// Rows come back in no promised order: the scope tag names each job's
	// scope.
	byTag := make(map[string]memory.Scope, len(g.order))
	for _, s := range g.order {
		byTag[scopeTag(s)] = s
	}
	for _, r := range res {
		if r.Job == nil {
			continue
		}
		for _, tag := range r.Job.Tags {
			if s, ok := byTag[tag]; ok {
				q.waiting.set(s, r.Job.ID)
			}
		}
	}
	return nil
}

// ingestParams packs turns into jobs: one per scope (so deleting a user's
// pending jobs never takes another user's turns), at most maxTurnsPerJob
// turns each, in arrival order.
func ingestParams(g scopeTurns) []river.InsertManyParams {
	var params []river.InsertManyParams
	for _, s := range g.order {
		ts := g.turns[s]
		for len(ts) > 0 {
			n := min(len(ts), maxTurnsPerJob)
			params = append(params, river.InsertManyParams{
				Args:       IngestArgs{Scope: s, Turns: ts[:n]},
				InsertOpts: &river.InsertOpts{Queue: queueIngest, Tags: []string{scopeTag(s), userTag(s.User)}},
			})
			ts = ts[n:]
		}
	}
	return params
}
