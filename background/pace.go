package background

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/memproxy/memproxy/policy"
	"github.com/prometheus/client_golang/prometheus"
)

// Background work paces itself while the request path is busy (policy
// ingest.yield). On a two-core machine an ingest round of 64 turns into a
// large scope is a few hundred milliseconds of CPU; run beside requests,
// every worker's step is CPU a request waits for. So while requests are
// running (Load.Busy), the background works one worker at a time (the
// lane) and, after each step (a turn, an event's neighbour search, a
// cluster check), pauses (1-share)/share times as long as the step took:
// it keeps about share of one core's wall time. Pausing is bounded: the
// share rises with the age of the oldest turn of the round being
// ingested, linearly to 1 (no pauses, no lane) at max_lag, so a steady
// stream of requests slows ingest down until the backlog is max_lag old
// and never further: the queue keeps up with what it is sent, and after
// the requests stop it runs at full speed.
//
// Steps are taken between units of work that hold no lock or transaction
// (the group writer's commits run on its own goroutine, never paced), so a
// pause never holds up a request or another worker's write.

// Load is the request path's activity as the background sees it
// (loadshed.Gauge).
type Load interface {
	// Busy reports whether request work is in flight or ended within
	// window.
	Busy(window time.Duration) bool
}

// PaceClock is the pacer's time: pauses wait on After. Tests inject one.
type PaceClock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// minPause is the least pause worth a timer: shorter debts add up.
const minPause = time.Millisecond

// maxStep bounds the work one step is charged for: steps are timed by
// the wall clock, and a step that waited (a loaded machine's run queue, a
// slow commit) did not spend all of it on a core.
const maxStep = 100 * time.Millisecond

// pacer is shared by a queue's workers.
type pacer struct {
	load   Load // nil: never busy
	clock  PaceClock
	share  float64
	window time.Duration
	maxLag time.Duration
	lane   chan struct{} // held by the one worker that works while busy

	paced   atomic.Int64 // nanoseconds paused or waiting for the lane
	pauses  atomic.Int64
	metTime prometheus.Counter
}

func newPacer(load Load, clock PaceClock, y policy.IngestYield, m *metrics) *pacer {
	if clock == nil {
		clock = realClock{}
	}
	return &pacer{
		load: load, clock: clock, share: y.Share, window: y.BusyWindow.D(), maxLag: y.MaxLag.D(),
		lane: make(chan struct{}, 1), metTime: m.yielded,
	}
}

// handle is one job's view of the pacer; it is used by one goroutine.
type handle struct {
	p     *pacer
	hold  bool          // has the lane
	since time.Time     // start of the current step, while holding
	debt  time.Duration // pause owed, not yet taken
	// lag is the age of the round's oldest turn at lagAt.
	lag   time.Duration
	lagAt time.Time
}

func (p *pacer) handle() *handle {
	if p == nil {
		return nil
	}
	return &handle{p: p}
}

type paceKey struct{}

// withPace makes the steps taken under ctx (pace) count for h.
func withPace(ctx context.Context, h *handle) context.Context {
	if h == nil {
		return ctx
	}
	return context.WithValue(ctx, paceKey{}, h)
}

// pace takes a step for the job running under ctx; without one it does
// nothing. While the request path is busy a step also yields the
// processor (runtime.Gosched): a request goroutine this job woke (a lock
// or a commit it waited for) is queued on this job's processor and would
// otherwise wait for the job's next pause, milliseconds of extraction
// away.
func pace(ctx context.Context) {
	if h, ok := ctx.Value(paceKey{}).(*handle); ok {
		h.step(ctx)
		if h.busy() {
			runtime.Gosched()
		}
	}
}

// unpaced tells the job running under ctx that the time since its last
// step went to waiting (a commit shared with other jobs), not to work.
func unpaced(ctx context.Context) {
	if h, ok := ctx.Value(paceKey{}).(*handle); ok && h.hold {
		h.since = h.p.clock.Now()
	}
}

