//go:build !amd64

package search

func Dot(a, b []float32) float32 { return dotGeneric(a, b) }

func dotI8(q []int16, v []int8) int32 { return dotI8Generic(q, v) }

func dotI8Batch(q []int16, v []int8, out []int32) { dotI8BatchGeneric(q, v, out) }
