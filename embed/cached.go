package embed

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/ristretto/v2"
)

// DefaultCacheSize is the number of embeddings cached when none is given.
const DefaultCacheSize = 10_000

// Cached puts a bounded in-memory cache keyed by (model, text) in front of
// an embedder: repeated texts (recall queries, re-sent turns) skip the
// embedder, and a batch sends only its misses.
type Cached struct {
	inner  Embedder
	cache  *ristretto.Cache[uint64, entry]
	hits   atomic.Int64
	misses atomic.Int64
}

// entry keeps the text's length and a second hash beside the vector, so a
// 64-bit key collision is caught instead of returning a wrong vector.
type entry struct {
	check uint64
	vec   []float32
}

// CacheStats are the cache's counters since start.
type CacheStats struct {
	Hits   int64 `json:"hits"`
	Misses int64 `json:"misses"`
}

// NewCached wraps e in a cache of size embeddings (DefaultCacheSize when
// size <= 0). Close releases the cache.
func NewCached(e Embedder, size int64) Embedder {
	return newCached(e, size)
}

func newCached(e Embedder, size int64) *Cached {
	if size <= 0 {
		size = DefaultCacheSize
	}
	cache, err := ristretto.NewCache(&ristretto.Config[uint64, entry]{
		NumCounters:        size * 10,
		MaxCost:            size,
		BufferItems:        64,
		IgnoreInternalCost: true, // cost counts entries, not bytes
	})
	if err != nil {
		// Only a bad config errors, and the config above is always valid.
		panic(fmt.Sprintf("embed cache: %v", err))
	}
	return &Cached{inner: e, cache: cache}
}

// Model implements Embedder.
func (c *Cached) Model() string { return c.inner.Model() }

// Dim implements Embedder.
func (c *Cached) Dim() int { return c.inner.Dim() }

// Inner is the wrapped embedder.
func (c *Cached) Inner() Embedder { return c.inner }

// Stats returns the hit and miss counters.
func (c *Cached) Stats() CacheStats {
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load()}
}

// Close stops the cache's goroutines. Safe to call twice.
func (c *Cached) Close() error {
	c.cache.Close()
	return nil
}

// Wait blocks until pending cache writes are applied (for tests and
// benchmarks that must see their own writes).
func (c *Cached) Wait() { c.cache.Wait() }

// Embed implements Embedder. Returned vectors are copies: callers may
// modify them.
func (c *Cached) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	model := c.inner.Model()
	var missText []string
	var missKey []uint64
	var missCheck []uint64
	missIdx := map[uint64][]int{} // one request per distinct text
	for i, t := range texts {
		k, chk := cacheKey(model, t)
		if e, ok := c.cache.Get(k); ok && e.check == chk {
			out[i] = append([]float32(nil), e.vec...)
			c.hits.Add(1)
			continue
		}
		c.misses.Add(1)
		if _, seen := missIdx[k]; !seen {
			missText = append(missText, t)
			missKey = append(missKey, k)
			missCheck = append(missCheck, chk)
		}
		missIdx[k] = append(missIdx[k], i)
	}
	if len(missText) == 0 {
		return out, nil
	}
	vecs, err := c.inner.Embed(ctx, missText)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(missText) {
		return nil, fmt.Errorf("embed: %d vectors for %d texts", len(vecs), len(missText))
	}
	for j, v := range vecs {
		stored := append([]float32(nil), v...)
		c.cache.Set(missKey[j], entry{check: missCheck[j], vec: stored}, 1)
		for n, i := range missIdx[missKey[j]] {
			if n == 0 {
				out[i] = v
			} else {
				out[i] = append([]float32(nil), v...)
			}
		}
	}
	return out, nil
}

// cacheKey hashes (model, text) twice with different seeds: the key and a
// check value.
func cacheKey(model, text string) (uint64, uint64) {
	var d xxhash.Digest
	d.Reset()
	_, _ = d.WriteString(model)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(text)
	k := d.Sum64()
	_, _ = d.Write([]byte{1})
	return k, d.Sum64() ^ uint64(len(text))
}
