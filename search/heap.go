package search

// The searches' bounded heaps use container/heap's algorithms on typed
// slices: the same sift steps, so the same order for equal keys, without
// boxing each pushed and popped element in an interface (an allocation
// each, dozens per search).

type heapSlice[E any] interface {
	~[]E
	Less(i, j int) bool
}

// hPush is heap.Push.
func hPush[H heapSlice[E], E any](h *H, x E) {
	*h = append(*h, x)
	hUp(*h, len(*h)-1)
}

// hPop is heap.Pop.
func hPop[H heapSlice[E], E any](h *H) E {
	s := *h
	n := len(s) - 1
	s[0], s[n] = s[n], s[0]
	hDown(s, 0, n)
	x := s[n]
	*h = s[:n]
	return x
}

// hFix is heap.Fix.
func hFix[H heapSlice[E], E any](h H, i int) {
	if !hDown(h, i, len(h)) {
		hUp(h, i)
	}
}

func hUp[H heapSlice[E], E any](h H, j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.Less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func hDown[H heapSlice[E], E any](h H, i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.Less(j2, j1) {
			j = j2 // right child
		}
		if !h.Less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	return i > i0
}
