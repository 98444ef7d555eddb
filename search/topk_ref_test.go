package search

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

type refHeap []Hit

func (h refHeap) Len() int           { return len(h) }
func (h refHeap) Less(i, j int) bool { return h[i].Score < h[j].Score }
func (h refHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *refHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func refSearch(ix *Vec, q []float32, f *Filter, k int) []Hit {
	qq := quantQuery(q, ix.stride)
	h := make(refHeap, 0, k+1)
	d := ix.stride
	for i := 0; i < ix.ids.slots(); i++ {
		if !f.Keep(&ix.meta[i]) {
			continue
		}
		sc := float32(dotI8Generic(qq.s, ix.vecs[i*d:(i+1)*d])) * ix.scale[i]
		if len(h) == k {
			if sc <= h[0].Score {
				continue
			}
			h[0] = Hit{i, sc}
			heap.Fix(&h, 0)
			continue
		}
		heap.Push(&h, Hit{i, sc})
	}
	out := make([]Hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Hit)
	}
	return out
}

// TestTopKRef: the scan returns what a plain int8 scan through
// container/heap does; with the int4 first stage, the same scores (rows
// of equal score may differ at the cut).
func TestTopKRef(t *testing.T) {
	for _, first4 := range []bool{false, true} {
		if first4 && !nibbleScan {
			continue
		}
		testTopKRef(t, first4)
	}
}

func testTopKRef(t *testing.T, first4 bool) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, dim := range []int{3, 16, 256} {
		ix := NewVec(dim)
		ix.first4 = first4 && ix.stride%128 == 0
		v := make([]float32, dim)
		for i := range 1000 {
			if i%3 != 0 {
				for j := range v {
					v[j] = float32(r.IntN(5) - 2)
				}
			}
			ix.Upsert(string(rune(0x100+i)), int64(i), NewMeta(memory.TierEvent, i%7 == 0, 0, false), v)
		}
		for range 20 {
			q := make([]float32, dim)
			for j := range q {
				q[j] = float32(r.IntN(5) - 2)
			}
			q[0] = 1
			q, _ = Normalise(q)
			f := NewFilter(memory.SearchOptions{})
			for _, k := range []int{1, 5, 66, 500} {
				got, want := ix.Search(q, &f, k, 1), refSearch(ix, q, &f, k)
				same := slices.Equal(got, want)
				if ix.first4 {
					same = slices.EqualFunc(got, want, func(a, b Hit) bool { return a.Score == b.Score })
				}
				if !same {
					t.Fatalf("dim %d k %d first4 %v: differ\n%v\n%v", dim, k, ix.first4, got[:min(10, len(got))], want[:min(10, len(want))])
				}
			}
		}
	}
}

// TestSelectBest: after selectBest(h, k), no score among h[:k] is below
// one among h[k:], on random scores with many ties, at every k.
func TestSelectBest(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for trial := range 2000 {
		n := 1 + r.IntN(300)
		h := make([]Hit, n)
		for i := range h {
			h[i] = Hit{i, float32(r.IntN(1 + trial%40))}
		}
		want := slices.Clone(h)
		k := 1 + r.IntN(n)
		selectBest(h, k)
		lo := h[0].Score
		for _, x := range h[:k] {
			lo = min(lo, x.Score)
		}
		for _, x := range h[k:] {
			if x.Score > lo {
				t.Fatalf("n=%d k=%d: %v left out, best k hold %v", n, k, x.Score, lo)
			}
		}
		slices.SortFunc(h, func(a, b Hit) int { return a.Slot - b.Slot })
		if !slices.Equal(h, want) {
			t.Fatalf("n=%d k=%d: rows lost or changed", n, k)
		}
	}
}
