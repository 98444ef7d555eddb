package search

import (
	"math"
	"sync"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// RowCacheBytes bounds the rows an Engine's cache keeps, counted by
// cachedBytes (about 1.4 KB a row at 256 dimensions: some 90k rows, the
// candidates of a few thousand distinct queries on a large scope).
const RowCacheBytes = 128 << 20

// rowCache keeps recently read memory rows so a search does not read its
// candidates back from the database: on SQLite, reading and decoding a few
// dozen rows (with their vectors) was most of a search's cost in the pure
// Go build, and every write of another connection sends those pages back
// to the OS.
//
// Coherence, per row. A reader notes the cache's generation before it
// reads rows from the database (note) and hands them over after (put). A
// write drops the rows it changed after it committed (drop), recording
// each id's change at a new generation; put leaves out a row changed since
// the reader's note, whose read may predate the change. Touch, which runs
// after most requests, updates cached rows in place instead, so recall
// keeps finding its candidates here: its ids are in flight from before its
// transaction (beginTouch) until it applied itself (endTouch), and put
// leaves out rows in flight as well, whose read may or may not include
// the touch. So a cached row has either not seen a touch yet and gets it
// from endTouch, or has seen it already, never both. Changes are
// remembered only while a reader that noted an earlier generation is
// still reading. A user's deletion invalidates every note taken before it.
// Like the indexes, the cache knows the writes the store reports only.
//
// Rows are kept encoded (rowcodec.go: one pointer-free []byte a row, so
// the garbage collector does not trace the cache's rows), never changed in
// place. A touch does not rewrite the row either: its hits and last use go
// to a small table beside it (usage), which every decode applies; a row
// cached anew (read, written, dropped) leaves its entry. Copying each
// touched row had been about 15 KB of garbage an ordinary request, most
// of what the recall path's writer allocated. Each read decodes fresh Memory values
// whose strings and vector alias the encoding: a caller that only reads
// (SearchOptions.ReadOnly) gets those, others a copy (memory.SearchCopy),
// which they may mutate.
type rowCache struct {
	mu       sync.Mutex
	gen      uint64
	bulk     uint64              // user deletions
	changed  map[string]uint64   // id → generation of its last change
	readers  map[uint64]int      // noted generation → readers still reading
	touching map[string]int      // ids of touches in flight
	m        map[string][]byte   // encoded rows by id (the key aliases the row)
	usage    map[string]rowUsage // touches applied to rows of m since cached
	bytes    int                 // cachedBytes of the rows in m
	max      int                 // bound on bytes
}

// rowUsage is a cached row's hits and last use after the touches applied
// to it since it was cached (set: there were some).
type rowUsage struct {
	hits int64
	used time.Time
	set  bool
}

// apply writes u into m, decoded from the row u belongs to.
func (u rowUsage) apply(m *memory.Memory) {
	if u.set {
		m.Hits, m.LastUsedAt = int(u.hits), u.used
	}
}

// cacheNote is what a reader notes before reading rows.
type cacheNote struct {
	gen, bulk uint64
}

func newRowCache(maxBytes int) *rowCache {
	return &rowCache{
		m: make(map[string][]byte), usage: make(map[string]rowUsage), max: maxBytes,
		changed: make(map[string]uint64), readers: make(map[uint64]int), touching: make(map[string]int),
	}
}

// note is taken before reading rows; every note must be handed back to
// put (with no rows when the read failed).
func (c *rowCache) note() cacheNote {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readers[c.gen]++
	return cacheNote{c.gen, c.bulk}
}

// cachedBytes is what an encoded row costs the cache's budget.
func cachedBytes(b []byte) int { return len(b) + cacheEntry }

// peek returns the cached row of id in scope sc, decoded (see rowCache).
func (c *rowCache) peek(sc memory.Scope, id string) (*memory.Memory, bool) {
	c.mu.Lock()
	b, ok := c.m[id]
	u := c.usage[id]
	c.mu.Unlock()
	if !ok || rowScope(b) != sc {
		return nil, false
	}
	m := new(memory.Memory)
	decodeRow(b, m)
	u.apply(m)
	return m, true
}

// peekInto adds to found the cached rows of ids in scope sc (decoded, as
// peek's, into one allocation), and returns the positions in ids of those
// it does not hold. The lock is held while looking the ids up only.
func (c *rowCache) peekInto(sc memory.Scope, ids []string, found map[string]*memory.Memory) (miss []int) {
	bufs, us, miss := c.peekRaw(sc, ids)
	n := len(ids) - len(miss)
	if n == 0 {
		return miss
	}
	rows := make([]memory.Memory, n)
	k := 0
	for i, b := range bufs {
		if b != nil {
			decodeRow(b, &rows[k])
			us.at(i).apply(&rows[k])
			found[ids[i]] = &rows[k]
			k++
		}
	}
	return miss
}

// usages are the rowUsage of a peekRaw's rows, by position; nil when none
// was touched since cached.
type usages []rowUsage

func (us usages) at(i int) rowUsage {
	if us == nil {
		return rowUsage{}
	}
	return us[i]
}

// peekRaw returns the cached encodings of ids in scope sc (nil for those
// it does not hold) with the touches to apply to them when decoded, and
// the positions in ids of those it does not hold. The lock is held while
// looking the ids up only.
func (c *rowCache) peekRaw(sc memory.Scope, ids []string) (bufs [][]byte, us usages, miss []int) {
	bufs = make([][]byte, len(ids))
	c.mu.Lock()
	for i, id := range ids {
		bufs[i] = c.m[id]
		if len(c.usage) == 0 {
			continue
		}
		if u, ok := c.usage[id]; ok {
			if us == nil {
				us = make(usages, len(ids))
			}
			us[i] = u
		}
	}
	c.mu.Unlock()
	for i, b := range bufs {
		if b == nil || rowScope(b) != sc {
			bufs[i] = nil
			miss = append(miss, i)
		}
	}
	return bufs, us, miss
}

func (c *rowCache) put(note cacheNote, rows []*memory.Memory) {
	// Encoded before locking: a miss's cost is not the lock's.
	kept := make([][]byte, len(rows))
	for i, m := range rows {
		kept[i] = encodeRow(m)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.release(note)
	if c.bulk != note.bulk {
		return
	}
	for _, b := range kept {
		id, _ := rowHead(b) // aliases b, so the key costs nothing
		if g, ok := c.changed[id]; (ok && g > note.gen) || c.touching[id] > 0 {
			continue
		}
		c.add(id, b)
	}
}

// add caches the encoding b of id, evicting rows to stay under the bound;
// the caller holds mu.
func (c *rowCache) add(id string, b []byte) {
	c.remove(id)
	n := cachedBytes(b)
	for id := range c.m {
		if c.bytes+n <= c.max {
			break
		}
		// Evict arbitrary rows: map iteration starts at random.
		c.remove(id)
	}
	c.m[id] = b
	c.bytes += n
}

// putWritten caches rows an insert just committed, encoded as it wrote
// them (Encode), so the searches that find them next (the next round's
// duplicate check, recall) do not read them back. The caller holds the
// lock that serialises the store's writes: no later write of these rows
// has committed, and a reader cannot have read them before their commit.
// A row a touch is applying to is left out (the touch drops or updates
// it as it ends).
func (c *rowCache) putWritten(bufs []Encoded) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, b := range bufs {
		id, _ := rowHead(b) // aliases b, so the key costs nothing
		c.change(id)
		if c.touching[id] > 0 {
			c.remove(id)
			continue
		}
		c.add(id, b)
	}
}

// has reports whether the cache holds id's row (tests).
func (c *rowCache) has(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[id]
	return ok
}

// release ends a reader's note and forgets the changes no reader still
// needs; the caller holds mu.
func (c *rowCache) release(note cacheNote) {
	if c.readers[note.gen]--; c.readers[note.gen] <= 0 {
		delete(c.readers, note.gen)
	}
	if len(c.readers) == 0 {
		clear(c.changed)
		return
	}
	oldest := uint64(math.MaxUint64)
	for g := range c.readers {
		oldest = min(oldest, g)
	}
	for id, g := range c.changed {
		if g <= oldest {
			delete(c.changed, id)
		}
	}
}

// change records that id changed (the caller holds mu, and has bumped gen).
func (c *rowCache) change(id string) {
	if len(c.readers) > 0 {
		c.changed[id] = c.gen
	}
}

// drop forgets ids after a write to them committed.
func (c *rowCache) drop(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, id := range ids {
		c.change(id)
		c.remove(id)
	}
}

// remove forgets id; the caller holds mu.
func (c *rowCache) remove(id string) {
	if b, ok := c.m[id]; ok {
		c.bytes -= cachedBytes(b)
		delete(c.m, id)
		delete(c.usage, id)
	}
}

// beginTouch is called before a touch's transaction begins.
func (c *rowCache) beginTouch(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		c.touching[id]++
	}
}

