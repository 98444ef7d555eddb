// Package search is the in-process search engine both stores use. Per
// scope it keeps a quantised vector matrix (Vec) and an inverted index
// ranked with BM25 (Lex), with the metadata filter they share; they hold
// no text and no database handle. Engine loads them through a store's
// Source on a scope's first search, keeps them coherent with the writes
// the store reports, bounds their memory (Budget) and serves the rows a
// search returns from a row cache or reads them back: the database stays
// the source of truth. Vec, Lex and Budget do not lock; Engine guards
// them.
package search

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"unsafe"

	"github.com/memproxy/memproxy/memory"
)

// Vec is one scope's vectors, quantised: each normalised vector as int8
// (with its scale) in one contiguous slice, a quarter of the float32 size,
// so a scan of 100k vectors reads 25 MB rather than 100 MB (the scan is
// bound by memory bandwidth). The scan ranks approximately; stores
// re-score the best few exactly from the rows they read back.
type Vec struct {
	dim    int
	stride int // dim rounded up to 16 for the kernel; padding is zero
	ids    idTable
	seqs   []int64 // a store's row order (SQLite's rowid, PostgreSQL's creation time)
	meta   []Meta
	flags  []uint16 // meta[i].flags(): what the scan's filter reads
	scale  []float32
	vecs   []int8 // slot i at [i*stride : (i+1)*stride]
	// The first stage of a scan, where the machine has the kernel and
	// stride is a multiple of 128: each vector again as int4, half the
	// bytes of vecs. Once a scope's matrix outgrows the caches the scan
	// waits on memory (10k × 256 int8 rows: 68 µs a scan alone, 180 µs
	// with eight such scopes in turn), so it reads these, and only its
	// best few are ranked by their int8 rows (nibbleKeep).
	nib    []uint8 // slot i at [i*stride/2 : (i+1)*stride/2]
	nscale []float32
	first4 bool // keeps nib: the kernel runs here and stride%128 == 0
}

// nibbleLevels maps a row's largest component to 7 in the int4 stage.
const nibbleLevels = 7

// nibbleKeep is how many rows the int4 stage hands the int8 ranking for a
// search of k.
func nibbleKeep(k int) int { return max(3*k, k+48) }

// nibbles reports whether the index keeps the int4 stage.
func (ix *Vec) nibbles() bool { return ix.first4 }

// rowLevels maps a stored row's largest component to 127.
const rowLevels = 127

// queryLevels maps the query's largest component to 127 as well: the
// kernel multiplies bytes by bytes (VPMADDUBSW), two products at a time
// into 16 bits, which 127*127*2 never overflows. The scan only ranks
// approximately; the best rows are re-scored exactly (RerankMargin).
const queryLevels = 127

func strideFor(dim int) int { return (dim + 15) &^ 15 }

// NewVec returns an empty index for vectors of dim dimensions.
func NewVec(dim int) *Vec {
	v := &Vec{dim: dim, stride: strideFor(dim), ids: newIDTable()}
	v.first4 = nibbleScan && v.stride%128 == 0
	v.Reset()
	return v
}

// Reset empties the index.
func (ix *Vec) Reset() {
	ix.ids.reset()
	ix.seqs, ix.meta, ix.flags, ix.vecs, ix.scale = nil, nil, nil, nil, nil
	ix.nib, ix.nscale = nil, nil
}

// ID is the memory id at slot.
func (ix *Vec) ID(slot int) string { return ix.ids.get(int32(slot)) }

// Seq is the row order value at slot.
func (ix *Vec) Seq(slot int) int64 { return ix.seqs[slot] }

// Has reports whether id is indexed.
func (ix *Vec) Has(id string) bool { _, ok := ix.ids.find(id); return ok }

// SetMeta gives an indexed row new metadata and row order, its vector
// unchanged; false when id is not indexed.
func (ix *Vec) SetMeta(id string, seq int64, m Meta) bool {
	i, ok := ix.ids.find(id)
	if ok {
		ix.seqs[i], ix.meta[i], ix.flags[i] = seq, m, m.flags()
	}
	return ok
}

