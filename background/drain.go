package background

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
)

// Ingest reads its turns from the spool (memory.TurnSpool), never from a
// job's arguments: capture commits turns there and nothing else; a Drain
// job names only a scope, and the worker that runs it claims the scope's
// pending turns with a short lease, renews it while it works, and
// completes them once their memories and turn-log rows are written. One
// job drains everything the scope has pending (in rounds of
// maxTurnsPerJob), which is the batching a backlog needs: turns that
// arrive while a scope's job waits are taken by that job.
//
// Jobs come from two places. The dispatcher inserts one for each scope a
// capture commit touched, unless this process already has one for the
// scope that no worker has started, or a worker here is draining the
// scope: that worker claims again before it ends (see dispatcher). The
// sweeper lists, every
// SweepInterval, the scopes with turns nobody holds (their job was lost,
// or their worker died and its lease ran out) and dispatches them: after
// a crash, the dead process's turns are claimed again once their lease
// has expired, at most Lease + SweepInterval after the restart, and a
// live worker's lease (renewed every Lease/3) is never taken, on any
// replica.

// DrainArgs asks for a scope's pending spooled turns to be ingested.
type DrainArgs struct {
	Scope memory.Scope `json:"scope"`
}

func (DrainArgs) Kind() string { return kindDrain }

func (DrainArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: queueIngest} }

// Lease defaults (Config.Lease, Config.SweepInterval,
// Config.MaxTurnAttempts).
const (
	DefaultLease           = 20 * time.Second
	DefaultSweepInterval   = 5 * time.Second
	DefaultMaxTurnAttempts = 8
)

func (q *core) lease() time.Duration { return cmp.Or(q.cfg.Lease, DefaultLease) }

func (q *core) maxTurnAttempts() int { return cmp.Or(q.cfg.MaxTurnAttempts, DefaultMaxTurnAttempts) }

func (q *core) sweepInterval() time.Duration {
	return cmp.Or(q.cfg.SweepInterval, DefaultSweepInterval)
}

// dispatcher turns committed scopes into Drain jobs.
//
// While a worker here drains a scope, turns committed for it insert no
// job: the commit marks the scope dirty, and the worker, whose claim came
// back empty, claims again instead of ending when the scope is dirty
// (both under mu, so a commit either marks a scope whose worker will
// look, or finds no worker and makes the scope due). Before, every
// commit after a worker started inserted a job, and under load (the
// worker paced, the scope's lease held) nearly all of them found nothing
// to claim: River's insert, fetch and completion and a claim's
// transaction for each, on the store's writer.
type dispatcher struct {
	q       *core
	kick    chan struct{}
	mu      sync.Mutex
	due     map[memory.Scope]bool // committed, no job inserted yet
	queued  map[memory.Scope]bool // a job inserted here that no worker here started
	running map[memory.Scope]bool // a worker here drains the scope
	dirty   map[memory.Scope]bool // committed while running, since its last claim began
}

func newDispatcher(q *core) *dispatcher {
	return &dispatcher{q: q, kick: make(chan struct{}, 1), due: map[memory.Scope]bool{},
		queued: map[memory.Scope]bool{}, running: map[memory.Scope]bool{}, dirty: map[memory.Scope]bool{}}
}

// notify asks for jobs for the scopes; it never blocks.
func (d *dispatcher) notify(scopes []memory.Scope) {
	d.mu.Lock()
	for _, s := range scopes {
		switch {
		case d.running[s]: // first: a job queued meanwhile may end at once (started)
			d.dirty[s] = true
		case d.queued[s]:
		default:
			d.due[s] = true
		}
	}
	d.mu.Unlock()
	d.wake()
}

func (d *dispatcher) wake() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// started records that a worker here took the scope's job. It reports
// false when another worker here already drains the scope: the scope is
// marked dirty, so that worker claims whatever this job was for (turns
// another replica captured included) before it ends, and this job has
// nothing to do.
func (d *dispatcher) started(s memory.Scope) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.queued, s)
	if d.running[s] {
		d.dirty[s] = true
		return false
	}
	d.running[s] = true
	return true
}

