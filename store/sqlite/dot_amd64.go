package sqlite

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel; vector search is the hot loop of
// recall and the scalar loop is several times slower.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b *float32, n int) float32

func dot(a, b []float32) float32 {
	if useAVX2 && len(a) > 0 {
		b = b[:len(a)]
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGeneric(a, b)
}
