package background

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memproxy/memproxy/policy"
)

// paceClock is a PaceClock the test moves by hand; every After it is
// asked for is reported on asked, so a test waits for a pause to begin
// instead of sleeping.
type paceClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []paceWait
	asked chan time.Duration
}

type paceWait struct {
	at time.Time
	ch chan time.Time
}

func newPaceClock() *paceClock {
	return &paceClock{now: time.Unix(1_000_000, 0), asked: make(chan time.Duration, 64)}
}

func (c *paceClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *paceClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	w := paceWait{at: c.now.Add(d), ch: make(chan time.Time, 1)}
	c.waits = append(c.waits, w)
	c.mu.Unlock()
	c.asked <- d
	return w.ch
}

// advance moves the clock and fires the waits that came due.
func (c *paceClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	keep := c.waits[:0]
	for _, w := range c.waits {
		if !w.at.After(c.now) {
			w.ch <- c.now
		} else {
			keep = append(keep, w)
		}
	}
	c.waits = keep
}

// nextWait is the duration of the next After asked for.
func (c *paceClock) nextWait(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-c.asked:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("no pause began")
		return 0
	}
}

func (c *paceClock) noWait(t *testing.T) {
	t.Helper()
	select {
	case d := <-c.asked:
		t.Fatalf("paused for %v", d)
	default:
	}
}

type testLoad struct{ busy atomic.Bool }

func (l *testLoad) Busy(time.Duration) bool { return l.busy.Load() }

func testPacer(load Load, c PaceClock) *pacer {
	return newPacer(load, c, policy.IngestYield{
		Share: 0.25, BusyWindow: policy.Duration(50 * time.Millisecond), MaxLag: policy.Duration(5 * time.Second),
	}, newMetrics(nil))
}

// busyPacer is a pacer on a test clock whose request path is busy.
func busyPacer() (*paceClock, *testLoad, *pacer) {
	c, load := newPaceClock(), &testLoad{}
	load.busy.Store(true)
	return c, load, testPacer(load, c)
}

// stepped runs h.step in a goroutine and returns a channel closed when it
// returned.
func stepped(h *handle) chan struct{} {
	done := make(chan struct{})
	go func() { defer close(done); h.step(context.Background()) }()
	return done
}

func waitDone(t *testing.T, done chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("step did not return")
	}
}

// A quiet request path: steps never pause and never take the lane.
func TestPaceQuiet(t *testing.T) {
	c := newPaceClock()
	p := testPacer(&testLoad{}, c)
	h := p.handle()
	for range 5 {
		h.step(context.Background())
		c.advance(time.Second)
	}
	c.noWait(t)
	if h.hold || len(p.lane) != 0 {
		t.Fatal("the lane was taken with the request path quiet")
	}
	if n, d := (&Queue{core: &core{pace: p}}).Yielded(); n != 0 || d != 0 {
		t.Fatalf("yielded %d times, %v, with nothing to yield to", n, d)
	}
}

// While busy, a step of 10 ms is followed by a pause of 30 ms (share
// 0.25), counted as time yielded.
func TestPacePausesForShare(t *testing.T) {
	c, _, p := busyPacer()
	h := p.handle()
	h.step(context.Background()) // takes the free lane at once
	c.noWait(t)
	if !h.hold {
		t.Fatal("the lane was not taken while busy")
	}
	c.advance(10 * time.Millisecond) // the step's work
	done := stepped(h)
	if d := c.nextWait(t); d != 30*time.Millisecond {
		t.Fatalf("paused %v after a 10ms step, want 30ms", d)
	}
	select {
	case <-done:
		t.Fatal("the step returned before its pause ended")
	default:
	}
	c.advance(30 * time.Millisecond)
	waitDone(t, done)
	if n, d := (&Queue{core: &core{pace: p}}).Yielded(); n != 1 || d != 30*time.Millisecond {
		t.Fatalf("yielded %d times, %v; want once, 30ms", n, d)
	}
	// A step shorter than the least pause owes it for later.
	c.advance(200 * time.Microsecond)
	h.step(context.Background())
	c.noWait(t)
	c.advance(200 * time.Microsecond)
	done = stepped(h)
	if d := c.nextWait(t); d != 1200*time.Microsecond {
		t.Fatalf("paused %v after two 0.2ms steps, want 1.2ms", d)
	}
	c.advance(1200 * time.Microsecond)
	waitDone(t, done)
}

// While busy one job works at a time: a second waits until the first
// gives the lane back.
func TestPaceLane(t *testing.T) {
	c, _, p := busyPacer()
	h1, h2 := p.handle(), p.handle()
	h1.step(context.Background())
	done := stepped(h2)
	if d := c.nextWait(t); d != 50*time.Millisecond {
		t.Fatalf("waiting for the lane rechecks after %v, want the busy window", d)
	}
	select {
	case <-done:
		t.Fatal("a second job went on while the first held the lane")
	default:
	}
	h1.release()
	waitDone(t, done)
	if !h2.hold {
		t.Fatal("the second job did not get the lane")
	}
}