// claiming is called before each claim of the running worker: what was
// committed before it is the claim's to find.
func (d *dispatcher) claiming(s memory.Scope) {
	d.mu.Lock()
	delete(d.dirty, s)
	d.mu.Unlock()
}

// idle is called when the running worker's claim found nothing: it
// reports whether the worker ends (nothing was committed since the claim
// began) or claims again.
func (d *dispatcher) idle(s memory.Scope) (end bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dirty[s] {
		return false
	}
	delete(d.running, s)
	return true
}

// stopped is called when the running worker ends for any other reason
// (a failure, a hand-over, the context): turns committed while it ran
// get a job of their own.
func (d *dispatcher) stopped(s memory.Scope) {
	d.mu.Lock()
	delete(d.running, s)
	more := d.dirty[s]
	delete(d.dirty, s)
	if more && !d.queued[s] {
		d.due[s] = true
	}
	d.mu.Unlock()
	if more {
		d.wake()
	}
}

// loop inserts jobs for due scopes and sweeps; it ends with ctx.
func (d *dispatcher) loop(ctx context.Context, sweep bool) {
	var tick, prune <-chan time.Time
	if sweep {
		t := time.NewTicker(d.q.sweepInterval())
		defer t.Stop()
		tick = t.C
		p := time.NewTicker(time.Hour)
		defer p.Stop()
		prune = p.C
		d.sweep(ctx) // at start: turns a crash left behind
		d.prune(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.kick:
		case <-tick:
			d.sweep(ctx)
		case <-prune:
			d.prune(ctx)
		}
		d.insertDue(ctx)
	}
}

// sweep marks the scopes with unclaimed turns due.
func (d *dispatcher) sweep(ctx context.Context) {
	scopes, err := d.q.spool.PendingScopes(ctx, 1000)
	if err != nil {
		if ctx.Err() == nil {
			d.q.log.WarnContext(ctx, "ingest: sweep pending turns", "err", err)
		}
		return
	}
	d.notify(scopes)
}

// prune deletes completed spool rows (metadata only: the response-id
// link) older than decay.archive_retention.
func (d *dispatcher) prune(ctx context.Context) {
	if _, err := d.q.spool.PruneSpool(ctx, time.Now().Add(-d.q.pol.Decay.ArchiveRetention.D())); err != nil && ctx.Err() == nil {
		d.q.log.WarnContext(ctx, "ingest: prune spool", "err", err)
	}
}

func (d *dispatcher) insertDue(ctx context.Context) {
	d.mu.Lock()
	var scopes []memory.Scope
	for s := range d.due {
		scopes = append(scopes, s)
		d.queued[s] = true
	}
	clear(d.due)
	d.mu.Unlock()
	if len(scopes) == 0 {
		return
	}
	params := make([]river.InsertManyParams, len(scopes))
	for i, s := range scopes {
		params[i] = river.InsertManyParams{Args: DrainArgs{Scope: s}, InsertOpts: &river.InsertOpts{
			Queue: queueIngest, Tags: []string{scopeTag(s), userTag(s.User)},
		}}
	}
	ictx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := d.q.client.InsertMany(ictx, params); err != nil {
		// The turns are safe in the spool: the next sweep tries again.
		d.mu.Lock()
		for _, s := range scopes {
			delete(d.queued, s)
		}
		d.mu.Unlock()
		if ctx.Err() == nil {
			d.q.log.WarnContext(ctx, "ingest: insert drain jobs", "scopes", len(scopes), "err", err)
		}
	}
}

type drainWorker struct {
	river.WorkerDefaults[DrainArgs]
	q *Queue
}

