package search

// i4Kernels are the int4 kernels this machine runs, by name: each is
// tested, not only the one dotI4Batch picks.
func i4Kernels() map[string]func(q query8, v []uint8, out []int32) {
	ks := map[string]func(q query8, v []uint8, out []int32){}
	if useVNNI {
		ks["vnni"] = func(q query8, v []uint8, out []int32) {
			nb := len(q.s) / 2
			dotI4BatchVNNI(&q.s[0], &v[0], nb, len(out), &out[0], q.corr/16)
		}
	}
	if useAVX2 {
		ks["avx2"] = func(q query8, v []uint8, out []int32) {
			nb := len(q.s) / 2
			dotI4BatchAVX2(&q.s[0], &v[0], nb, len(out), &out[0], q.corr/16)
		}
	}
	return ks
}