// The path going quiet ends a pause within one busy window and frees the
// lane; a waiting job then goes on without it.
func TestPaceQuietEndsPause(t *testing.T) {
	c, load, p := busyPacer()
	h1, h2 := p.handle(), p.handle()
	h1.step(context.Background())
	c.advance(time.Second) // owes 3 s
	done1 := stepped(h1)
	if d := c.nextWait(t); d != 50*time.Millisecond {
		t.Fatalf("pause slice %v, want the busy window", d)
	}
	done2 := stepped(h2)
	if d := c.nextWait(t); d != 50*time.Millisecond {
		t.Fatalf("lane recheck %v, want the busy window", d)
	}
	load.busy.Store(false)
	c.advance(50 * time.Millisecond)
	waitDone(t, done1)
	waitDone(t, done2)
	if h1.hold || h2.hold || len(p.lane) != 0 {
		t.Fatal("the lane is held with the path quiet")
	}
	if _, d := (&Queue{core: &core{pace: p}}).Yielded(); d != 100*time.Millisecond {
		t.Fatalf("yielded %v, want 50ms paused and 50ms waiting", d)
	}
}

// The bound: a round whose oldest turn waited max_lag runs unpaced and
// beside the lane's holder; one below it works at a share that rises with
// the lag, and stops waiting for the lane once the lag reaches max_lag.
func TestPaceLagBound(t *testing.T) {
	c, _, p := busyPacer()
	h1 := p.handle()
	h1.step(context.Background())

	late := p.handle()
	late.round(5 * time.Second)
	c.advance(time.Second)
	late.step(context.Background())
	c.noWait(t)
	if late.hold {
		t.Fatal("a round at max_lag took the lane")
	}

	h1.release()
	half := p.handle()
	half.round(2500 * time.Millisecond) // share 0.625
	half.step(context.Background())     // takes the lane
	c.advance(10 * time.Millisecond)    // lag 2.51 s, share 0.6265
	done := stepped(half)
	share := 0.25 + 0.75*2.51/5
	want := time.Duration(float64(10*time.Millisecond) * (1 - share) / share)
	if d := c.nextWait(t); d < want-time.Microsecond || d > want+time.Microsecond {
		t.Fatalf("paused %v at lag 2.51s, want %v", d, want)
	}
	c.advance(time.Second)
	waitDone(t, done)
	if !half.hold {
		t.Fatal("a round below max_lag went on without the lane")
	}

	waiting := p.handle()
	waiting.round(4 * time.Second) // lag 4.98 s when it steps
	c.advance(980 * time.Millisecond)
	done = stepped(waiting)
	if d := c.nextWait(t); d != 50*time.Millisecond {
		t.Fatalf("lane recheck %v", d)
	}
	c.advance(50 * time.Millisecond) // lag 5.03 s
	waitDone(t, done)
	if waiting.hold {
		t.Fatal("took the lane past max_lag")
	}
}

// A cancelled job stops waiting and pausing at once.
func TestPaceCancel(t *testing.T) {
	c, _, p := busyPacer()
	h1, h2 := p.handle(), p.handle()
	h1.step(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h2.step(ctx) }()
	c.nextWait(t)
	cancel()
	waitDone(t, done)
	c.advance(time.Minute)
	ctx, cancel = context.WithCancel(context.Background())
	done = make(chan struct{})
	go func() { defer close(done); h1.step(ctx) }()
	c.nextWait(t)
	cancel()
	waitDone(t, done)
	if h1.hold {
		t.Fatal("a cancelled job kept the lane")
	}
}

// A queue whose request path never goes quiet still ingests everything,
// pacing itself on the way (real clock).
func TestPacedIngestDrains(t *testing.T) {
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			load := &testLoad{}
			load.busy.Store(true)
			pol := policy.Default()
			pol.Ingest.Yield.MaxLag = policy.Duration(time.Hour) // the env clock runs a minute a turn
			e := newEnv(t, b, envOpts{pol: pol, load: load})
			texts := []string{
				"I adopted a greyhound called Pixel last spring.",
				"My sister Ana is visiting from Porto in June.",
				"We are repainting the kitchen a pale green this weekend.",
				"I started running three mornings a week before work.",
			}
			for _, u := range []string{"pa", "pb"} {
				for _, x := range texts {
					e.say(scope(u), x)
				}
			}
			e.wait()
			if n := e.q.IngestedTurns(); n != int64(2*len(texts)) {
				t.Fatalf("ingested %d turns, want %d", n, 2*len(texts))
			}
			if n, d := e.q.Yielded(); n == 0 || d <= 0 {
				t.Fatalf("never yielded to a busy request path (%d, %v)", n, d)
			}
			if len(e.q.pace.lane) != 0 {
				t.Fatal("the lane is still held after the jobs ended")
			}
		})
	}
}

// handOver gives the lane back between units of a long job (a decay
// pass's scopes), so a waiting job goes on.
func TestPaceHandOver(t *testing.T) {
	c, _, p := busyPacer()
	h1, h2 := p.handle(), p.handle()
	ctx := withPace(context.Background(), h1)
	pace(ctx)
	if !h1.hold {
		t.Fatal("pace under a job's context did not take the lane")
	}
	done := stepped(h2)
	c.nextWait(t)
	handOver(ctx)
	waitDone(t, done)
	if h1.hold || !h2.hold {
		t.Fatal("the lane was not handed over")
	}
	handOver(context.Background()) // no job: nothing to give back
}
