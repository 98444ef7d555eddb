package embed

import (
	"context"
	"math"
	"testing"
)

// FuzzLocal: the local embedder returns, for any text, a vector of its
// dimension whose components are finite and whose length is 1 (or 0 for
// a text with no features).
func FuzzLocal(f *testing.F) {
	for _, s := range []string{"I moved to Lisbon.", "上个月我搬到了上海", "isſecret \u212aelvin 0\x80", "", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} {
		f.Add(s)
	}
	e := NewLocal(64)
	f.Fuzz(func(t *testing.T, s string) {
		vs, err := e.Embed(context.Background(), []string{s})
		if err != nil || len(vs) != 1 || len(vs[0]) != 64 {
			t.Fatalf("Embed(%q) = %d vectors, %v", s, len(vs), err)
		}
		var n float64
		for _, x := range vs[0] {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("Embed(%q) has %v", s, x)
			}
			n += float64(x) * float64(x)
		}
		if n != 0 && math.Abs(n-1) > 1e-4 {
			t.Fatalf("Embed(%q) has length² %v", s, n)
		}
	})
}