// Upsert stores the row's vector quantised; a vector of the wrong size,
// without direction or not finite is dropped from the index, and so is a
// row without an id.
func (ix *Vec) Upsert(id string, seq int64, m Meta, v []float32) {
	if len(v) != ix.dim || id == "" {
		ix.Remove(id)
		return
	}
	var mx float32
	for _, f := range v {
		mx = max(mx, f, -f)
	}
	if mx == 0 || math.IsNaN(float64(mx)) || math.IsInf(float64(mx), 0) {
		ix.Remove(id)
		return
	}
	// Scores are ranked per query, so the row's norm must cancel: the
	// scale carries 1/|v| as well as the quantisation step.
	si, ok := ix.ids.find(id)
	i := int(si)
	if !ok {
		i = ix.ids.slots()
		ix.ids.put(ix.ids.addSlot(), id)
		ix.seqs = append(ix.seqs, 0)
		ix.meta = append(ix.meta, Meta{})
		ix.flags = append(ix.flags, 0)
		ix.scale = append(ix.scale, 0)
		ix.vecs = append(ix.vecs, make([]int8, ix.stride)...)
		if ix.nibbles() {
			ix.nscale = append(ix.nscale, 0)
			ix.nib = append(ix.nib, make([]uint8, ix.stride/2)...)
		}
	}
	q := ix.vecs[i*ix.stride : (i+1)*ix.stride]
	var n float64
	for k, f := range v {
		q[k] = int8(math.Round(float64(f / mx * rowLevels)))
		n += float64(f) * float64(f)
	}
	ix.seqs[i] = seq
	ix.meta[i] = m
	ix.flags[i] = m.flags()
	ix.scale[i] = float32(float64(mx) / rowLevels / math.Sqrt(n))
	if ix.nibbles() {
		// In each 128 components, byte j holds component j in its low
		// nibble and j+64 in its high one, as x+8 (the padding 0 too).
		h := ix.stride / 2
		row := ix.nib[i*h : (i+1)*h]
		for j := range row {
			b, k := j/64*128, j%64
			row[j] = nibble(v, b+k, mx) | nibble(v, b+k+64, mx)<<4
		}
		ix.nscale[i] = float32(float64(mx) / nibbleLevels / math.Sqrt(n))
	}
}

// nibble is component k of v (0 past its end) as an unsigned int4 of a
// row whose largest component is mx.
func nibble(v []float32, k int, mx float32) uint8 {
	var x float64
	if k < len(v) {
		x = math.Round(float64(v[k] / mx * nibbleLevels))
	}
	return uint8(int(x) + 8)
}

// Remove drops id by moving the last slot into its place.
func (ix *Vec) Remove(id string) {
	si, ok := ix.ids.find(id)
	if !ok {
		return
	}
	i, last := int(si), ix.ids.slots()-1
	ix.ids.clear(si)
	ix.ids.moveLast(si)
	if i != last {
		ix.seqs[i] = ix.seqs[last]
		ix.meta[i] = ix.meta[last]
		ix.flags[i] = ix.flags[last]
		ix.scale[i] = ix.scale[last]
		copy(ix.vecs[i*ix.stride:(i+1)*ix.stride], ix.vecs[last*ix.stride:])
		if ix.nibbles() {
			h := ix.stride / 2
			ix.nscale[i] = ix.nscale[last]
			copy(ix.nib[i*h:(i+1)*h], ix.nib[last*h:])
		}
	}
	ix.seqs = ix.seqs[:last]
	ix.meta = ix.meta[:last]
	ix.flags = ix.flags[:last]
	ix.scale = ix.scale[:last]
	ix.vecs = ix.vecs[:last*ix.stride]
	if ix.nibbles() {
		ix.nscale = ix.nscale[:last]
		ix.nib = ix.nib[:last*ix.stride/2]
	}
}

// Per-slot and per-term estimates of the indexes' memory: slices'
// elements, an id string (memory.NewID: 16 bytes) and its header, and a
// map entry with Go's bucket overhead.
const (
	idBytes       = 16 + 16
	mapEntryBytes = 48
	vecSlotBytes  = idBytes + 8 + int64(unsafe.Sizeof(Meta{})) + 4 + mapEntryBytes
	lexSlotBytes  = idBytes + 8 + int64(unsafe.Sizeof(Meta{})) + 4 + 24 + mapEntryBytes
	lexPostBytes  = int64(unsafe.Sizeof(lexPost{}) + unsafe.Sizeof(lexTF{}))
	lexTermBytes  = 24 + 16 + 8 + mapEntryBytes
)

