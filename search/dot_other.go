//go:build !amd64

package search

func Dot(a, b []float32) float32 { return dotGeneric(a, b) }

func dotI8Batch(q query8, v []int8, out []int32) { dotI8BatchGeneric(q, v, out) }

const nibbleScan = false

func dotI4Batch(q query8, v []uint8, out []int32) { panic("no int4 kernel") }
