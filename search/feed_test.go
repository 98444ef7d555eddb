package search

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// fakeFeed is a Feed over rows in memory with PostgreSQL's visibility:
// every write belongs to a transaction (an increasing xid) and is seen
// only once that transaction committed; a read's position is its
// snapshot (xmax, the next xid, and the transactions still running), and
// a read since a position returns every row whose stamp that snapshot
// could not see. Transactions commit in any order.
type fakeFeed struct {
	mu      sync.Mutex
	next    uint64
	running map[uint64]bool
	rows    map[string]fakeRow // committed
	pending map[uint64][]fakeRow
	gone    map[string]uint64 // deleted id → deleting xid (committed)
	hits    map[string]int    // usage counters, outside the stamps
	reads   int
}

type fakeRow struct {
	m   *memory.Memory
	xid uint64
	ver int64
	del bool
}

// unseen reports whether the transaction xid is one m could not see.
func unseen(m Snapshot, xid uint64) bool {
	return xid >= m.Xmax || slices.Contains(m.Running, strconv.FormatUint(xid, 10))
}

func newFakeFeed() *fakeFeed {
	return &fakeFeed{next: 1, running: map[uint64]bool{}, rows: map[string]fakeRow{}, pending: map[uint64][]fakeRow{},
		gone: map[string]uint64{}, hits: map[string]int{}}
}

func (f *fakeFeed) begin() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	x := f.next
	f.next++
	f.running[x] = true
	return x
}

func (f *fakeFeed) write(xid uint64, m *memory.Memory) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m.Scope = scA
	f.pending[xid] = append(f.pending[xid], fakeRow{m: m.Clone(), xid: xid})
}

func (f *fakeFeed) delete(xid uint64, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending[xid] = append(f.pending[xid], fakeRow{m: &memory.Memory{ID: id}, xid: xid, del: true})
}

func (f *fakeFeed) commit(xid uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.pending[xid] {
		if r.del {
			delete(f.rows, r.m.ID)
			f.gone[r.m.ID] = xid
			continue
		}
		r.ver = f.rows[r.m.ID].ver + 1
		f.rows[r.m.ID] = r
	}
	delete(f.pending, xid)
	delete(f.running, xid)
}

// put writes and commits m in a transaction of its own.
func (f *fakeFeed) put(m *memory.Memory) {
	x := f.begin()
	f.write(x, m)
	f.commit(x)
}

func (f *fakeFeed) snapshot() Snapshot {
	m := Snapshot{Xmax: f.next}
	for x := range f.running {
		m.Running = append(m.Running, strconv.FormatUint(x, 10))
	}
	return m
}

func (f *fakeFeed) Start(context.Context) (Mark, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snapshot(), nil
}

func (f *fakeFeed) Count(_ context.Context, _ memory.Scope, bound int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return min(len(f.rows), bound), nil
}

func (f *fakeFeed) row(r fakeRow) *memory.Memory {
	m := r.m.Clone()
	m.Hits += f.hits[m.ID]
	return m
}

func (f *fakeFeed) Load(_ context.Context, _ memory.Scope, whole bool, add func(Row, *memory.Memory, int64)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rows {
		if whole {
			add(Row{}, f.row(r), r.ver)
		} else {
			add(RowOf(r.m, r.m.CreatedAt.UnixMicro()), nil, r.ver)
		}
	}
	return nil
}

func (f *fakeFeed) Read(_ context.Context, _ memory.Scope, since Mark, need, stale []string) (Delta, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	mark := since.(Snapshot)
	// The rows as a store's one statement returns them (Delta.Add).
	var d Delta
	for id, r := range f.rows {
		if changed := unseen(mark, r.xid); changed || slices.Contains(need, id) {
			d.Add(f.row(r), r.ver, changed)
		}
	}
	for id, x := range f.gone {
		if unseen(mark, x) {
			d.Add(&memory.Memory{ID: id}, VerGone, true)
		}
	}
	for _, id := range stale {
		if r, ok := f.rows[id]; ok {
			d.Add(f.row(r), VerUsage, false)
		}
	}
	d.Next = f.snapshot()
	return d, nil
}