// Estimate is the index's memory in bytes.
func (ix *Vec) Estimate() int64 {
	return int64(cap(ix.vecs)) + int64(cap(ix.nib)) + int64(cap(ix.nscale))*4 + int64(cap(ix.flags))*2 + int64(ix.ids.slots())*vecSlotBytes
}

// query8 is a quantised query in the kernel's form: s the components as
// int8, a their magnitudes (the kernel gives each row byte the sign of
// the query's, then multiplies magnitudes).
type query8 struct {
	s    []int8
	a    []uint8
	corr int32 // 128*sum(s): what the VNNI kernel's unsigned rows add
}

// sum sets q.corr from q.s.
func (q *query8) sum() {
	var t int32
	for _, x := range q.s {
		t += int32(x)
	}
	q.corr = 128 * t
}

// quantQuery turns a normalised query into the kernel's form, stride long
// (the padding zero).
func quantQuery(q []float32, stride int) query8 {
	var mx float32
	for _, f := range q {
		mx = max(mx, f, -f)
	}
	out := query8{s: make([]int8, stride), a: make([]uint8, stride)}
	if mx == 0 {
		return out
	}
	for i, f := range q {
		x := int8(math.Round(float64(f / mx * queryLevels)))
		out.s[i], out.a[i] = x, uint8(max(x, -x))
	}
	out.sum()
	return out
}

// Hit is one scanned row: its slot and approximate score (proportional to
// cosine).
type Hit struct {
	Slot  int
	Score float32
}

// minHeap keeps the best k hits with the worst on top.
type minHeap []Hit

func (h minHeap) Less(i, j int) bool { return h[i].Score < h[j].Score }

// parallelMin is the number of multiply-adds above which a search splits
// the scan across goroutines.
const parallelMin = 1 << 23

// scanBlock is how many rows the scan scores per kernel call.
const scanBlock = 128

// topK scans slots [lo, hi) and returns the best k that pass f, by
// their int8 rows: with the int4 stage, among the best nibbleKeep(k) of
// that stage.
func (ix *Vec) topK(q query8, f *Filter, k, lo, hi int) minHeap {
	if !ix.nibbles() {
		return ix.topK8(q, f, k, lo, hi)
	}
	first := ix.topK4(q, f, nibbleKeep(k), lo, hi)
	// In slot order, as the int8 scan meets them: rows of equal score
	// are kept as it keeps them.
	slices.SortFunc(first, func(a, b Hit) int { return cmp.Compare(a.Slot, b.Slot) })
	h := make(minHeap, 0, k+1)
	var dot [1]int32
	for _, c := range first {
		i := c.Slot
		dotI8Batch(q, ix.vecs[i*ix.stride:(i+1)*ix.stride], dot[:])
		sc := float32(dot[0]) * ix.scale[i]
		switch {
		case len(h) < k:
			hPush(&h, Hit{i, sc})
		case sc > h[0].Score:
			h[0] = Hit{i, sc}
			hFix(h, 0)
		}
	}
	return h
}

// topK4 is the int4 stage: the best k rows of [lo, hi) that pass f, in
// no order. A row scoring over the k-th best so far is set aside; when 2k
// are, the best k stay and the k-th's score is the new bar (a heap of
// hundreds, fixed for every row that entered, cost as much as the scan).
func (ix *Vec) topK4(q query8, f *Filter, k, lo, hi int) []Hit {
	keep := make([]Hit, 0, 2*k)
	// bar is a local the loop keeps in a register: a variable a closure
	// updated would be reloaded for every row.
	bar := float32(math.Inf(-1))
	nb := ix.stride / 2
	var buf [scanBlock]int32
	for b := lo; b < hi; b += scanBlock {
		e := min(b+scanBlock, hi)
		dots := buf[:e-b]
		dotI4Batch(q, ix.nib[b*nb:e*nb], dots)
		scale := ix.nscale[b:e:e]
		scale = scale[:len(dots)]
		for j, dot := range dots {
			sc := float32(dot) * scale[j]
			if sc <= bar {
				continue
			}
			i := b + j
			if !f.keepFlags(ix.flags[i], &ix.meta[i]) {
				continue
			}
			keep = append(keep, Hit{i, sc})
			if len(keep) == cap(keep) {
				keep, bar = keepBest(keep, k)
			}
		}
	}
	if len(keep) > k {
		keep, _ = keepBest(keep, k)
	}
	return keep
}

