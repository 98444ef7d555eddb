package search

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel; vector search is the hot loop of
// recall and the scalar loop is several times slower.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b *float32, n int) float32

func Dot(a, b []float32) float32 {
	if useAVX2 && len(a) > 0 {
		b = b[:len(a)]
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGeneric(a, b)
}

//go:noescape
func dotI8AVX2(q *int16, v *int8, n int) int32

// dotI8 is the inner product of a quantised query and row; len(q) ==
// len(v) is a multiple of 16.
func dotI8(q []int16, v []int8) int32 {
	if useAVX2 && len(q) > 0 {
		v = v[:len(q)]
		return dotI8AVX2(&q[0], &v[0], len(q))
	}
	return dotI8Generic(q, v)
}

//go:noescape
func dotI8BatchAVX2(q *int16, v *int8, n, rows int, out *int32)

// dotI8Batch writes to out[r] the inner product of q and row r of v (rows
// of len(q) each, len(v) == len(out)*len(q)).
func dotI8Batch(q []int16, v []int8, out []int32) {
	if useAVX2 && len(q) > 0 && len(out) > 0 {
		v = v[:len(out)*len(q)]
		dotI8BatchAVX2(&q[0], &v[0], len(q), len(out), &out[0])
		return
	}
	dotI8BatchGeneric(q, v, out)
}