// endTouch is called after the touch's transaction ended: committed, it
// applies hits+1 and last_used_at = max(last_used_at, t) to the scope's
// cached rows of ids, as the UPDATE did; otherwise (the commit may or may
// not have happened) it drops them.
func (c *rowCache) endTouch(sc memory.Scope, ids []string, t time.Time, committed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	done := make(map[string]bool, len(ids))
	for _, id := range ids {
		if c.touching[id]--; c.touching[id] <= 0 {
			delete(c.touching, id)
		}
		if done[id] {
			continue
		}
		done[id] = true
		c.change(id)
		b, ok := c.m[id]
		if !ok {
			continue
		}
		if !committed || rowScope(b) != sc {
			c.remove(id)
			continue
		}
		u, ok := c.usage[id]
		if !ok {
			key, _ := rowHead(b) // aliases the row, as m's key
			id, u = key, rowUsage{hits: rowHits(b), used: getTime(b, timeUsed), set: true}
		}
		if t.After(u.used) {
			u.used = t
		}
		u.hits++
		c.usage[id] = u
	}
}

// dropUser forgets every row of user (of namespace ns when not empty).
func (c *rowCache) dropUser(user, ns string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.bulk++
	for id, b := range c.m {
		if sc := rowScope(b); sc.User == user && (ns == "" || sc.Namespace == ns) {
			c.remove(id)
		}
	}
}
