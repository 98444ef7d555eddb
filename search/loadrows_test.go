package search

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// rowLoader is the fake source that also loads scopes whole.
type rowLoader struct {
	*fakeSource
	whole int // LoadRows calls
}

func (r *rowLoader) Count(_ context.Context, sc memory.Scope, most int) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return min(len(r.rows[sc]), most+1), nil
}

func (r *rowLoader) LoadRows(_ context.Context, sc memory.Scope, add func(Row, *memory.Memory)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.whole++
	for id, m := range r.rows[sc] {
		add(RowOf(m, r.seqs[id]), m.Clone())
	}
	return nil
}

// A scope that fits its share of the row cache loads whole: its searches
// read no row back, and still see every write. A larger one loads its
// index only and reads the rows its searches return.
func TestLoadRowsWhole(t *testing.T) {
	src := &rowLoader{fakeSource: newFake()}
	for i := range 20 {
		src.put(scA, mem(fmt.Sprint("a", i), fmt.Sprintf("sailing trip number %d", i), 1, float32(i)/100))
	}
	e := NewEngine(src, 2, Options{})
	if got := vecIDs(t, e, scA, 1, 0); len(got) != 20 {
		t.Fatalf("first search = %v", got)
	}
	lexIDs(t, e, scA, "sailing")
	if src.whole != 1 || src.reads != 0 {
		t.Fatalf("loaded whole %d times, %d reads; want 1 and none", src.whole, src.reads)
	}
	// A write after the load: the changed row is read back, once.
	m := mem("a3", "sailing trip to the islands", 1, 0.03)
	src.put(scA, m)
	e.Changed(context.Background(), scA, []string{"a3"})
	if got := lexIDs(t, e, scA, "islands"); !slices.Equal(got, []string{"a3"}) {
		t.Fatalf("after an update, islands = %v", got)
	}
	ms, ok, err := e.Tier(context.Background(), scA, memory.TierSemantic, memory.SearchOptions{}, 100)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	for _, got := range ms {
		if got.ID == "a3" && got.Text != m.Text {
			t.Errorf("a3 from the cache = %q, want the update", got.Text)
		}
	}
	if src.reads != 1 {
		t.Errorf("reads after one changed row = %d, want 1", src.reads)
	}

	// A scope larger than its share loads its index only.
	small := &rowLoader{fakeSource: newFake()}
	e2 := NewEngine(small, 2, Options{RowCacheBytes: rowLoadShare * (4*2 + 600) * 5})
	for i := range 6 {
		small.put(scB, mem(fmt.Sprint("b", i), "a cello lesson", 1, 0))
	}
	vecIDs(t, e2, scB, 1, 0)
	if small.whole != 0 || small.loads != 1 || small.reads == 0 {
		t.Errorf("large scope: whole %d, loads %d, reads %d; want 0, 1, some", small.whole, small.loads, small.reads)
	}
}

// Tier on a scope not loaded sends the caller to the store and starts the
// load, which the next search shares.
func TestTierColdScope(t *testing.T) {
	src := newFake()
	src.put(scA, mem("p", "the user's name is Ada", 1, 0))
	e := NewEngine(src, 2, Options{})
	if _, ok, err := e.Tier(context.Background(), scA, memory.TierSemantic, memory.SearchOptions{}, 10); err != nil || ok {
		t.Fatalf("cold Tier = ok %v, err %v; want not ok", ok, err)
	}
	if got := vecIDs(t, e, scA, 1, 0); !slices.Equal(got, []string{"p"}) {
		t.Fatalf("search = %v", got)
	}
	ms, ok, err := e.Tier(context.Background(), scA, memory.TierSemantic, memory.SearchOptions{}, 10)
	if err != nil || !ok || len(ms) != 1 {
		t.Fatalf("loaded Tier = %v, %v, %v", memIDs(ms), ok, err)
	}
	if src.loads != 1 {
		t.Errorf("loads = %d, want the one Tier started", src.loads)
	}
}

func memIDs(ms []*memory.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// CachedRows hands out the rows the cache holds, of the scope asked for
// only, and names the rest for the caller to read.
func TestCachedRows(t *testing.T) {
	src := &rowLoader{fakeSource: newFake()}
	for i := range 5 {
		src.put(scA, mem(fmt.Sprint("a", i), fmt.Sprintf("a walk by the river, day %d", i), 1, float32(i)/10))
	}
	e := NewEngine(src, 2, Options{})
	s := e.Searches(func(memory.Scope) error { return nil })
	if _, miss, err := s.CachedRows(scA, []string{"a1"}); err != nil || !slices.Equal(miss, []string{"a1"}) {
		t.Fatalf("before the scope loaded: miss %v, %v; want a1", miss, err)
	}
	vecIDs(t, e, scA, 1, 0) // loads the scope whole
	found, miss, err := s.CachedRows(scA, []string{"a1", "nope", "a4"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(miss, []string{"nope"}) || len(found) != 2 {
		t.Fatalf("found %d, miss %v; want a1 and a4, and nope", len(found), miss)
	}
	if m := found["a4"]; m == nil || m.Text != "a walk by the river, day 4" || m.Scope != scA {
		t.Errorf("a4 = %+v", m)
	}
	if found, miss, _ := s.CachedRows(scB, []string{"a1"}); len(found) != 0 || !slices.Equal(miss, []string{"a1"}) {
		t.Errorf("another scope's row handed out: found %d, miss %v", len(found), miss)
	}
	refuse := e.Searches(func(memory.Scope) error { return memory.ErrInvalidScope })
	if _, _, err := refuse.CachedRows(scA, []string{"a1"}); err == nil {
		t.Error("a scope the store refuses was read")
	}
}