func feedEngine(t *testing.T) (*fakeFeed, *Engine) {
	t.Helper()
	f := newFakeFeed()
	return f, NewFeedEngine(f, 2, Options{})
}

func hybridIDs(t *testing.T, e *Engine, q string, vec ...float32) (v, l []string) {
	t.Helper()
	vs, ls, err := e.Hybrid(context.Background(), scA, vec, q, memory.SearchOptions{At: at})
	if err != nil {
		t.Fatal(err)
	}
	return candIDs(vs), candIDs(ls)
}

// TestFeedLateCommit: a transaction that began before others and commits
// after them, and after a search read past them, is still seen: the
// position keeps the transactions running at the read, so a mark taken as
// "the highest stamp seen" (or xmax alone) would skip it.
func TestFeedLateCommit(t *testing.T) {
	f, e := feedEngine(t)
	f.put(mem("seed", "seed row", 0, 1))
	late := f.begin()
	f.write(late, mem("late", "late sailing", 1, 0))
	early := f.begin()
	f.write(early, mem("early", "early sailing", 0.9, 0.1))
	f.commit(early)
	v, _ := hybridIDs(t, e, "sailing", 1, 0)
	if !slices.Equal(v, []string{"early", "seed"}) {
		t.Fatalf("before the late commit: %v", v)
	}
	// Another write after the read: the position moves past it too.
	f.put(mem("after", "after sailing", 0.8, 0.2))
	if v, _ := hybridIDs(t, e, "sailing", 1, 0); !slices.Contains(v, "after") {
		t.Fatalf("a commit after the load: %v", v)
	}
	f.commit(late)
	v, l := hybridIDs(t, e, "sailing", 1, 0)
	if len(v) == 0 || v[0] != "late" || !slices.Contains(l, "late") {
		t.Errorf("after the late commit: vector %v, lexical %v, want late first", v, l)
	}
	// Once seen, a row is not read as changed again.
	before := e.Counters.Changed.Load()
	hybridIDs(t, e, "sailing", 1, 0)
	if n := e.Counters.Changed.Load() - before; n != 0 {
		t.Errorf("a later search read %d rows as changed, want 0", n)
	}
}

// TestFeedOtherWriters: updates, state changes and deletions by another
// process reach the index at the next search, whether or not the rows
// were among its candidates; a deleted row leaves the index, not only the
// results.
func TestFeedOtherWriters(t *testing.T) {
	f, e := feedEngine(t)
	x, y := mem("x", "the cello", 1, 0), mem("y", "the oboe", 0, 1)
	f.put(x)
	f.put(y)
	hybridIDs(t, e, "cello", 1, 0)
	y.Text = "the cello too"
	f.put(y)
	if _, l := hybridIDs(t, e, "cello", 1, 0); !slices.Equal(l, []string{"x", "y"}) && !slices.Equal(l, []string{"y", "x"}) {
		t.Errorf("after an update: %v", l)
	}
	now := at.Add(-time.Minute)
	x.ArchivedAt = &now
	f.put(x)
	if v, _ := hybridIDs(t, e, "cello", 1, 0); slices.Contains(v, "x") {
		t.Errorf("after archiving x: %v", v)
	}
	d := f.begin()
	f.delete(d, "y")
	f.commit(d)
	v, l := hybridIDs(t, e, "nothing matches", 1, 0) // y is no candidate of this query's text
	if slices.Contains(v, "y") || slices.Contains(l, "y") || e.Indexed(scA, "y") {
		t.Errorf("after deleting y: vector %v, lexical %v, indexed %v", v, l, e.Indexed(scA, "y"))
	}
}