// keepBest keeps the best k of h and returns them with the lowest score
// among them, the bar a row must pass to enter.
func keepBest(h []Hit, k int) ([]Hit, float32) {
	selectBest(h, k)
	h = h[:k]
	bar := h[0].Score
	for _, x := range h[1:] {
		bar = min(bar, x.Score)
	}
	return h, bar
}

// selectBest reorders h so that its first k hold k of its best scores
// (quickselect, median-of-three pivots).
func selectBest(h []Hit, k int) {
	lo, hi := 0, len(h)-1
	for lo < hi {
		m := lo + (hi-lo)/2
		if h[m].Score > h[lo].Score {
			h[m], h[lo] = h[lo], h[m]
		}
		if h[hi].Score > h[lo].Score {
			h[hi], h[lo] = h[lo], h[hi]
		}
		if h[hi].Score > h[m].Score {
			h[hi], h[m] = h[m], h[hi]
		}
		p := h[m].Score // the median of the three, best first
		i, j := lo, hi
		for i <= j {
			for h[i].Score > p {
				i++
			}
			for h[j].Score < p {
				j--
			}
			if i <= j {
				h[i], h[j] = h[j], h[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// topK8 scans slots [lo, hi) by their int8 rows.
func (ix *Vec) topK8(q query8, f *Filter, k, lo, hi int) minHeap {
	h := make(minHeap, 0, k+1)
	d := ix.stride
	var buf [scanBlock]int32
	for b := lo; b < hi; b += scanBlock {
		e := min(b+scanBlock, hi)
		dots := buf[:e-b]
		dotI8Batch(q, ix.vecs[b*d:e*d], dots)
		for j, dot := range dots {
			i := b + j
			sc := float32(dot) * ix.scale[i]
			// Once the heap is full most rows score under its worst:
			// the filter is asked only of a row that would enter.
			full := len(h) == k
			if full && sc <= h[0].Score || !f.keepFlags(ix.flags[i], &ix.meta[i]) {
				continue
			}
			if full {
				h[0] = Hit{i, sc}
				hFix(h, 0)
				continue
			}
			hPush(&h, Hit{i, sc})
		}
	}
	return h
}

// Search returns the best k rows passing f for the normalised query q,
// best first, by approximate score; large scans are split over up to
// workers goroutines.
func (ix *Vec) Search(q []float32, f *Filter, k, workers int) []Hit {
	if len(q) != ix.dim || k <= 0 {
		return nil
	}
	qq := quantQuery(q, ix.stride)
	n := ix.ids.slots()
	var h minHeap
	if workers < 2 || n*ix.stride < parallelMin {
		h = ix.topK(qq, f, k, 0, n)
	} else {
		parts := make([]minHeap, workers)
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := n*w/workers, n*(w+1)/workers
			wg.Go(func() { parts[w] = ix.topK(qq, f, k, lo, hi) })
		}
		wg.Wait()
		h = make(minHeap, 0, k+1)
		for _, p := range parts {
			for _, x := range p {
				if len(h) < k {
					hPush(&h, x)
				} else if x.Score > h[0].Score {
					h[0] = x
					hFix(h, 0)
				}
			}
		}
	}
	out := make([]Hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = hPop(&h)
	}
	return out
}

// RerankMargin is how many candidates beyond the limit a store re-scores
// exactly, covering quantisation error near the cut.
func RerankMargin(limit int) int { return max(16, limit/2) }

// Normalise returns v/|v|; false when v has no direction or is not finite.
func Normalise(v []float32) ([]float32, bool) {
	q := make([]float32, len(v))
	if !NormaliseInto(q, v) {
		return nil, false
	}
	return q, true
}

// NormaliseInto writes v/|v| to dst (of v's length); false when v has no
// direction.
//
// Rescore normalises every candidate's vector: unrolled by four, with the
// sum taken in the same order (so the same result to the bit), it costs
// a fifth fewer instructions than the plain loops (333 k -> 261 k a recall
// under callgrind).
func NormaliseInto(dst, v []float32) bool {
	var n float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		w := v[i : i+4 : i+4]
		a, b, c, d := float64(w[0]), float64(w[1]), float64(w[2]), float64(w[3])
		n += a * a
		n += b * b
		n += c * c
		n += d * d
	}
	for ; i < len(v); i++ {
		n += float64(v[i]) * float64(v[i])
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return false
	}
	inv := 1 / math.Sqrt(n)
	dst = dst[:len(v)]
	i = 0
	for ; i+4 <= len(v); i += 4 {
		w, o := v[i:i+4:i+4], dst[i:i+4:i+4]
		o[0] = float32(float64(w[0]) * inv)
		o[1] = float32(float64(w[1]) * inv)
		o[2] = float32(float64(w[2]) * inv)
		o[3] = float32(float64(w[3]) * inv)
	}
	for ; i < len(v); i++ {
		dst[i] = float32(float64(v[i]) * inv)
	}
	return true
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

// dotI8Generic is the portable kernel: the inner product of a quantised
// query's components and one row.
func dotI8Generic(q []int8, v []int8) int32 {
	v = v[:len(q)]
	var s int32
	for i := range q {
		s += int32(q[i]) * int32(v[i])
	}
	return s
}

// dotI8BatchGeneric is the portable batch kernel.
func dotI8BatchGeneric(q query8, v []int8, out []int32) {
	d := len(q.s)
	for r := range out {
		out[r] = dotI8Generic(q.s, v[r*d:(r+1)*d])
	}
}

// Dim is the vector length the index holds.
func (ix *Vec) Dim() int { return ix.dim }

// rescoreRows is Rescore over rows given as the cached encodings bufs[i]
// of ids[i], or rows[ids[i]] where bufs[i] is nil: an encoded candidate is
// filtered and scored from its encoding (rowMeta) and decoded only when
// among the best limit, so the margin's rows allocate nothing.
func rescoreRows(q []float32, ids []string, bufs [][]byte, us usages, rows map[string]*memory.Memory, f *Filter, limit int, o memory.SearchOptions) []memory.Candidate {
	type scored struct {
		i     int
		score float64
	}
	keep := make([]scored, 0, len(ids))
	e := make([]float32, len(q))
	for i, id := range ids {
		var v []float32
		if b := bufs[i]; b != nil {
			meta, vec := rowMeta(b)
			if !f.Keep(&meta) {
				continue
			}
			v = vec
		} else if m, ok := rows[id]; !ok || !f.KeepMemory(m) {
			continue
		} else {
			v = m.Embedding
		}
		if len(v) == len(q) && NormaliseInto(e, v) {
			keep = append(keep, scored{i, float64(Dot(q, e))})
		}
	}
	slices.SortStableFunc(keep, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	keep = keep[:min(len(keep), limit)]
	out := make([]memory.Candidate, len(keep))
	decoded := make([]memory.Memory, len(keep))
	for k, c := range keep {
		m := rows[ids[c.i]]
		if b := bufs[c.i]; b != nil {
			decodeRow(b, &decoded[k])
			us.at(c.i).apply(&decoded[k])
			m = &decoded[k]
		}
		out[k] = memory.Candidate{Memory: memory.SearchCopy(m, o), Score: c.score}
	}
	return out
}

// Rescore scores the rows ids (ranked approximately) exactly against the
// normalised query q and returns the best limit, best first; ties keep the
// ranking's order. A row missing from rows, changed since the ranking so
// that f no longer passes it, or without a vector of q's length is left
// out. Each memory returned is memory.SearchCopy of its row under o.
func Rescore(q []float32, ids []string, rows map[string]*memory.Memory, f *Filter, limit int, o memory.SearchOptions) []memory.Candidate {
	out := make([]memory.Candidate, 0, len(ids))
	e := make([]float32, len(q))
	for _, id := range ids {
		m, ok := rows[id]
		if !ok || !f.KeepMemory(m) || len(m.Embedding) != len(q) || !NormaliseInto(e, m.Embedding) {
			continue
		}
		out = append(out, memory.Candidate{Memory: m, Score: float64(Dot(q, e))})
	}
	slices.SortStableFunc(out, func(a, b memory.Candidate) int { return cmp.Compare(b.Score, a.Score) })
	if len(out) > limit {
		out = out[:limit]
	}
	for i := range out {
		out[i].Memory = memory.SearchCopy(out[i].Memory, o)
	}
	return out
}
