// Package loadshed is the signal that lets background work yield to the
// request path on a small machine. The request path counts the requests
// whose memory work (recall, rendering) is running; a background worker
// calls Yield before each batch and waits, briefly and boundedly, while
// any are: a two-core machine then spends its cores on the request a user
// waits for, and the batch starts a moment later. The wait is bounded so
// that a steady stream of requests slows the background down but never
// stops it.
package loadshed

import (
	"cmp"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxWait bounds one Yield: about one recall of a large scope.
const DefaultMaxWait = 5 * time.Millisecond

// Gauge counts requests in flight. The zero value is ready; a nil *Gauge
// counts nothing and never waits. Safe for concurrent use.
type Gauge struct {
	// MaxWait bounds one Yield; 0 means DefaultMaxWait.
	MaxWait time.Duration
	// Now is the clock Busy reads; nil means time.Now.
	Now func() time.Time

	n      atomic.Int64
	mu     sync.Mutex
	idle   chan struct{} // closed when n drops to 0; nil when nobody waits
	yields atomic.Int64
	waited atomic.Int64 // nanoseconds
	last   atomic.Int64 // when a request last left, Unix nanoseconds
}

// Enter marks a request's work started; call the returned func when it is
// done (once).
func (g *Gauge) Enter() (leave func()) {
	if g == nil {
		return func() {}
	}
	g.n.Add(1)
	var once sync.Once
	return func() { once.Do(g.leave) }
}

func (g *Gauge) leave() {
	g.last.Store(g.now().UnixNano())
	if g.n.Add(-1) > 0 {
		return
	}
	g.mu.Lock()
	if g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
	g.mu.Unlock()
}

// InFlight is the number of requests between Enter and leave.
func (g *Gauge) InFlight() int64 {
	if g == nil {
		return 0
	}
	return g.n.Load()
}

func (g *Gauge) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

// Busy reports whether a request is in flight or one left within window:
// background work paces itself while it is (background.Load).
func (g *Gauge) Busy(window time.Duration) bool {
	if g == nil {
		return false
	}
	if g.n.Load() > 0 {
		return true
	}
	last := g.last.Load()
	return last != 0 && g.now().UnixNano()-last < int64(window)
}

// Yield returns once no request is in flight, MaxWait has passed or ctx
// is done, whichever comes first.
func (g *Gauge) Yield(ctx context.Context) {
	if g == nil || g.n.Load() == 0 {
		return
	}
	g.mu.Lock()
	if g.n.Load() == 0 {
		g.mu.Unlock()
		return
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	idle := g.idle
	g.mu.Unlock()
	start := time.Now()
	t := time.NewTimer(cmp.Or(g.MaxWait, DefaultMaxWait))
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
	}
	g.yields.Add(1)
	g.waited.Add(int64(time.Since(start)))
}

// Stats are how often background work yielded and for how long in all.
func (g *Gauge) Stats() (yields int64, waited time.Duration) {
	if g == nil {
		return 0, 0
	}
	return g.yields.Load(), time.Duration(g.waited.Load())
}
