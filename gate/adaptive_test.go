package gate

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

func TestAdaptiveNext(t *testing.T) {
	a := policy.Default().Gate.Adaptive // step_up .01, step_down .02, [0.2, 0.6]
	cases := []struct {
		cur          float64
		used, unused int
		want         float64
	}{
		{0.35, 0, 1, 0.36},
		{0.35, 0, 5, 0.40},
		{0.35, 1, 0, 0.33},
		{0.35, 2, 2, 0.33},
		{0.59, 0, 10, 0.6},   // clamped at max
		{0.21, 10, 0, 0.2},   // clamped at min
		{0.9, 0, 0, 0.6},     // out-of-range values come back in bounds
		{0.35, -3, -3, 0.35}, // negative counts are ignored
	}
	for _, c := range cases {
		if got := (Adaptive{}).Next(c.cur, c.used, c.unused, a); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Next(%v, used=%d, unused=%d) = %v, want %v", c.cur, c.used, c.unused, got, c.want)
		}
	}
	a.Enabled = false
	if got := (Adaptive{}).Next(0.35, 0, 10, a); got != 0.35 {
		t.Errorf("disabled: Next moved the threshold to %v", got)
	}
}

// gateState is a GateState that counts reads, to show the request path is
// served from the cache.
type gateState struct {
	mu     sync.Mutex
	v      map[memory.Scope]float64
	reads  int
	writes int
	err    error
}

func (s *gateState) Threshold(_ context.Context, sc memory.Scope) (float64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	if s.err != nil {
		return 0, false, s.err
	}
	v, ok := s.v[sc]
	return v, ok, nil
}

func (s *gateState) SetThreshold(_ context.Context, sc memory.Scope, v float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.writes++
	s.v[sc] = v
	return nil
}