// TestFeedApplyOrder: two reads of one row finishing out of order (the
// older version applied last) leave the newer in place.
func TestFeedApplyOrder(t *testing.T) {
	ix := &scopeIndex{vec: NewVec(2), lex: NewLex(), feed: true}
	ix.fs.reset()
	r := Row{ID: "a", Seq: 1, Meta: NewMeta(memory.TierSemantic, false, 0, false), Vec: []float32{1, 0}, Text: "new words"}
	if !ix.apply(r, 2) {
		t.Fatal("first apply refused")
	}
	old := r
	old.Text, old.Vec = "old words", []float32{0, 1}
	if ix.apply(old, 1) {
		t.Error("an older version replaced a newer one")
	}
	if ix.lex.DF("old") != 0 || ix.lex.DF("new") != 1 {
		t.Errorf("lexical index holds old %d, new %d", ix.lex.DF("old"), ix.lex.DF("new"))
	}
	if ix.apply(r, 2) {
		t.Error("the same version applied twice")
	}
}

// TestFeedUsageTTL: a small scope's rows are cached at load; another
// process's touches (outside the stamps) reach a cached row once RowTTL
// passed, and then only its counters are read; this process's touches
// update the cache at once.
func TestFeedUsageTTL(t *testing.T) {
	f, e := feedEngine(t)
	var clock time.Duration
	e.SetClock(func() time.Time { return time.Now().Add(clock) })
	f.put(mem("x", "tea", 1, 0))
	hits := func() int {
		t.Helper()
		cs, err := e.Vector(context.Background(), scA, []float32{1, 0}, memory.SearchOptions{At: at})
		if err != nil || len(cs) != 1 {
			t.Fatalf("search = %v, %v", cs, err)
		}
		return cs[0].Memory.Hits
	}
	hits()
	if n := e.Counters.Fetched.Load(); n != 0 {
		t.Errorf("a small scope's search fetched %d rows, want 0 (cached at load)", n)
	}
	f.mu.Lock()
	f.hits["x"] = 2 // another process's touches
	f.mu.Unlock()
	if h := hits(); h != 0 {
		t.Fatalf("within RowTTL: hits %d, want the cached 0", h)
	}
	e.EndTouch(scA, []string{"x"}, at, true) // this process's touch
	if h := hits(); h != 1 {
		t.Fatalf("after a touch of this process: hits %d, want 1", h)
	}
	clock = RowTTL + time.Second
	if h := hits(); h != 2 {
		t.Fatalf("after RowTTL: hits %d, want the stored 2", h)
	}
	if n := e.Counters.Refreshed.Load(); n != 1 {
		t.Errorf("%d rows' counters read again, want 1", n)
	}
}

// TestFeedEviction: an unloaded scope reloads from a fresh position and
// sees what was committed meanwhile.
func TestFeedEviction(t *testing.T) {
	f, e := feedEngine(t)
	f.put(mem("x", "tea", 1, 0))
	hybridIDs(t, e, "tea", 1, 0)
	e.SetLimit(1)
	e.ForgetUser(scA.User, "")
	f.put(mem("y", "tea too", 0.9, 0.1))
	if v, _ := hybridIDs(t, e, "tea", 1, 0); !slices.Equal(v, []string{"x", "y"}) {
		t.Errorf("after reloading: %v", v)
	}
}

// TestFeedRerankCached: when a search's read brings a change that moves
// its ranking, it ranks again; rows the new ranking needs that the cache
// holds fresh cost no second read (the first one already brought every
// change committed before the search began), and the result is the
// ranking after the change.
func TestFeedRerankCached(t *testing.T) {
	f, e := feedEngine(t)
	f.put(mem("x", "tea tea", 1, 0))
	f.put(mem("y", "tea green", 0, 1))
	lex := func() []string {
		t.Helper()
		cs, err := e.Lexical(context.Background(), scA, "tea", memory.SearchOptions{At: at, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return candIDs(cs)
	}
	if got := lex(); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("before the deletion: %v", got)
	}
	d := f.begin()
	f.delete(d, "x") // another process
	f.commit(d)
	reads := f.reads
	if got := lex(); !slices.Equal(got, []string{"y"}) {
		t.Fatalf("after another process deleted x: %v, want [y]", got)
	}
	if n := f.reads - reads; n != 1 {
		t.Errorf("the search read %d times, want 1 (y was cached at load)", n)
	}
	if n := e.Counters.Fetched.Load(); n != 0 {
		t.Errorf("fetched %d rows, want 0", n)
	}
}
