package loadshed

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Nothing in flight: Yield does not wait (an hour's MaxWait would hang
// the test).
func TestYieldIdle(t *testing.T) {
	g := &Gauge{MaxWait: time.Hour}
	g.Yield(context.Background())
	leave := g.Enter()
	leave()
	leave() // a second call does nothing
	if n := g.InFlight(); n != 0 {
		t.Fatalf("in flight after leave: %d", n)
	}
	g.Yield(context.Background())
	if y, _ := g.Stats(); y != 0 {
		t.Errorf("yields counted without a wait: %d", y)
	}
}

// A request in flight holds Yield until it leaves.
func TestYieldWaitsForTheRequest(t *testing.T) {
	g := &Gauge{MaxWait: time.Hour}
	leave := g.Enter()
	var left atomic.Bool
	done := make(chan bool)
	go func() {
		g.Yield(context.Background())
		done <- left.Load()
	}()
	left.Store(true)
	leave()
	if !<-done {
		t.Fatal("Yield returned while the request was in flight")
	}
}

// Every waiter is released when the last of several requests leaves.
func TestYieldManyWaiters(t *testing.T) {
	g := &Gauge{MaxWait: time.Hour}
	a, b := g.Enter(), g.Enter()
	var left atomic.Int32
	var wg sync.WaitGroup
	early := make(chan struct{}, 8)
	for range 8 {
		wg.Go(func() {
			g.Yield(context.Background())
			if left.Load() < 2 {
				early <- struct{}{}
			}
		})
	}
	left.Add(1)
	a()
	left.Add(1)
	b()
	wg.Wait()
	if len(early) > 0 {
		t.Fatalf("%d waiters returned with a request still in flight", len(early))
	}
}

// A request that never ends delays the background by MaxWait, not for
// ever, and a cancelled context ends the wait.
func TestYieldBounded(t *testing.T) {
	g := &Gauge{MaxWait: time.Millisecond}
	defer g.Enter()()
	g.Yield(context.Background())
	g2 := &Gauge{MaxWait: time.Hour}
	defer g2.Enter()()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g2.Yield(ctx)
}

func TestNilGauge(t *testing.T) {
	var g *Gauge
	g.Enter()()
	g.Yield(context.Background())
	if g.InFlight() != 0 {
		t.Fatal("nil gauge counts")
	}
}

// Busy is true while a request is in flight and for window after the last
// one left, then false.
func TestBusyWindow(t *testing.T) {
	now := time.Unix(1000, 0)
	g := &Gauge{Now: func() time.Time { return now }}
	if g.Busy(time.Second) {
		t.Fatal("busy before any request")
	}
	leave := g.Enter()
	if !g.Busy(0) {
		t.Fatal("not busy with a request in flight")
	}
	now = now.Add(time.Minute)
	leave()
	now = now.Add(999 * time.Millisecond)
	if !g.Busy(time.Second) {
		t.Fatal("not busy within the window after the last request")
	}
	now = now.Add(time.Millisecond)
	if g.Busy(time.Second) {
		t.Fatal("busy once the window after the last request has passed")
	}
	var nilG *Gauge
	if nilG.Busy(time.Hour) {
		t.Fatal("nil gauge busy")
	}
}
