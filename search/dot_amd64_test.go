package search

// i8Kernels are the int8 kernels this machine runs, by name, each as
// dotI8Batch's signature (the dispatching one is tested on its own).
func i8Kernels(n int) map[string]func(q query8, v []int8, out []int32) {
	k := map[string]func(query8, []int8, []int32){}
	if useAVX2 {
		k["avx2"] = func(q query8, v []int8, out []int32) {
			dotI8BatchAVX2(&q.a[0], &q.s[0], &v[0], len(q.s), len(out), &out[0])
		}
	}
	if useVNNI && n%64 == 0 {
		k["vnni"] = func(q query8, v []int8, out []int32) {
			dotI8BatchVNNI(&q.s[0], &v[0], len(q.s), len(out), &out[0], q.corr)
		}
	}
	return k
}