// Work drains the scope: claim, ingest, complete, until nothing is left
// (or another worker holds the scope). A failed round gives its turns'
// leases back and fails the job, which River retries.
func (w *drainWorker) Work(ctx context.Context, job *river.Job[DrainArgs]) error {
	q := w.q
	s := job.Args.Scope
	if !q.dispatch.started(s) {
		return nil
	}
	running := true // until idle or stopped ends this worker's drain
	defer func() {
		if running {
			q.dispatch.stopped(s)
		}
	}()
	owner := fmt.Sprintf("%s/%d/%d", q.owner, job.ID, job.Attempt)
	lease := q.lease()
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(lease / 3)
		defer t.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-t.C:
				n, err := q.spool.RenewTurns(rctx, s, owner, lease)
				if err != nil && rctx.Err() == nil {
					q.log.WarnContext(rctx, "ingest: renew lease", "err", err)
				}
				if q.onRenew != nil && err == nil {
					q.onRenew(n)
				}
			}
		}
	}()
	defer func() { stop(); <-renewed }()
	// While requests are running the job paces itself (pace.go); the
	// lane it may hold is given back after each round, so the jobs of
	// other scopes take their turn.
	h := q.pace.handle()
	defer h.release()
	ctx = withPace(ctx, h)
	began := time.Now()
	for {
		q.yield(ctx)
		q.dispatch.claiming(s)
		turns, err := q.spool.ClaimTurns(ctx, s, owner, lease, maxTurnsPerJob)
		if err != nil {
			return fmt.Errorf("claim turns: %w", err)
		}
		if q.onClaim != nil {
			q.onClaim(len(turns))
		}
		if len(turns) == 0 {
			if q.dispatch.idle(s) {
				running = false
				return nil
			}
			continue
		}
		h.round(q.roundLag(turns))
		done, err := q.ing.ingestTurns(ctx, s, turns)
		h.step(ctx)
		h.release()
		if len(done) > 0 {
			// Once written, a turn is complete even if the job's context
			// ended: completing it again later would be a harmless no-op,
			// but ingesting it again is work.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			_, cerr := q.spool.CompleteTurns(cctx, s, owner, done)
			cancel()
			if cerr != nil {
				return errors.Join(err, fmt.Errorf("complete turns: %w", cerr))
			}
		}
		if err != nil {
			var rest []string
			doneSet := make(map[string]bool, len(done))
			for _, id := range done {
				doneSet[id] = true
			}
			for _, t := range turns {
				if !doneSet[t.ID] {
					rest = append(rest, t.ID)
				}
			}
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			rerr := q.spool.ReleaseTurns(rctx, s, owner, rest)
			cancel()
			return errors.Join(err, rerr)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Since(began) > maxDrainJob {
			// A long backlog (or a paced one) goes on in a new job, well
			// inside River's job timeout; every claimed turn is complete.
			running = false
			q.dispatch.stopped(s)
			q.dispatch.notify([]memory.Scope{s})
			return nil
		}
	}
}

// maxDrainJob is how long one Drain job claims round after round before
// it hands the scope's rest to a new job.
const maxDrainJob = time.Minute

// roundLag is how long the oldest of a round's turns has waited since it
// was captured; turns with a time from elsewhere (an import's history, a
// replay's clock ahead of it) count from now.
func (q *core) roundLag(turns []*memory.Turn) time.Duration {
	now := q.now()
	var lag time.Duration
	for _, t := range turns {
		if t.Arm == importArm {
			continue
		}
		if d := now.Sub(t.Time); d > lag {
			lag = d
		}
	}
	return lag
}

// legacyIngestWorker moves the turns of ingest jobs queued before the
// spool existed (their turns in the job's arguments) into the spool.
type legacyIngestWorker struct {
	river.WorkerDefaults[IngestArgs]
	q *Queue
}

func (w *legacyIngestWorker) Work(ctx context.Context, job *river.Job[IngestArgs]) error {
	turns := make([]*memory.Turn, len(job.Args.Turns))
	for i := range job.Args.Turns {
		t := job.Args.Turns[i]
		t.Scope = cmp.Or(t.Scope, job.Args.Scope)
		if t.ID == "" {
			// Keyed by the job, so a retry spools nothing twice.
			t.ID = fmt.Sprintf("job%d-%d", job.ID, i)
		}
		turns[i] = &t
	}
	if err := w.q.spool.SpoolTurns(ctx, turns); err != nil {
		return err
	}
	w.q.dispatch.notify([]memory.Scope{job.Args.Scope})
	return nil
}
