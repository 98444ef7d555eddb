package sqlite

import (
	"container/heap"
	"context"
	"database/sql"
	"math"
	"sync"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// vecIndex is one scope's vectors in memory: normalised float32 rows in
// one contiguous slice, plus what the search filters need. It holds no
// text: hits are re-read from the database.
type vecIndex struct {
	mu     sync.RWMutex
	loaded bool
	dim    int
	ids    []string
	meta   []vecMeta
	vecs   []float32 // slot i at [i*dim : (i+1)*dim]
	slot   map[string]int
}

type vecMeta struct {
	tier         memory.Tier
	dead         bool  // superseded or archived
	expires      int64 // unix micros, 0 = never
	consolidated bool
}

// index returns the scope's index, creating an unloaded one.
func (s *Store) index(sc memory.Scope) *vecIndex {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	ix, ok := s.idx[sc]
	if !ok {
		ix = &vecIndex{dim: s.dim}
		s.idx[sc] = ix
	}
	return ix
}

// loadedIndex returns the scope's index if a search has loaded it.
func (s *Store) loadedIndex(sc memory.Scope) *vecIndex {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	return s.idx[sc]
}

const vecCols = `id, tier, valid_to IS NOT NULL OR archived_at IS NOT NULL, coalesce(expires_at, 0), consolidated_at IS NOT NULL, embedding`

// ensure loads the index from the database if it is not loaded; callers
// then take the read lock.
func (s *Store) ensure(ctx context.Context, sc memory.Scope, ix *vecIndex) error {
	ix.mu.RLock()
	ok := ix.loaded
	ix.mu.RUnlock()
	if ok {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.loaded {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+vecCols+` FROM memories WHERE user = ? AND namespace = ? AND embedding IS NOT NULL`,
		sc.User, sc.Namespace)
	if err != nil {
		return err
	}
	ix.reset()
	if err := ix.scanRows(rows); err != nil {
		ix.reset()
		return err
	}
	ix.loaded = true
	return nil
}

func (ix *vecIndex) reset() {
	ix.ids, ix.meta, ix.vecs = nil, nil, nil
	ix.slot = make(map[string]int)
	ix.loaded = false
}

func (ix *vecIndex) scanRows(rows *sql.Rows) error {
	defer rows.Close()
	for rows.Next() {
		var (
			id, tier   string
			dead, cons bool
			expires    int64
			emb        []byte
		)
		if err := rows.Scan(&id, &tier, &dead, &expires, &cons, &emb); err != nil {
			return err
		}
		ix.upsert(id, vecMeta{tier: memory.Tier(tier), dead: dead, expires: expires, consolidated: cons}, emb)
	}
	return rows.Err()
}

// upsert stores the row's vector normalised; a vector of the wrong size or
// of zero length is dropped from the index.
func (ix *vecIndex) upsert(id string, m vecMeta, emb []byte) {
	if len(emb) != 4*ix.dim {
		ix.remove(id)
		return
	}
	v := decodeVec(emb)
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	if n == 0 {
		ix.remove(id)
		return
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	i, ok := ix.slot[id]
	if !ok {
		i = len(ix.ids)
		ix.slot[id] = i
		ix.ids = append(ix.ids, id)
		ix.meta = append(ix.meta, m)
		ix.vecs = append(ix.vecs, v...)
		return
	}
	ix.meta[i] = m
	copy(ix.vecs[i*ix.dim:], v)
}

// remove drops id by moving the last slot into its place.
func (ix *vecIndex) remove(id string) {
	i, ok := ix.slot[id]
	if !ok {
		return
	}
	last := len(ix.ids) - 1
	if i != last {
		ix.ids[i] = ix.ids[last]
		ix.meta[i] = ix.meta[last]
		copy(ix.vecs[i*ix.dim:(i+1)*ix.dim], ix.vecs[last*ix.dim:])
		ix.slot[ix.ids[i]] = i
	}
	ix.ids = ix.ids[:last]
	ix.meta = ix.meta[:last]
	ix.vecs = ix.vecs[:last*ix.dim]
	delete(ix.slot, id)
}

// refresh re-reads the given ids of a loaded index from the database after
// a write committed. Reading the current rows (not applying the write) makes
// it order-independent: whichever refresh runs last saw the latest state.
// On error the index is dropped and reloads on the next search.
func (s *Store) refresh(ctx context.Context, sc memory.Scope, ids []string) {
	ix := s.loadedIndex(sc)
	if ix == nil || len(ids) == 0 {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.loaded {
		return
	}
	// The write already committed: finish the refresh even if the
	// caller's context ends now.
	ctx = context.WithoutCancel(ctx)
	seen := make(map[string]bool, len(ids))
	for _, part := range chunks(ids, batchSize) {
		args := append([]any{sc.User, sc.Namespace}, anys(part)...)
		rows, err := s.db.QueryContext(ctx, `SELECT `+vecCols+` FROM memories WHERE +user = ? AND +namespace = ? AND id IN (`+
			placeholders(len(part))+`)`, args...)
		if err != nil {
			ix.reset()
			return
		}
		for rows.Next() {
			var (
				id, tier   string
				dead, cons bool
				expires    int64
				emb        []byte
			)
			if err := rows.Scan(&id, &tier, &dead, &expires, &cons, &emb); err != nil {
				rows.Close()
				ix.reset()
				return
			}
			seen[id] = true
			ix.upsert(id, vecMeta{tier: memory.Tier(tier), dead: dead, expires: expires, consolidated: cons}, emb)
		}
		if err := rows.Close(); err != nil || rows.Err() != nil {
			ix.reset()
			return
		}
	}
	for _, id := range ids {
		if !seen[id] {
			ix.remove(id)
		}
	}
}

// forgetUser unloads every index of user (of namespace ns when not empty)
// after a deletion committed.
func (s *Store) forgetUser(user, ns string) {
	s.idxMu.Lock()
	var drop []*vecIndex
	for sc, ix := range s.idx {
		if sc.User == user && (ns == "" || sc.Namespace == ns) {
			drop = append(drop, ix)
		}
	}
	s.idxMu.Unlock()
	for _, ix := range drop {
		ix.mu.Lock()
		ix.reset()
		ix.mu.Unlock()
	}
}

// filter is a search's predicate over index metadata.
type filter struct {
	tiers        []memory.Tier
	includeDead  bool
	at           int64
	exclConsolid bool
}

func newFilter(o memory.SearchOptions) filter {
	at := o.At
	if at.IsZero() {
		at = time.Now()
	}
	return filter{tiers: o.Tiers, includeDead: o.IncludeDead, at: micros(at), exclConsolid: o.ExcludeConsolidated}
}

func (f *filter) keep(m *vecMeta) bool {
	if !f.includeDead && (m.dead || (m.expires != 0 && m.expires <= f.at)) {
		return false
	}
	if f.exclConsolid && m.consolidated {
		return false
	}
	if len(f.tiers) > 0 {
		for _, t := range f.tiers {
			if t == m.tier {
				return true
			}
		}
		return false
	}
	return true
}

// keepMemory applies the same filter to a memory re-read from the database.
func (f *filter) keepMemory(m *memory.Memory) bool {
	vm := vecMeta{tier: m.Tier, dead: m.ValidTo != nil || m.ArchivedAt != nil, consolidated: m.ConsolidatedAt != nil}
	if m.ExpiresAt != nil {
		vm.expires = micros(*m.ExpiresAt)
	}
	return f.keep(&vm)
}

type hit struct {
	slot  int
	score float32
}

// minHeap keeps the best k hits with the worst on top.
type minHeap []hit

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i].score < h[j].score }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(hit)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// parallelMin is the number of multiply-adds above which a search splits
// the scan across goroutines.
const parallelMin = 1 << 21

// topK scans slots [lo, hi) and returns the best k that pass f.
func (ix *vecIndex) topK(q []float32, f *filter, k, lo, hi int) minHeap {
	h := make(minHeap, 0, k+1)
	d := ix.dim
	for i := lo; i < hi; i++ {
		if !f.keep(&ix.meta[i]) {
			continue
		}
		sc := dot(q, ix.vecs[i*d:(i+1)*d])
		if len(h) == k {
			if sc <= h[0].score {
				continue
			}
			h[0] = hit{i, sc}
			heap.Fix(&h, 0)
			continue
		}
		heap.Push(&h, hit{i, sc})
	}
	return h
}

// search returns the best k (slot id, score) pairs, best first. The caller
// holds the read lock.
func (ix *vecIndex) search(q []float32, f *filter, k, workers int) []hit {
	n := len(ix.ids)
	var h minHeap
	if workers < 2 || n*ix.dim < parallelMin {
		h = ix.topK(q, f, k, 0, n)
	} else {
		parts := make([]minHeap, workers)
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := n*w/workers, n*(w+1)/workers
			wg.Go(func() { parts[w] = ix.topK(q, f, k, lo, hi) })
		}
		wg.Wait()
		h = make(minHeap, 0, k+1)
		for _, p := range parts {
			for _, x := range p {
				if len(h) < k {
					heap.Push(&h, x)
				} else if x.score > h[0].score {
					h[0] = x
					heap.Fix(&h, 0)
				}
			}
		}
	}
	out := make([]hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(hit)
	}
	return out
}

// dotGeneric is the inner product of two equal-length vectors, unrolled so
// the compiler keeps four independent accumulators in registers.
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
