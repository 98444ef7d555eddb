package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

func TestDot(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 3, 7, 8, 9, 31, 32, 33, 64, 100, 256, 384, 1536} {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			want += float64(a[i]) * float64(b[i])
		}
		for name, got := range map[string]float32{"dot": Dot(a, b), "generic": dotGeneric(a, b)} {
			if math.Abs(float64(got)-want) > 1e-4*math.Sqrt(float64(n)) {
				t.Errorf("%s n=%d: %v, want %v", name, n, got, want)
			}
		}
	}
}

func BenchmarkDot(b *testing.B) {
	a, v := make([]float32, 256), make([]float32, 256)
	for i := range a {
		a[i], v[i] = float32(i), float32(-i)
	}
	b.Run("dot", func(b *testing.B) {
		for b.Loop() {
			Dot(a, v)
		}
	})
	b.Run("generic", func(b *testing.B) {
		for b.Loop() {
			dotGeneric(a, v)
		}
	})
}

// randQuery8 is a quantised query of n components in [-127, 127], the
// extremes included.
func randQuery8(r *rand.Rand, n int) query8 {
	f := make([]float32, n)
	for i := range f {
		f[i] = float32(r.IntN(255) - 127)
	}
	f[r.IntN(n)] = 127
	f[r.IntN(n)] = -127
	return quantQuery(f, n)
}

// TestDotI8Batch checks the kernel against plain arithmetic on every row
// count around its groups of four, lengths with and without a 16-byte
// tail, and the extreme values (|q|*|v| = 127*127 in every pair).
func TestDotI8Batch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{16, 32, 48, 64, 128, 256, 1536} {
		for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 9, 128} {
			q, v := randQuery8(r, n), make([]int8, n*rows)
			for i := range v {
				v[i] = int8(r.IntN(255) - 127)
			}
			if rows == 3 {
				for i := range n { // the worst case for saturation
					q.s[i], q.a[i], v[i] = 127, 127, 127
					v[n+i] = -127 * int8(1-2*(i%2))
				}
				q.sum()
			}
			got, gen := make([]int32, rows), make([]int32, rows)
			dotI8Batch(q, v, got)
			dotI8BatchGeneric(q, v, gen)
			kern := map[string][]int32{}
			for name, f := range i8Kernels(n) {
				kern[name] = make([]int32, rows)
				f(q, v, kern[name])
			}
			for k := range rows {
				var want int64
				for i := range n {
					want += int64(q.s[i]) * int64(v[k*n+i])
				}
				if int64(got[k]) != want || int64(gen[k]) != want {
					t.Errorf("n=%d rows=%d row %d: batch %d, generic batch %d, want %d", n, rows, k, got[k], gen[k], want)
				}
				for name, out := range kern {
					if int64(out[k]) != want {
						t.Errorf("n=%d rows=%d row %d: %s kernel %d, want %d", n, rows, k, name, out[k], want)
					}
				}
			}
		}
	}
}

func BenchmarkVecSearch(b *testing.B) {
	const n, dim = 10000, 256
	r := rand.New(rand.NewPCG(5, 6))
	ix := NewVec(dim)
	v := make([]float32, dim)
	for i := range n {
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		ix.Upsert(string(rune('a'+i%26))+string(rune(i)), int64(i), Meta{}, v)
	}
	q := make([]float32, dim)
	for j := range q {
		q[j] = float32(r.NormFloat64())
	}
	q, _ = Normalise(q)
	f := NewFilter(memory.SearchOptions{})
	b.ReportAllocs()
	for b.Loop() {
		if len(ix.Search(q, &f, 66, 1)) != 66 {
			b.Fatal("short result")
		}
	}
}

// BenchmarkVecSearchScopes is BenchmarkVecSearch over eight such scopes
// in turn, as a server with several busy users scans them: 20 MB of int8
// rows, more than the caches hold, so the scan waits on memory.
func BenchmarkVecSearchScopes(b *testing.B) {
	const n, dim, scopes = 10000, 256, 8
	r := rand.New(rand.NewPCG(5, 6))
	ixs := make([]*Vec, scopes)
	v := make([]float32, dim)
	for s := range ixs {
		ixs[s] = NewVec(dim)
		for i := range n {
			for j := range v {
				v[j] = float32(r.NormFloat64())
			}
			ixs[s].Upsert(fmt.Sprint(s, "-", i), int64(i), Meta{}, v)
		}
	}
	q := make([]float32, dim)
	for j := range q {
		q[j] = float32(r.NormFloat64())
	}
	q, _ = Normalise(q)
	f := NewFilter(memory.SearchOptions{})
	i := 0
	for b.Loop() {
		if len(ixs[i%scopes].Search(q, &f, 36, 1)) != 36 {
			b.Fatal("short result")
		}
		i++
	}
}

// normaliseRef is NormaliseInto as plain loops.
func normaliseRef(dst, v []float32) bool {
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return false
	}
	inv := 1 / math.Sqrt(n)
	for i, f := range v {
		dst[i] = float32(float64(f) * inv)
	}
	return true
}

// TestNormaliseIntoRef: the unrolled normalisation gives the plain loops'
// result to the bit, at every length and scale, and refuses what they
// refuse.
func TestNormaliseIntoRef(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 3000 {
		n := trial % 67
		v := make([]float32, n)
		scale := math.Pow(10, float64(r.IntN(20)-10))
		for i := range v {
			v[i] = float32(r.NormFloat64() * scale)
		}
		if trial%50 == 0 && n > 0 {
			v[r.IntN(n)] = float32(math.Inf(1))
		}
		got, want := make([]float32, n), make([]float32, n)
		okGot, okWant := NormaliseInto(got, v), normaliseRef(want, v)
		if okGot != okWant {
			t.Fatalf("trial %d: ok %v, want %v", trial, okGot, okWant)
		}
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("trial %d, element %d: %v, want %v", trial, i, got[i], want[i])
			}
		}
	}
}

// TestDotI4Batch checks the int4 kernel against plain arithmetic on rows
// stored by Upsert (components -7..7 with 7 the largest, so stored
// exactly), every row count around its groups of four and the extremes.
func TestDotI4Batch(t *testing.T) {
	if !nibbleScan {
		t.Skip("no int4 kernel on this machine")
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{128, 256, 384, 1536} {
		for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 9, 128} {
			ix := NewVec(n)
			xs := make([][]float32, rows)
			for k := range rows {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(r.IntN(15) - 7)
					if k == 2 {
						x[i] = float32(7 * (1 - 2*(i%2))) // the extremes
					}
				}
				x[r.IntN(n)] = 7
				xs[k] = x
				ix.Upsert(fmt.Sprint("r", k), int64(k), Meta{}, x)
			}
			q := randQuery8(r, n)
			if rows == 3 {
				for i := range n {
					q.s[i] = 127
				}
				q.sum()
			}
			for name, kernel := range i4Kernels() {
				got := make([]int32, rows)
				kernel(q, ix.nib[:rows*n/2], got)
				for k := range rows {
					var want int64
					for i := range n {
						want += int64(q.s[i]) * int64(xs[k][i])
					}
					if int64(got[k]) != want {
						t.Errorf("%s n=%d rows=%d row %d: %d, want %d", name, n, rows, k, got[k], want)
					}
				}
			}
		}
	}
}
