package search

import (
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// BenchmarkIndexGC is what loaded indexes cost the garbage collector: 8
// scopes of 10,000 rows (256 dimensions, 12-word texts) held, one full
// collection per iteration. It reports the heap the collector scans
// (scan-MB: the pointer-holding part it traces every cycle) and the heap's
// objects it marks (objects-k), which do not move with the machine's
// load, besides the collection's time.
//
//	go test ./search -run '^$' -bench BenchmarkIndexGC -benchtime 20x
func BenchmarkIndexGC(b *testing.B) {
	r := rand.New(rand.NewPCG(21, 22))
	word := func() string { return "w" + strconv.Itoa(int(r.ExpFloat64()*3000)) }
	type scope struct {
		vec *Vec
		lex *Lex
	}
	var scopes []scope
	v := make([]float32, 256)
	exp := time.Now().Add(time.Hour).UnixMicro()
	for range 8 {
		s := scope{NewVec(256), NewLex()}
		for i := range 10000 {
			id := memory.NewID()
			for k := range v {
				v[k] = float32(r.NormFloat64())
			}
			var sb strings.Builder
			for range 12 {
				sb.WriteString(word() + " ")
			}
			var m Meta
			if i%10 == 0 {
				m = NewMeta(memory.TierSemantic, false, exp, false)
			} else {
				m = NewMeta(memory.TierEvent, false, 0, false)
			}
			s.vec.Upsert(id, int64(i), m, v)
			s.lex.Upsert(id, int64(i), m, sb.String())
		}
		scopes = append(scopes, s)
	}
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}, {Name: "/gc/heap/objects:objects"}}
	metrics.Read(sample)
	for b.Loop() {
		runtime.GC()
	}
	b.ReportMetric(float64(sample[0].Value.Uint64())/(1<<20), "scan-MB")
	b.ReportMetric(float64(sample[1].Value.Uint64())/1000, "objects-k")
	runtime.KeepAlive(scopes)
}
