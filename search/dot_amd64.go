package search

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel; vector search is the hot loop of
// recall and the scalar loop is several times slower.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useVNNI selects the AVX-512 VNNI int8 kernel (rows a multiple of 64
// bytes): a third of the AVX2 kernel's instructions per byte.
var useVNNI = useAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VNNI

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
func dotI8BatchAVX2(qa *uint8, qs *int8, v *int8, n, rows int, out *int32)

//go:noescape
func dotI4BatchVNNI(qs *int8, v *uint8, nb, rows int, out *int32, corr int32)

//go:noescape
func dotI4BatchAVX2(qs *int8, v *uint8, nb, rows int, out *int32, corr int32)

// nibbleScan: the first stage over int4 rows runs (see Vec), on VNNI's
// kernel or AVX2's. On AVX2 the int8 scan of a 10k-row scope waited on
// memory (BenchmarkVecSearchScopes), so half the bytes pay there too.
var nibbleScan = useVNNI || useAVX2

// dotI4Batch writes to out[r] the inner product of q and the int4 row r
// of v (len(q.s)/2 bytes each; len(q.s) a multiple of 128).
func dotI4Batch(q query8, v []uint8, out []int32) {
	nb := len(q.s) / 2
	v = v[:len(out)*nb]
	if useVNNI {
		dotI4BatchVNNI(&q.s[0], &v[0], nb, len(out), &out[0], q.corr/16)
		return
	}
	dotI4BatchAVX2(&q.s[0], &v[0], nb, len(out), &out[0], q.corr/16)
}

//go:noescape
func dotI8BatchVNNI(qs *int8, v *int8, n, rows int, out *int32, corr int32)

// dotI8Batch writes to out[r] the inner product of q and row r of v (rows
// of len(q.s) each, len(v) == len(out)*len(q.s)).
func dotI8Batch(q query8, v []int8, out []int32) {
	if useVNNI && len(q.s)%64 == 0 && len(q.s) > 0 && len(out) > 0 {
		v = v[:len(out)*len(q.s)]
		dotI8BatchVNNI(&q.s[0], &v[0], len(q.s), len(out), &out[0], q.corr)
		return
	}
	if useAVX2 && len(q.s) > 0 && len(out) > 0 {
		v = v[:len(out)*len(q.s)]
		dotI8BatchAVX2(&q.a[0], &q.s[0], &v[0], len(q.s), len(out), &out[0])
		return
	}
	dotI8BatchGeneric(q, v, out)
}
