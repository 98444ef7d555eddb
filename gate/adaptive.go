package gate

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/ristretto/v2"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Adaptive is the per-scope threshold rule. It is stateless; the state
// lives in memory.GateState behind Thresholds.
type Adaptive struct{}

// Next moves a threshold after one round of usage feedback: up by StepUp
// for each injected memory the reply did not use (the scope is being fed
// noise), down by StepDown for each one it used, clamped to [Min, Max].
// With adaptation disabled the threshold stays where it is.
func (Adaptive) Next(current float64, used, unused int, a policy.Adaptive) float64 {
	if !a.Enabled {
		return current
	}
	return clamp(current+a.StepUp*float64(max(unused, 0))-a.StepDown*float64(max(used, 0)), a)
}

func clamp(v float64, a policy.Adaptive) float64 {
	if a.Max > a.Min || a.Max == a.Min && a.Max > 0 {
		v = min(max(v, a.Min), a.Max)
	}
	return v
}

// Thresholds serves the per-scope adaptive threshold on the request path
// from an in-memory cache, and records feedback through to the store. A
// cached value lives for TTL so replicas sharing one database converge.
type Thresholds struct {
	store memory.GateState
	gate  policy.Gate
	ttl   time.Duration
	cache *ristretto.Cache[uint64, cachedThreshold]
	locks [64]sync.Mutex // serialise read-modify-write per scope
	onErr func(error)
}

type cachedThreshold struct {
	scope memory.Scope // guards against hash collisions
	v     float64
}

// ThresholdsConfig tunes the cache; the zero value is usable.
type ThresholdsConfig struct {
	// Scopes is the number of scopes kept in memory (default 100,000).
	Scopes int64
	// TTL is how long a cached threshold is trusted (default 1 minute).
	TTL time.Duration
	// OnError is told about store errors on the request path, where Get
	// falls back to the policy's min_score instead of failing. Nil ignores
	// them.
	OnError func(error)
}

// NewThresholds wraps a GateState. Close releases the cache.
func NewThresholds(s memory.GateState, g policy.Gate, c ThresholdsConfig) (*Thresholds, error) {
	if c.Scopes <= 0 {
		c.Scopes = 100_000
	}
	if c.TTL <= 0 {
		c.TTL = time.Minute
	}
	cache, err := ristretto.NewCache(&ristretto.Config[uint64, cachedThreshold]{
		NumCounters:        c.Scopes * 10,
		MaxCost:            c.Scopes,
		BufferItems:        64,
		IgnoreInternalCost: true, // cost counts entries, not bytes
	})
	if err != nil {
		return nil, fmt.Errorf("threshold cache: %w", err)
	}
	return &Thresholds{store: s, gate: g, ttl: c.TTL, cache: cache, onErr: c.OnError}, nil
}

// Close stops the cache's goroutines. Safe to call twice.
func (t *Thresholds) Close() {
	t.cache.Close()
}

// Get returns the scope's current threshold: the stored value, or the
// policy's min_score when none is stored, adaptation is off, or the store
// fails (reported to OnError). The result is always within [min, max].
func (t *Thresholds) Get(ctx context.Context, s memory.Scope) float64 {
	base := t.Default()
	if !t.gate.Adaptive.Enabled {
		return base
	}
	k := scopeKey(s)
	if c, ok := t.cache.Get(k); ok && c.scope == s {
		return c.v
	}
	v, ok, err := t.store.Threshold(ctx, s)
	if err != nil {
		if t.onErr != nil {
			t.onErr(fmt.Errorf("read gate threshold: %w", err))
		}
		return base
	}
	if !ok {
		v = base
	}
	v = clamp(v, t.gate.Adaptive)
	t.cache.SetWithTTL(k, cachedThreshold{scope: s, v: v}, 1, t.ttl)
	return v
}

// Default is the threshold of a scope without history.
func (t *Thresholds) Default() float64 {
	return clamp(t.gate.MinScore, t.gate.Adaptive)
}

// Usage is what one reply made of the memories injected into its
// request: Used of them went into it, Unused did not.
type Usage struct{ Used, Unused int }

// Feedback records that, of the memories injected into one request, used
// were used by the reply and unused were not, and moves the scope's
// threshold by Adaptive.Next. It reads the stored value (not the cache) so
// feedback from several workers composes.
func (t *Thresholds) Feedback(ctx context.Context, s memory.Scope, used, unused int) error {
	return t.FeedbackAll(ctx, s, []Usage{{Used: used, Unused: unused}})
}

// FeedbackAll is Feedback for several requests of one scope in turn (an
// ingest round's replies): each moves the threshold from where the one
// before left it, with one read and at most one write of the store.
func (t *Thresholds) FeedbackAll(ctx context.Context, s memory.Scope, us []Usage) error {
	if !t.gate.Adaptive.Enabled || !slices.ContainsFunc(us, func(u Usage) bool { return u.Used > 0 || u.Unused > 0 }) {
		return nil
	}
	k := scopeKey(s)
	mu := &t.locks[k%uint64(len(t.locks))]
	mu.Lock()
	defer mu.Unlock()
	cur, ok, err := t.store.Threshold(ctx, s)
	if err != nil {
		return fmt.Errorf("read gate threshold: %w", err)
	}
	if !ok {
		cur = t.Default()
	}
	next := cur
	for _, u := range us {
		next = Adaptive{}.Next(next, u.Used, u.Unused, t.gate.Adaptive)
	}
	// A stored threshold the feedback leaves where it is (at a bound) is
	// not written again: a write per ingested turn on the store's single
	// writer, for nothing.
	if !ok || next != cur {
		if err := t.store.SetThreshold(ctx, s, next); err != nil {
			return fmt.Errorf("store gate threshold: %w", err)
		}
	}
	t.cache.SetWithTTL(k, cachedThreshold{scope: s, v: next}, 1, t.ttl)
	t.cache.Wait()
	return nil
}

// Invalidate drops a scope's cached threshold (after a user deletion).
func (t *Thresholds) Invalidate(s memory.Scope) {
	t.cache.Del(scopeKey(s))
}

// scopeKey hashes a scope without allocating.
func scopeKey(s memory.Scope) uint64 {
	var d xxhash.Digest
	d.Reset()
	_, _ = d.WriteString(s.User)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(s.Namespace)
	return d.Sum64()
}
