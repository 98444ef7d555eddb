package sqlite

import (
	"slices"
	"sync"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// rowCacheSize bounds the rows kept by rowCache: about 1.5 KB each at 256
// dimensions, so some 50 MB when full. A 10k-memory scope fits whole.
const rowCacheSize = 32768

// rowCache keeps recently read memory rows so a search does not read its
// candidates back from SQLite: reading and decoding a few dozen rows (with
// their vectors) was most of a search's cost in the pure Go build, and
// every write of another connection sends those pages back to the OS.
//
// Coherence. Every write of this store drops the rows it touched after it
// committed (drop), and bumps gen. A reader notes gen before it reads rows
// from the database and adds them only if gen has not moved since (put):
// a read that raced a write may have seen the row before the write, and
// is not kept. Like the vector index, the cache knows this process's
// writes only.
//
// Rows are stored as read and handed out as copies: callers may mutate
// what a search returns.
type rowCache struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]*memory.Memory // by id
	max int
}

func newRowCache(max int) *rowCache {
	return &rowCache{m: make(map[string]*memory.Memory), max: max}
}

// generation is the write count a reader notes before reading rows.
func (c *rowCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// get returns a copy of the cached row of id in scope sc.
func (c *rowCache) get(sc memory.Scope, id string) (*memory.Memory, bool) {
	c.mu.Lock()
	m, ok := c.m[id]
	c.mu.Unlock()
	if !ok || m.Scope != sc {
		return nil, false
	}
	return cloneMemory(m), true
}

// put keeps copies of rows read from the database after generation
// returned gen, unless a write committed since.
func (c *rowCache) put(gen uint64, rows []*memory.Memory) {
	if len(rows) == 0 {
		return
	}
	kept := make([]*memory.Memory, len(rows))
	for i, m := range rows {
		kept[i] = cloneMemory(m)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	for _, m := range kept {
		if _, ok := c.m[m.ID]; !ok && len(c.m) >= c.max {
			// Evict an arbitrary row: map iteration starts at random.
			for id := range c.m {
				delete(c.m, id)
				break
			}
		}
		c.m[m.ID] = m
	}
}

// drop forgets ids after a write to them committed.
func (c *rowCache) drop(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, id := range ids {
		delete(c.m, id)
	}
}

// dropUser forgets every row of user (of namespace ns when not empty).
func (c *rowCache) dropUser(user, ns string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for id, m := range c.m {
		if m.Scope.User == user && (ns == "" || m.Scope.Namespace == ns) {
			delete(c.m, id)
		}
	}
}

// cloneMemory copies m deeply enough that changing the copy (its vector,
// provenance or times) cannot change the original.
func cloneMemory(m *memory.Memory) *memory.Memory {
	c := *m
	c.Embedding = slices.Clone(m.Embedding)
	c.Provenance.RequestIDs = slices.Clone(m.Provenance.RequestIDs)
	c.Provenance.TurnRefs = slices.Clone(m.Provenance.TurnRefs)
	c.Provenance.MemoryIDs = slices.Clone(m.Provenance.MemoryIDs)
	c.ValidTo = cloneTime(m.ValidTo)
	c.ExpiresAt = cloneTime(m.ExpiresAt)
	c.ArchivedAt = cloneTime(m.ArchivedAt)
	c.ConsolidatedAt = cloneTime(m.ConsolidatedAt)
	return &c
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := *t
	return &v
}
