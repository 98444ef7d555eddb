package postgres

import (
	"sync"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// scopeSizes caches the bounded row counts vector search uses to pick its
// path. Counting even a few thousand index entries costs as much as a
// small search, and a scope's size changes slowly: a stale answer only
// picks the slower of two correct paths for a while.
type scopeSizes struct {
	mu  sync.Mutex
	ttl time.Duration
	m   map[memory.Scope]scopeSize
}

type scopeSize struct {
	n, bound int
	at       time.Time
}

// maxCachedScopes bounds the cache; past it the cache starts over.
const maxCachedScopes = 100_000

func (c *scopeSizes) get(sc memory.Scope, bound int, now time.Time) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[sc]
	if !ok || e.bound != bound || now.Sub(e.at) > c.ttl {
		return 0, false
	}
	return e.n, true
}

func (c *scopeSizes) put(sc memory.Scope, n, bound int, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedScopes {
		c.m = make(map[memory.Scope]scopeSize)
	}
	c.m[sc] = scopeSize{n: n, bound: bound, at: now}
}