func newThresholds(t *testing.T, st memory.GateState, g policy.Gate, onErr func(error)) *Thresholds {
	t.Helper()
	th, err := NewThresholds(st, g, ThresholdsConfig{OnError: onErr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(th.Close)
	return th
}

// A scope whose injected memories keep going unused gets a higher bar
// (fewer injections); it comes back down when they are used again; other
// scopes are untouched.
func TestThresholdsFeedback(t *testing.T) {
	ctx := context.Background()
	g := policy.Default().Gate
	st := &gateState{v: map[memory.Scope]float64{}}
	th := newThresholds(t, st, g, nil)
	alice := memory.Scope{User: "alice", Namespace: "default"}
	bob := memory.Scope{User: "bob", Namespace: "default"}

	if got := th.Get(ctx, alice); got != g.MinScore {
		t.Fatalf("fresh scope: got %v, want min_score %v", got, g.MinScore)
	}
	prev := th.Get(ctx, alice)
	for i := range 40 {
		if err := th.Feedback(ctx, alice, 0, 3); err != nil {
			t.Fatal(err)
		}
		got := th.Get(ctx, alice)
		if got < prev || got > g.Adaptive.Max {
			t.Fatalf("round %d: threshold %v after %v (max %v)", i, got, prev, g.Adaptive.Max)
		}
		prev = got
	}
	if prev != g.Adaptive.Max {
		t.Fatalf("unused memories should push the threshold to max: %v", prev)
	}
	if v := st.v[alice]; v != prev {
		t.Fatalf("stored %v, served %v", v, prev)
	}
	for range 40 {
		if err := th.Feedback(ctx, alice, 3, 0); err != nil {
			t.Fatal(err)
		}
	}
	if got := th.Get(ctx, alice); got != g.Adaptive.Min {
		t.Fatalf("used memories should bring the threshold to min: %v", got)
	}
	if got := th.Get(ctx, bob); got != g.MinScore {
		t.Fatalf("bob moved with alice: %v", got)
	}
}

// Feedback that leaves a stored threshold where it is (at a bound) does
// not write it again; a scope without one gets it written even then, and
// the served value is the same either way.
func TestThresholdsFeedbackAtBound(t *testing.T) {
	ctx := context.Background()
	g := policy.Default().Gate
	st := &gateState{v: map[memory.Scope]float64{}}
	th := newThresholds(t, st, g, nil)
	alice := memory.Scope{User: "alice", Namespace: "default"}
	for range 40 {
		if err := th.Feedback(ctx, alice, 0, 3); err != nil {
			t.Fatal(err)
		}
	}
	if st.v[alice] != g.Adaptive.Max {
		t.Fatalf("stored %v, want max %v", st.v[alice], g.Adaptive.Max)
	}
	w := st.writes
	for range 5 {
		if err := th.Feedback(ctx, alice, 0, 3); err != nil {
			t.Fatal(err)
		}
	}
	if st.writes != w {
		t.Errorf("%d writes of a threshold already at max", st.writes-w)
	}
	if got := th.Get(ctx, alice); got != g.Adaptive.Max {
		t.Errorf("served %v, want max %v", got, g.Adaptive.Max)
	}
	if err := th.Feedback(ctx, alice, 1, 0); err != nil {
		t.Fatal(err)
	}
	if st.writes != w+1 || st.v[alice] >= g.Adaptive.Max {
		t.Errorf("a move off the bound: %d writes, stored %v", st.writes-w, st.v[alice])
	}
	// Unstored, the default is written even when feedback leaves it.
	g.MinScore = g.Adaptive.Max
	st2 := &gateState{v: map[memory.Scope]float64{}}
	th2 := newThresholds(t, st2, g, nil)
	if err := th2.Feedback(ctx, alice, 0, 1); err != nil {
		t.Fatal(err)
	}
	if st2.writes != 1 {
		t.Errorf("unstored scope: %d writes, want 1", st2.writes)
	}
}

func TestThresholdsCache(t *testing.T) {
	ctx := context.Background()
	g := policy.Default().Gate
	s := memory.Scope{User: "carol", Namespace: "work"}
	st := &gateState{v: map[memory.Scope]float64{s: 0.5}}
	th := newThresholds(t, st, g, nil)
	if got := th.Get(ctx, s); got != 0.5 {
		t.Fatalf("stored threshold: got %v", got)
	}
	th.cache.Wait()
	reads := st.reads
	for range 100 {
		if got := th.Get(ctx, s); got != 0.5 {
			t.Fatalf("cached threshold: got %v", got)
		}
	}
	if st.reads != reads {
		t.Fatalf("Get hit the store %d times after the first read", st.reads-reads)
	}
	st.v[s] = 0.3 // another replica wrote
	th.Invalidate(s)
	if got := th.Get(ctx, s); got != 0.3 {
		t.Fatalf("after Invalidate: got %v, want the stored 0.3", got)
	}
}

// The cache holds as many scopes as configured (its cost counts entries).
func TestThresholdsCacheCapacity(t *testing.T) {
	ctx := context.Background()
	st := &gateState{v: map[memory.Scope]float64{}}
	th, err := NewThresholds(st, policy.Default().Gate, ThresholdsConfig{Scopes: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	scopes := make([]memory.Scope, 10)
	for i := range scopes {
		scopes[i] = memory.Scope{User: string(rune('a' + i)), Namespace: "default"}
		th.Get(ctx, scopes[i])
	}
	th.cache.Wait()
	reads := st.reads
	for _, s := range scopes {
		th.Get(ctx, s)
	}
	if st.reads != reads {
		t.Fatalf("%d of 10 scopes fell out of a 20-scope cache", st.reads-reads)
	}
}

func TestThresholdsFailOpen(t *testing.T) {
	ctx := context.Background()
	g := policy.Default().Gate
	boom := errors.New("database is closed")
	st := &gateState{v: map[memory.Scope]float64{}, err: boom}
	var reported []error
	th := newThresholds(t, st, g, func(err error) { reported = append(reported, err) })
	s := memory.Scope{User: "dave", Namespace: "default"}
	if got := th.Get(ctx, s); got != g.MinScore {
		t.Fatalf("store error: got %v, want min_score", got)
	}
	if len(reported) != 1 || !errors.Is(reported[0], boom) {
		t.Fatalf("store error not reported: %v", reported)
	}
	if err := th.Feedback(ctx, s, 0, 1); !errors.Is(err, boom) {
		t.Fatalf("Feedback error = %v, want wrapped %v", err, boom)
	}
}

func TestThresholdsDisabled(t *testing.T) {
	ctx := context.Background()
	g := policy.Default().Gate
	g.Adaptive.Enabled = false
	st := &gateState{v: map[memory.Scope]float64{}}
	th := newThresholds(t, st, g, nil)
	s := memory.Scope{User: "erin", Namespace: "default"}
	if err := th.Feedback(ctx, s, 0, 10); err != nil {
		t.Fatal(err)
	}
	if got := th.Get(ctx, s); got != g.MinScore || st.reads != 0 || len(st.v) != 0 {
		t.Fatalf("disabled: got %v, reads %d, stored %v", got, st.reads, st.v)
	}
}

func TestThresholdsConcurrentFeedback(t *testing.T) {
	ctx := context.Background()
	g := policy.Default().Gate
	g.Adaptive.Max = 1
	st := &gateState{v: map[memory.Scope]float64{}}
	th := newThresholds(t, st, g, nil)
	s := memory.Scope{User: "frank", Namespace: "default"}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if err := th.Feedback(ctx, s, 0, 1); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	want := g.MinScore + 20*g.Adaptive.StepUp
	if got := th.Get(ctx, s); math.Abs(got-want) > 1e-9 {
		t.Fatalf("20 concurrent misses: got %v, want %v (lost updates)", got, want)
	}
}

func BenchmarkThresholdsGet(b *testing.B) {
	ctx := context.Background()
	g := policy.Default().Gate
	s := memory.Scope{User: "bench", Namespace: "default"}
	st := &gateState{v: map[memory.Scope]float64{s: 0.4}}
	th, err := NewThresholds(st, g, ThresholdsConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer th.Close()
	th.Get(ctx, s)
	th.cache.Wait()
	b.ReportAllocs()
	for b.Loop() {
		_ = th.Get(ctx, s)
	}
}
