package search

import (
	"context"
	"fmt"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// VectorLimit shortens the vector list only: the lexical list keeps Limit,
// on an engine over a Source and on one following a change feed.
func TestVectorLimit(t *testing.T) {
	src := newFake()
	e := NewEngine(src, 2, Options{})
	f, fe := feedEngine(t)
	for i := range 12 {
		m := mem(fmt.Sprintf("m%02d", i), "sailing on the lake", 1, float32(i)/10)
		src.put(scA, m)
		f.put(mem(m.ID, m.Text, 1, float32(i)/10))
	}
	o := memory.SearchOptions{At: at, Limit: 8, VectorLimit: 3}
	for name, eng := range map[string]*Engine{"source": e, "feed": fe} {
		v, l, err := eng.Hybrid(context.Background(), scA, []float32{1, 0}, "sailing", o)
		if err != nil {
			t.Fatal(err)
		}
		if len(v) != 3 || len(l) != 8 {
			t.Errorf("%s hybrid: %d vector and %d lexical hits, want 3 and 8", name, len(v), len(l))
		}
		if v, err = eng.Vector(context.Background(), scA, []float32{1, 0}, o); err != nil || len(v) != 3 {
			t.Errorf("%s vector: %d hits (%v), want 3", name, len(v), err)
		}
		o2 := o
		o2.VectorLimit = 0
		if v, err = eng.Vector(context.Background(), scA, []float32{1, 0}, o2); err != nil || len(v) != 8 {
			t.Errorf("%s vector without VectorLimit: %d hits (%v), want Limit 8", name, len(v), err)
		}
	}
}
