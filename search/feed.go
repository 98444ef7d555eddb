package search

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Feed is the persistence of a store that other processes write too (the
// replicas of one PostgreSQL database): the rows by id come with a change
// feed, every row of the scope changed or deleted since a position, so
// each process's indexes stay exact with every writer.
//
// The protocol. A load takes the feed's position first (Start), then
// reads the scope (an older position only makes the next search read a
// few rows again). Each search ranks in memory and reads the rows it
// ranked together with every change since the scope's position, in one
// read (Read), which returns the position that read could not see past:
// every write committed before it is in it, however long the writing
// transaction ran and in whatever order transactions committed (the feed
// defines positions so; on PostgreSQL a snapshot's xmax and running
// list). Each row comes with its version: applying reads is idempotent and
// order-independent, since two searches' reads may finish in either
// order. A deleted row comes back as gone. When the index changed after a
// search ranked (its read or another's), it ranks again, at most twice.
type Feed interface {
	// Start is the position a load reads from, taken before it.
	Start(ctx context.Context) (Mark, error)
	// Count counts the scope's rows, stopping at bound.
	Count(ctx context.Context, sc memory.Scope, bound int) (int, error)
	// Load calls add for every row of the scope with its version; whole
	// asks for the memories themselves (m, kept in the row cache, whose
	// index row the engine derives, r unset), else m is nil and only the
	// index row is read. A feed's row order is the creation time.
	Load(ctx context.Context, sc memory.Scope, whole bool, add func(r Row, m *memory.Memory, ver int64)) error
	// Read reads the scope's memories need whole, the usage counters
	// (hits, last use) of stale, and every row changed or deleted since
	// since, in one read.
	Read(ctx context.Context, sc memory.Scope, since Mark, need, stale []string) (Delta, error)
}

// Mark is a position of a Feed.
type Mark interface {
	// Newer reports whether the mark is a later position than o (nil: no
	// position yet). Keeping an older mark is always safe; it only reads
	// more.
	Newer(o Mark) bool
}

// Delta is what a Feed read returned.
type Delta struct {
	// Rows are the memories read: asked for, or Changed since the mark.
	Rows []FeedRow
	// Gone are the ids deleted since the mark.
	Gone []string
	// Usage holds the counters (Hits, LastUsedAt) of the stale rows asked
	// for, by id.
	Usage map[string]*memory.Memory
	// Next is the position the read saw (nil when it returned no row).
	Next Mark
}

// The versions a Feed's rows may carry instead of their own, for Add: an
// id deleted since the mark, and the usage counters of a stale row.
const (
	VerGone  = -1
	VerUsage = -2
)

// Add adds a row a Read returned: m at version ver, changed since the mark
// or only asked for; at VerGone only m.ID counts, at VerUsage only its
// counters.
func (d *Delta) Add(m *memory.Memory, ver int64, changed bool) {
	switch ver {
	case VerGone:
		d.Gone = append(d.Gone, m.ID)
	case VerUsage:
		if d.Usage == nil {
			d.Usage = make(map[string]*memory.Memory)
		}
		d.Usage[m.ID] = m
	default:
		d.Rows = append(d.Rows, FeedRow{M: m, Ver: ver, Changed: changed})
	}
}

// FeedRow is a memory as a Read returned it.
type FeedRow struct {
	M       *memory.Memory
	Ver     int64
	Changed bool // changed since the mark, not only asked for
}

// RowTTL is how long a cached row's usage counters are served without
// reading them again. Every change a search reads and every deletion
// reaches the cache at once; only a touch by another process (hits, last
// use) waits for the counters to be read again, alone. A touch by this
// process updates the cache itself (EndTouch).
const RowTTL = 30 * time.Second

// FeedCounters count what searches read, for tests.
type FeedCounters struct {
	// Changed counts the changed rows reads returned, Refreshed the cached
	// rows whose usage counters were read again, Fetched the candidate
	// rows read whole.
	Changed, Refreshed, Fetched atomic.Int64
}

// feedState is a feed engine's share of a scope's index (under its lock).
type feedState struct {
	vers     map[string]int64 // applied row versions, by id
	rows     map[string]cachedRow
	rowBytes int64
	mark     Mark
	// gen counts changes to the index: a search whose ranking is older
	// than the index ranks again.
	gen atomic.Uint64
}

// cachedRow is a memory as a search last read it, encoded as the row
// cache's rows are (rowcodec.go), so the collector does not trace it.
type cachedRow struct {
	b   []byte
	ver int64
	at  time.Time
}

// versBytes is a vers entry's estimated memory.
const versBytes = 16 + 16 + 8 + 48

func (fs *feedState) reset() {
	fs.vers = make(map[string]int64)
	fs.rows = make(map[string]cachedRow)
	fs.rowBytes = 0
	fs.mark = nil
	fs.gen.Add(1)
}

// NewFeedEngine returns an engine over a feed for vectors of dim
// dimensions. A scope whose rows fit in 32 MiB (or a sixteenth of
// IndexBytes, when less) keeps them in the row cache from its load, so its
// searches read no candidate rows until they change or RowTTL passes.
func NewFeedEngine(f Feed, dim int, o Options) *Engine {
	e := NewEngine(nil, dim, o)
	e.feed, e.now, e.LoadCacheBytes = f, time.Now, 32<<20
	if o.IndexBytes > 0 {
		e.LoadCacheBytes = min(e.LoadCacheBytes, o.IndexBytes/16)
	}
	return e
}

// loadFeed reads the scope whole (keeping a small scope's rows in the row
// cache); the caller holds the write lock.
func (e *Engine) loadFeed(ctx context.Context, sc memory.Scope, ix *scopeIndex) error {
	mark, err := e.feed.Start(ctx)
	if err != nil {
		return err
	}
	whole := false
	if most := int(e.LoadCacheBytes / int64(4*e.dim+600)); most > 0 {
		n, err := e.feed.Count(ctx, sc, most+1)
		if err != nil {
			return err
		}
		whole = n <= most
	}
	now := e.now()
	err = e.feed.Load(ctx, sc, whole, func(r Row, m *memory.Memory, ver int64) {
		if m != nil {
			r = RowOf(m, m.CreatedAt.UnixMicro())
		}
		ix.apply(r, ver)
		if m != nil {
			ix.cache(m, ver, now)
		}
	})
	if err != nil {
		return err
	}
	ix.fs.mark = mark
	return nil
}

// apply indexes one row read at version ver, unless a newer (or the same)
// version is already in; the caller holds the write lock.
func (ix *scopeIndex) apply(r Row, ver int64) bool {
	if v, ok := ix.fs.vers[r.ID]; ok && v >= ver {
		return false
	}
	ix.fs.vers[r.ID] = ver
	ix.upsert(r)
	return true
}

// drop removes ids a read found deleted; the caller holds the write lock.
func (ix *scopeIndex) drop(ids []string) {
	for _, id := range ids {
		if r, ok := ix.fs.rows[id]; ok {
			ix.fs.rowBytes -= int64(cachedBytes(r.b))
			delete(ix.fs.rows, id)
		}
		delete(ix.fs.vers, id)
		ix.remove(id)
	}
}

// cache keeps m (read at version ver at t) unless a newer version is in;
// the caller holds the write lock.
func (ix *scopeIndex) cache(m *memory.Memory, ver int64, t time.Time) {
	if r, ok := ix.fs.rows[m.ID]; ok {
		if r.ver > ver {
			return
		}
		ix.fs.rowBytes -= int64(cachedBytes(r.b))
	}
	b := encodeRow(m)
	ix.fs.rows[m.ID] = cachedRow{b: b, ver: ver, at: t}
	ix.fs.rowBytes += int64(cachedBytes(b))
}

// readFeed reads the scope's rows ids and every change since mark, in one
// Read, and applies the changes. It returns the rows read by id. Without
// delta (a search ranking again after its first read, which already
// brought every change committed before the search began), a read whose
// rows are all cached and fresh costs no round trip.
func (e *Engine) readFeed(ctx context.Context, sc memory.Scope, ix *scopeIndex, mark Mark, ids []string, delta bool) (map[string]*memory.Memory, error) {
	found := make(map[string]*memory.Memory, len(ids))
	var need, stale []string
	var fresh [][]byte
	var freshIDs []string
	now := e.now()
	ix.mu.RLock()
	for _, id := range ids {
		r, ok := ix.fs.rows[id]
		switch {
		case !ok:
			need = append(need, id)
		case now.Sub(r.at) < RowTTL:
			fresh, freshIDs = append(fresh, r.b), append(freshIDs, id)
		default:
			// Everything but the usage counters reached the cache
			// through the feed: those alone are read again.
			stale = append(stale, id)
		}
	}
	ix.mu.RUnlock()
	// Decoded outside the lock, into one allocation.
	decoded := make([]memory.Memory, len(fresh))
	for i, b := range fresh {
		decodeRow(b, &decoded[i])
		found[freshIDs[i]] = &decoded[i]
	}
	if !delta && len(need) == 0 && len(stale) == 0 {
		return found, nil
	}
	e.Counters.Fetched.Add(int64(len(need)))
	d, err := e.feed.Read(ctx, sc, mark, need, stale)
	if err != nil {
		return nil, err
	}
	nChanged := 0
	for _, r := range d.Rows {
		if r.Changed {
			nChanged++
		}
	}
	e.Counters.Changed.Add(int64(nChanged))
	if len(d.Rows) == 0 && len(d.Gone) == 0 && len(need) == 0 && len(stale) == 0 {
		// Every candidate was cached and nothing changed: the common
		// case, which needs no write lock.
		return found, nil
	}
	ix.mu.Lock()
	defer func() {
		ix.bytes.Store(ix.estimate())
		ix.mu.Unlock()
	}()
	for _, r := range d.Rows {
		found[r.M.ID] = r.M
	}
	for _, id := range d.Gone {
		delete(found, id)
	}
	if !ix.loaded {
		// Unloaded meanwhile: the next search loads it afresh.
		return found, nil
	}
	for _, id := range stale {
		if _, ok := found[id]; ok {
			continue // changed: read whole
		}
		u, ok := d.Usage[id]
		r, cached := ix.fs.rows[id]
		if !ok || !cached {
			need = append(need, id) // gone: dropped below
			continue
		}
		r.b, r.at = withUsage(r.b, int64(u.Hits), u.LastUsedAt), now
		ix.fs.rows[id] = r
		c := new(memory.Memory)
		decodeRow(r.b, c)
		found[id] = c
		e.Counters.Refreshed.Add(1)
	}
	var missing []string
	for _, id := range need {
		if _, ok := found[id]; !ok {
			missing = append(missing, id)
		}
	}
	moved := len(missing) > 0 || len(d.Gone) > 0
	ix.drop(missing)
	ix.drop(d.Gone)
	for _, r := range d.Rows {
		if r.Changed && ix.apply(RowOf(r.M, r.M.CreatedAt.UnixMicro()), r.Ver) {
			moved = true
		}
		ix.cache(r.M, r.Ver, now)
	}
	if moved {
		ix.fs.gen.Add(1)
	}
	if d.Next != nil && d.Next.Newer(ix.fs.mark) {
		ix.fs.mark = d.Next
	}
	return found, nil
}

// touchedFeed applies a touch this process committed to the cached rows:
// copies with hits+1 and last use t, since searches may still hold the
// old ones.
func (e *Engine) touchedFeed(sc memory.Scope, ids []string, t time.Time) {
	e.mu.Lock()
	ix := e.scopes[sc]
	e.mu.Unlock()
	if ix == nil {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for i, id := range ids {
		if r, ok := ix.fs.rows[id]; ok && !slices.Contains(ids[:i], id) { // an id twice is one touch, as stored
			used := getTime(r.b, timeUsed)
			if t.After(used) {
				used = t.UTC()
			}
			r.b = withUsage(r.b, rowHits(r.b)+1, used)
			ix.fs.rows[id] = r
		}
	}
}

// rankFunc ranks a loaded scope: ids best first with their scores. The
// caller holds the read lock.
type rankFunc func(ix *scopeIndex) ([]string, []float64)

// feedSearch ranks with rank and reads the rows ranked, ranking again (up
// to twice) when the index changed meanwhile: by this read's changes or
// another search's. It returns the ids and scores of the last ranking and
// the rows read for them.
func (e *Engine) feedSearch(ctx context.Context, sc memory.Scope, rank rankFunc) ([]string, []float64, map[string]*memory.Memory, error) {
	found := map[string]*memory.Memory{}
	for try := 0; ; try++ {
		ix, err := e.rlock(ctx, sc)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("load index: %w", err)
		}
		ids, scores := rank(ix)
		mark, gen := ix.fs.mark, ix.fs.gen.Load()
		ix.mu.RUnlock()
		var need []string
		for _, id := range ids {
			if _, ok := found[id]; !ok {
				need = append(need, id)
			}
		}
		if try > 0 && len(need) == 0 {
			return ids, scores, found, nil
		}
		got, err := e.readFeed(ctx, sc, ix, mark, need, try == 0)
		if err != nil {
			return nil, nil, nil, err
		}
		for id, m := range got {
			found[id] = m
		}
		if ix.fs.gen.Load() == gen || try == 2 {
			return ids, scores, found, nil
		}
	}
}

// vectorRank is the vector ranking of a loaded index: the quantised scan
// takes a margin of extra candidates, which Rescore scores exactly from
// the full vectors read back. The caller holds the read lock.
func vectorRank(ix *scopeIndex, q []float32, f *Filter, limit int) []string {
	hits := ix.vec.Search(q, f, limit+RerankMargin(limit), min(2, runtime.GOMAXPROCS(0)))
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = ix.vec.ID(h.Slot)
	}
	return ids
}