// handOver gives the lane of the job running under ctx back, so the jobs
// waiting for it take their turn (a decay pass, between scopes).
func handOver(ctx context.Context) {
	if h, ok := ctx.Value(paceKey{}).(*handle); ok {
		h.release()
	}
}

// round starts a round whose oldest turn is lag old.
func (h *handle) round(lag time.Duration) {
	if h == nil {
		return
	}
	h.lag, h.lagAt = lag, h.p.clock.Now()
}

// shareAt is the part of wall time the job may work at now: the policy's
// share, rising with the round's lag to 1 at maxLag.
func (h *handle) shareAt(now time.Time) float64 {
	p := h.p
	if p.share >= 1 || p.maxLag <= 0 {
		return 1
	}
	lag := h.lag
	if !h.lagAt.IsZero() {
		lag += now.Sub(h.lagAt)
	}
	f := min(1, max(0, float64(lag)/float64(p.maxLag)))
	return p.share + (1-p.share)*f
}

func (h *handle) busy() bool { return h.p.load != nil && h.p.load.Busy(h.p.window) }

// step ends the job's current unit of work: while the request path is
// busy, the job takes the lane (waiting for it), or, holding it, pauses
// for its share; when the path is quiet, or the round's lag reached
// maxLag, it gives the lane back and goes on.
func (h *handle) step(ctx context.Context) {
	if h == nil {
		return
	}
	p := h.p
	now := p.clock.Now()
	share := h.shareAt(now)
	if share >= 1 || !h.busy() {
		h.release()
		return
	}
	if !h.hold {
		h.acquire(ctx, now)
		return
	}
	w := min(now.Sub(h.since), maxStep)
	h.since = now
	h.debt += time.Duration(float64(w) * (1 - share) / share)
	if h.debt < minPause {
		return
	}
	// Paid in slices of at most the busy window, so a path gone quiet
	// ends the pause within one.
	start := now
	for h.debt >= minPause && ctx.Err() == nil {
		d := h.debt
		if p.window > 0 {
			d = min(d, p.window)
		}
		select {
		case <-p.clock.After(d):
		case <-ctx.Done():
		}
		h.debt -= d
		if !h.busy() {
			h.debt = 0
		}
	}
	h.since = p.clock.Now()
	p.record(h.since.Sub(start))
	if ctx.Err() != nil || !h.busy() {
		h.release()
	}
}

// acquire waits for the lane while the path stays busy and the round's
// lag below maxLag.
func (h *handle) acquire(ctx context.Context, start time.Time) {
	p := h.p
	select {
	case p.lane <- struct{}{}:
		h.hold, h.since, h.debt = true, start, 0
		return
	default:
	}
	defer func() { p.record(p.clock.Now().Sub(start)) }()
	for {
		recheck := p.clock.After(max(p.window, minPause))
		select {
		case p.lane <- struct{}{}:
			h.hold, h.since, h.debt = true, p.clock.Now(), 0
			return
		case <-ctx.Done():
			return
		case <-recheck:
			if h.shareAt(p.clock.Now()) >= 1 || !h.busy() {
				return
			}
		}
	}
}

// release gives the lane back (the round ended, the path went quiet or
// the lag bound was reached).
func (h *handle) release() {
	if h == nil || !h.hold {
		return
	}
	h.hold, h.debt = false, 0
	<-h.p.lane
}

func (p *pacer) record(d time.Duration) {
	if d <= 0 {
		return
	}
	p.paced.Add(int64(d))
	p.pauses.Add(1)
	if p.metTime != nil {
		p.metTime.Add(d.Seconds())
	}
}

// Yielded is how often, and for how long in all, the background paused
// or waited for its turn to let the request path go first (policy
// ingest.yield).
func (q *Queue) Yielded() (n int64, d time.Duration) {
	if q.pace == nil {
		return 0, 0
	}
	return q.pace.pauses.Load(), time.Duration(q.pace.paced.Load())
}
