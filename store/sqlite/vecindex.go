package sqlite

import (
	"container/heap"
	"context"
	"database/sql"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// vecIndex is one scope's vectors in memory, quantised: each normalised
// vector as int8 (with its scale) in one contiguous slice, a quarter of the
// float32 size, so a scan of 100k vectors reads 25 MB rather than 100 MB
// (the scan is bound by memory bandwidth). The scan ranks approximately;
// VectorSearch re-scores the best few exactly from the rows it reads back.
// It holds no text: everything returned is re-read from the database.
type vecIndex struct {
	mu     sync.RWMutex
	loaded bool
	dim    int
	stride int // dim rounded up to 16 for the kernel; padding is zero
	ids    []string
	seqs   []int64 // the rows' seq, so candidates are read by rowid
	meta   []vecMeta
	scale  []float32
	vecs   []int8 // slot i at [i*stride : (i+1)*stride]
	slot   map[string]int
	// bytes is estimate() as of the last change, for the index budget
	// (read without the lock).
	bytes atomic.Int64
}

// rowLevels maps a stored row's largest component to 127.
const rowLevels = 127

// queryLevels maps the query's largest component; 16383 keeps the int32
// accumulator from overflowing up to 4096 dimensions.
const queryLevels = 16383

func strideFor(dim int) int { return (dim + 15) &^ 15 }

type vecMeta struct {
	tier         memory.Tier
	tierBit      uint8 // tierBits(tier): filters test a bit, not a string
	dead         bool  // superseded or archived
	expires      int64 // unix micros, 0 = never
	consolidated bool
}

// newMeta is a row's index metadata.
func newMeta(tier memory.Tier, dead bool, expires int64, consolidated bool) vecMeta {
	return vecMeta{tier: tier, tierBit: tierBits(tier), dead: dead, expires: expires, consolidated: consolidated}
}

// tierBits maps a tier to its bit in a filter's tier mask; an unknown tier
// gets the bit no known tier has, and is then compared by name.
func tierBits(t memory.Tier) uint8 {
	switch t {
	case memory.TierEvent:
		return 1
	case memory.TierEpisodic:
		return 2
	case memory.TierSemantic:
		return 4
	case memory.TierProfile:
		return 8
	}
	return 128
}

// index returns the scope's index, creating an unloaded one, and marks
// the scope recently searched.
func (s *Store) index(sc memory.Scope) *vecIndex {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	s.touchLocked(sc)
	ix, ok := s.idx[sc]
	if !ok {
		ix = &vecIndex{dim: s.dim, stride: strideFor(s.dim)}
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

const vecCols = `id, tier, valid_to IS NOT NULL OR archived_at IS NOT NULL, coalesce(expires_at, 0), consolidated_at IS NOT NULL, embedding, seq`

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
	ix.bytes.Store(ix.estimate())
	return nil
}

func (ix *vecIndex) reset() {
	ix.ids, ix.seqs, ix.meta, ix.vecs, ix.scale = nil, nil, nil, nil, nil
	ix.slot = make(map[string]int)
	ix.loaded = false
	ix.bytes.Store(0)
}

func (ix *vecIndex) scanRows(rows *sql.Rows) error {
	defer rows.Close()
	for rows.Next() {
		var (
			id, tier   string
			dead, cons bool
			expires    int64
			emb        []byte
			seq        int64
		)
		if err := rows.Scan(&id, &tier, &dead, &expires, &cons, &emb, &seq); err != nil {
			return err
		}
		ix.upsert(id, seq, newMeta(memory.Tier(tier), dead, expires, cons), emb)
	}
	return rows.Err()
}

// upsert stores the row's vector quantised; a vector of the wrong size or
// of zero length is dropped from the index.
func (ix *vecIndex) upsert(id string, seq int64, m vecMeta, emb []byte) {
	if len(emb) != 4*ix.dim {
		ix.remove(id)
		return
	}
	v := decodeVec(emb)
	var mx float32
	for _, f := range v {
		mx = max(mx, f, -f)
	}
	if mx == 0 || math.IsNaN(float64(mx)) || math.IsInf(float64(mx), 0) {
		ix.remove(id)
		return
	}
	// Scores are ranked per query, so the row's norm must cancel: the
	// scale carries 1/|v| as well as the quantisation step.
	q := make([]int8, ix.stride)
	var n float64
	for i, f := range v {
		q[i] = int8(math.Round(float64(f / mx * rowLevels)))
		n += float64(f) * float64(f)
	}
	sc := float32(float64(mx) / rowLevels / math.Sqrt(n))
	i, ok := ix.slot[id]
	if !ok {
		i = len(ix.ids)
		ix.slot[id] = i
		ix.ids = append(ix.ids, id)
		ix.seqs = append(ix.seqs, seq)
		ix.meta = append(ix.meta, m)
		ix.scale = append(ix.scale, sc)
		ix.vecs = append(ix.vecs, q...)
		return
	}
	ix.seqs[i] = seq
	ix.meta[i] = m
	ix.scale[i] = sc
	copy(ix.vecs[i*ix.stride:], q)
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
		ix.seqs[i] = ix.seqs[last]
		ix.meta[i] = ix.meta[last]
		ix.scale[i] = ix.scale[last]
		copy(ix.vecs[i*ix.stride:(i+1)*ix.stride], ix.vecs[last*ix.stride:])
		ix.slot[ix.ids[i]] = i
	}
	ix.ids = ix.ids[:last]
	ix.seqs = ix.seqs[:last]
	ix.meta = ix.meta[:last]
	ix.scale = ix.scale[:last]
	ix.vecs = ix.vecs[:last*ix.stride]
	delete(ix.slot, id)
}

// quantQuery turns a normalised query into the kernel's int16 form.
func quantQuery(q []float32, stride int) []int16 {
	var mx float32
	for _, f := range q {
		mx = max(mx, f, -f)
	}
	out := make([]int16, stride)
	for i, f := range q {
		out[i] = int16(math.Round(float64(f / mx * queryLevels)))
	}
	return out
}

// refresh re-reads the given ids of the scope's loaded indexes (vector and
// lexical) from the database after a write committed, and drops them from
// the row cache. Reading the current rows (not applying the write) makes
// it order-independent: whichever refresh runs last saw the latest state.
// On error an index is dropped and reloads on the next search.
func (s *Store) refresh(ctx context.Context, sc memory.Scope, ids []string) {
	s.rows.drop(ids)
	s.lexTotals.gen.Add(1)
	if len(ids) == 0 {
		return
	}
	ix, lx, unlock := s.lockLoaded(sc)
	defer unlock()
	if ix == nil && lx == nil {
		return
	}
	fail := func() {
		if ix != nil {
			ix.reset()
		}
		if lx != nil {
			lx.reset()
		}
	}
	// The write already committed: finish the refresh even if the
	// caller's context ends now.
	ctx = context.WithoutCancel(ctx)
	seen := make(map[string]bool, len(ids))
	for _, part := range chunks(ids, batchSize) {
		args := append([]any{sc.User, sc.Namespace}, anys(part)...)
		rows, err := s.query(ctx, `SELECT `+vecCols+`, text, context FROM memories WHERE +user = ? AND +namespace = ? AND id IN (`+
			placeholders(len(part))+`)`, args...)
		if err != nil {
			fail()
			return
		}
		for rows.Next() {
			var (
				id, tier      string
				dead, cons    bool
				expires       int64
				emb           []byte
				seq           int64
				text, context string
			)
			if err := rows.Scan(&id, &tier, &dead, &expires, &cons, &emb, &seq, &text, &context); err != nil {
				rows.Close()
				fail()
				return
			}
			seen[id] = true
			m := newMeta(memory.Tier(tier), dead, expires, cons)
			if ix != nil {
				ix.upsert(id, seq, m, emb)
			}
			if lx != nil {
				mm := memory.Memory{Text: text, Context: context}
				lx.upsert(id, seq, m, mm.SearchText())
			}
		}
		if err := rows.Close(); err != nil || rows.Err() != nil {
			fail()
			return
		}
	}
	for _, id := range ids {
		if !seen[id] {
			if ix != nil {
				ix.remove(id)
			}
			if lx != nil {
				lx.remove(id)
			}
		}
	}
}

// lockLoaded write-locks the scope's loaded indexes (nil for one not
// loaded); unlock notes their new sizes, releases them and then accounts
// for the scope in the index budget.
func (s *Store) lockLoaded(sc memory.Scope) (*vecIndex, *lexIndex, func()) {
	ix, lx := s.loadedIndex(sc), s.loadedLexIndex(sc)
	if ix == nil && lx == nil {
		return nil, nil, func() {}
	}
	if ix != nil {
		ix.mu.Lock()
	}
	if lx != nil {
		lx.mu.Lock()
	}
	unlock := func() {
		if ix != nil {
			ix.bytes.Store(ix.estimate())
			ix.mu.Unlock()
		}
		if lx != nil {
			lx.bytes.Store(lx.estimate())
			lx.mu.Unlock()
		}
		s.account(sc)
	}
	if ix != nil && !ix.loaded {
		ix.mu.Unlock()
		ix = nil
	}
	if lx != nil && !lx.loaded {
		lx.mu.Unlock()
		lx = nil
	}
	return ix, lx, unlock
}

// writtenRow is a row as the transaction that wrote it left it.
type writtenRow struct {
	id   string
	seq  int64
	meta vecMeta
	emb  []byte
	text string // memory.Memory.SearchText
}

// refreshWritten applies rows a transaction just committed to the scope's
// loaded indexes without reading them back. The caller must still hold
// writeMu: refresh re-reads rows because it runs after the lock is
// released, when a later write of the same rows may already have been
// applied; under the lock none can have committed.
func (s *Store) refreshWritten(sc memory.Scope, rows []writtenRow) {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	s.rows.drop(ids)
	s.lexTotals.gen.Add(1)
	ix, lx, unlock := s.lockLoaded(sc)
	defer unlock()
	for _, r := range rows {
		if ix != nil {
			ix.upsert(r.id, r.seq, r.meta, r.emb)
		}
		if lx != nil {
			lx.upsert(r.id, r.seq, r.meta, r.text)
		}
	}
}

// forgetUser unloads every index of user (of namespace ns when not empty)
// after a deletion committed.
func (s *Store) forgetUser(user, ns string) {
	s.rows.dropUser(user, ns)
	s.lexTotals.gen.Add(1)
	s.idxMu.Lock()
	var drop []unloaded
	for sc := range s.budget.use {
		if sc.User == user && (ns == "" || sc.Namespace == ns) {
			drop = append(drop, s.unloadLocked(sc))
		}
	}
	s.idxMu.Unlock()
	for _, v := range drop {
		v.reset()
	}
}

// filter is a search's predicate over index metadata.
type filter struct {
	tiers        []memory.Tier
	tierMask     uint8 // the known tiers' bits (tierBits)
	includeDead  bool
	at           int64
	exclConsolid bool
}

func newFilter(o memory.SearchOptions) filter {
	at := o.At
	if at.IsZero() {
		at = time.Now()
	}
	f := filter{tiers: o.Tiers, includeDead: o.IncludeDead, at: micros(at), exclConsolid: o.ExcludeConsolidated}
	for _, t := range o.Tiers {
		if b := tierBits(t); b != 128 {
			f.tierMask |= b
		}
	}
	return f
}

func (f *filter) keep(m *vecMeta) bool {
	if !f.includeDead && (m.dead || (m.expires != 0 && m.expires <= f.at)) {
		return false
	}
	if f.exclConsolid && m.consolidated {
		return false
	}
	if len(f.tiers) > 0 {
		if m.tierBit&f.tierMask != 0 {
			return true
		}
		if m.tierBit != 128 {
			return false
		}
		// A tier this file does not know: compare names.
		return slices.Contains(f.tiers, m.tier)
	}
	return true
}

// keepMemory applies the same filter to a memory re-read from the database.
func (f *filter) keepMemory(m *memory.Memory) bool {
	var exp int64
	if m.ExpiresAt != nil {
		exp = micros(*m.ExpiresAt)
	}
	vm := newMeta(m.Tier, m.ValidTo != nil || m.ArchivedAt != nil, exp, m.ConsolidatedAt != nil)
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
const parallelMin = 1 << 23

// topK scans slots [lo, hi) and returns the best k that pass f, by
// approximate score (proportional to cosine).
func (ix *vecIndex) topK(q []int16, f *filter, k, lo, hi int) minHeap {
	h := make(minHeap, 0, k+1)
	d := ix.stride
	for i := lo; i < hi; i++ {
		if !f.keep(&ix.meta[i]) {
			continue
		}
		sc := float32(dotI8(q, ix.vecs[i*d:(i+1)*d])) * ix.scale[i]
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
func (ix *vecIndex) search(q []int16, f *filter, k, workers int) []hit {
	n := len(ix.ids)
	var h minHeap
	if workers < 2 || n*ix.stride < parallelMin {
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

// dotI8Generic is the portable kernel.
func dotI8Generic(q []int16, v []int8) int32 {
	v = v[:len(q)]
	var s int32
	for i := range q {
		s += int32(q[i]) * int32(v[i])
	}
	return s
}