// lexicalRank is the BM25 ranking of a loaded index. The caller holds the
// read lock.
func lexicalRank(ix *scopeIndex, terms []string, f *Filter, limit int) ([]string, []float64) {
	chosen, postings := PickTerms(terms, ix.lex.DF)
	hits := ix.lex.Search(chosen, postings, f, limit)
	ids := make([]string, len(hits))
	scores := make([]float64, len(hits))
	for i, h := range hits {
		ids[i], scores[i] = ix.lex.ID(h.Slot), h.Score
	}
	return ids, scores
}

// lexicalCandidates are the lexical ranking's rows that pass the filter.
func lexicalCandidates(ids []string, scores []float64, found map[string]*memory.Memory, f *Filter, o memory.SearchOptions) []memory.Candidate {
	out := make([]memory.Candidate, 0, len(ids))
	for i, id := range ids {
		if m, ok := found[id]; ok && f.KeepMemory(m) {
			out = append(out, memory.Candidate{Memory: memory.SearchCopy(m, o), Score: scores[i]})
		}
	}
	return out
}

// feedHybrid ranks both ways under one read lock and reads the rows of
// both in one Read: one round trip for a recall, not two. The two rank one
// after the other, as Hybrid's do on a Source: side by side, the request
// waited for the vector scan's goroutine to be scheduled (0.9 ms a
// request in the block profile of bench overhead's readonly arm on
// PostgreSQL, on 2 cores), for no CPU saved.
func (e *Engine) feedHybrid(ctx context.Context, sc memory.Scope, vec []float32, query string, o memory.SearchOptions) (vecOut, lexOut []memory.Candidate, err error) {
	q, hasVec := Normalise(vec)
	terms := memory.ContentTerms(memory.QueryTerms(query))
	f := NewFilter(o)
	limit, vlimit := limitOf(o), vectorLimitOf(o)
	var (
		vids, lids []string
		lscores    []float64
	)
	_, _, found, err := e.feedSearch(ctx, sc, func(ix *scopeIndex) ([]string, []float64) {
		vids, lids, lscores = nil, nil, nil
		if hasVec {
			vids = vectorRank(ix, q, &f, vlimit)
		}
		if len(terms) > 0 {
			lids, lscores = lexicalRank(ix, terms, &f, limit)
		}
		union := append(make([]string, 0, len(vids)+len(lids)), vids...)
		seen := make(map[string]struct{}, len(vids))
		for _, id := range vids {
			seen[id] = struct{}{}
		}
		for _, id := range lids {
			if _, ok := seen[id]; !ok {
				union = append(union, id)
			}
		}
		return union, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("hybrid search: %w", err)
	}
	if hasVec {
		vecOut = Rescore(q, vids, found, &f, vlimit, o)
	}
	return vecOut, lexicalCandidates(lids, lscores, found, &f, o), nil
}
