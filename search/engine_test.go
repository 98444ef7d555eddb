package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// fakeSource is a Source over rows in memory, as a store holds them; a
// test can hold a read of Memories in the middle (after it read, before it
// returns) to interleave writes with it.
type fakeSource struct {
	mu       sync.Mutex
	seq      int64
	rows     map[memory.Scope]map[string]*memory.Memory
	seqs     map[string]int64
	loads    int
	reads    int // Memories calls
	rowsRead int // rows IndexRows read
	fail     error
	holdMu   sync.Mutex
	hold     func() // called inside Memories after the read, when set
}

func newFake() *fakeSource {
	return &fakeSource{rows: map[memory.Scope]map[string]*memory.Memory{}, seqs: map[string]int64{}}
}

// put writes (inserts or replaces) m and returns its row.
func (f *fakeSource) put(sc memory.Scope, m *memory.Memory) Row {
	f.mu.Lock()
	defer f.mu.Unlock()
	m.Scope = sc
	if f.rows[sc] == nil {
		f.rows[sc] = map[string]*memory.Memory{}
	}
	if _, ok := f.seqs[m.ID]; !ok {
		f.seq++
		f.seqs[m.ID] = f.seq
	}
	f.rows[sc][m.ID] = m.Clone()
	return RowOf(m, f.seqs[m.ID])
}

func (f *fakeSource) del(sc memory.Scope, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.rows[sc], id)
}

func (f *fakeSource) Load(_ context.Context, sc memory.Scope, add func(Row)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.loads++
	for id, m := range f.rows[sc] {
		add(RowOf(m, f.seqs[id]))
	}
	return nil
}

func (f *fakeSource) IndexRows(_ context.Context, sc memory.Scope, ids []string, add func(Row)) error {
	return f.each(sc, ids, func(r Row) {
		f.rowsRead++
		add(r)
	})
}

// each calls add with the row of each of ids still in the scope, under
// the lock; the failure set by the test is returned instead.
func (f *fakeSource) each(sc memory.Scope, ids []string, add func(Row)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	for _, id := range ids {
		if m, ok := f.rows[sc][id]; ok {
			add(RowOf(m, f.seqs[id]))
		}
	}
	return nil
}

func (f *fakeSource) Memories(_ context.Context, sc memory.Scope, ids []string, _ []int64) (map[string]*memory.Memory, error) {
	f.mu.Lock()
	if f.fail != nil {
		f.mu.Unlock()
		return nil, f.fail
	}
	f.reads++
	out := map[string]*memory.Memory{}
	for _, id := range ids {
		if m, ok := f.rows[sc][id]; ok {
			out[id] = m.Clone()
		}
	}
	f.mu.Unlock()
	f.holdMu.Lock()
	hold := f.hold
	f.holdMu.Unlock()
	if hold != nil {
		hold()
	}
	return out, nil
}

func (f *fakeSource) setHold(h func()) {
	f.holdMu.Lock()
	f.hold = h
	f.holdMu.Unlock()
}

func (f *fakeSource) counts() (loads, reads int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.loads, f.reads
}

var (
	scA = memory.Scope{User: "a", Namespace: "default"}
	scB = memory.Scope{User: "b", Namespace: "default"}
	at  = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

func mem(id, text string, vec ...float32) *memory.Memory {
	return &memory.Memory{ID: id, Tier: memory.TierSemantic, Text: text, Embedding: vec, CreatedAt: at, LastUsedAt: at, ValidFrom: at}
}

func vecIDs(t *testing.T, e *Engine, sc memory.Scope, q ...float32) []string {
	t.Helper()
	cs, err := e.Vector(context.Background(), sc, q, memory.SearchOptions{At: at})
	if err != nil {
		t.Fatal(err)
	}
	return candIDs(cs)
}

func lexIDs(t *testing.T, e *Engine, sc memory.Scope, q string) []string {
	t.Helper()
	cs, err := e.Lexical(context.Background(), sc, q, memory.SearchOptions{At: at})
	if err != nil {
		t.Fatal(err)
	}
	return candIDs(cs)
}

func candIDs(cs []memory.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Memory.ID
	}
	return out
}

// TestEngineFollowsWrites: once loaded, the indexes follow every write the
// store reports, written rows (inserts) and changed ids (updates,
// deletions, archiving) alike, without loading again.
func TestEngineFollowsWrites(t *testing.T) {
	src := newFake()
	e := NewEngine(src, 2, Options{})
	src.put(scA, mem("x", "sailing on the lake", 1, 0))
	if got := vecIDs(t, e, scA, 1, 0); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("first search = %v", got)
	}
	y := mem("y", "a cello lesson", 0.9, 0.1)
	e.Written(scA, []Row{src.put(scA, y)}, nil)
	if got := vecIDs(t, e, scA, 1, 0); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("after an insert = %v", got)
	}
	y.Text = "a violin lesson"
	src.put(scA, y)
	e.Changed(context.Background(), scA, []string{"y"})
	if got := lexIDs(t, e, scA, "violin"); !slices.Equal(got, []string{"y"}) {
		t.Errorf("after an update, violin = %v", got)
	}
	if got := lexIDs(t, e, scA, "cello"); len(got) != 0 {
		t.Errorf("after an update, cello = %v", got)
	}
	now := at.Add(-time.Hour)
	x := mem("x", "sailing on the lake", 1, 0)
	x.ArchivedAt = &now
	src.put(scA, x)
	e.Changed(context.Background(), scA, []string{"x"})
	if got := vecIDs(t, e, scA, 1, 0); !slices.Equal(got, []string{"y"}) {
		t.Errorf("after archiving x = %v", got)
	}
	src.del(scA, "y")
	e.Changed(context.Background(), scA, []string{"y"})
	if got := vecIDs(t, e, scA, 1, 0); len(got) != 0 {
		t.Errorf("after deleting y = %v", got)
	}
	// Not only filtered out by the read-back: gone from the indexes, where
	// it would take a ranking's place.
	if ix := e.scopes[scA]; ix.vec.Has("y") || ix.lex.Has("y") {
		t.Error("the deleted row is still indexed")
	}
	if loads, _ := src.counts(); loads != 1 {
		t.Errorf("%d loads, want 1", loads)
	}
}

// metaSource is a fakeSource that reads rows' metadata alone.
type metaSource struct{ *fakeSource }

func (f metaSource) IndexMeta(_ context.Context, sc memory.Scope, ids []string, add func(string, int64, Meta)) error {
	return f.each(sc, ids, func(r Row) { add(r.ID, r.Seq, r.Meta) })
}

// TestEngineMetaChanged: archiving, restoring and marking consolidated
// reach the indexes through the rows' metadata alone (no row read whole
// again), a row the indexes do not hold yet is read whole, and a deleted
// one leaves them.
func TestEngineMetaChanged(t *testing.T) {
	fake := newFake()
	src := metaSource{fake}
	e := NewEngine(src, 2, Options{})
	x := mem("x", "sailing on the lake", 1, 0)
	y := mem("y", "a cello lesson", 0.9, 0.1)
	y.Tier = memory.TierEvent
	fake.put(scA, x)
	fake.put(scA, y)
	if got := vecIDs(t, e, scA, 1, 0); !slices.Equal(got, []string{"x", "y"}) {
		t.Fatalf("first search = %v", got)
	}
	rowsRead := func() int {
		fake.mu.Lock()
		defer fake.mu.Unlock()
		return fake.rowsRead
	}
	now := at.Add(-time.Hour)
	x.ArchivedAt = &now
	fake.put(scA, x)
	e.MetaChanged(context.Background(), scA, []string{"x"})
	if got := vecIDs(t, e, scA, 1, 0); !slices.Equal(got, []string{"y"}) {
		t.Errorf("after archiving x: vector %v", got)
	}
	if got := lexIDs(t, e, scA, "sailing"); len(got) != 0 {
		t.Errorf("after archiving x: lexical %v", got)
	}
	x.ArchivedAt = nil
	fake.put(scA, x)
	e.MetaChanged(context.Background(), scA, []string{"x"})
	if got := lexIDs(t, e, scA, "sailing"); !slices.Equal(got, []string{"x"}) {
		t.Errorf("after restoring x: lexical %v (its terms must stay indexed)", got)
	}
	y.ConsolidatedAt = &now
	fake.put(scA, y)
	e.MetaChanged(context.Background(), scA, []string{"y"})
	if ix := e.scopes[scA]; ix == nil || !ix.lex.Has("y") {
		t.Fatal("y left the index")
	} else if i, _ := ix.vec.ids.find("y"); !ix.vec.meta[i].consolidated {
		t.Error("after marking y consolidated: its vector row's metadata says not")
	}
	if n := rowsRead(); n != 0 {
		t.Errorf("%d rows read whole for metadata changes, want none", n)
	}
	z := mem("z", "a lake in the mountains", 1, 0.2)
	fake.put(scA, z)
	e.MetaChanged(context.Background(), scA, []string{"z"})
	if got := lexIDs(t, e, scA, "mountains"); !slices.Equal(got, []string{"z"}) {
		t.Errorf("a row not indexed before: lexical %v", got)
	}
	if n := rowsRead(); n != 1 {
		t.Errorf("%d rows read whole, want the one not indexed", n)
	}
	fake.del(scA, "x")
	e.MetaChanged(context.Background(), scA, []string{"x"})
	if ix := e.scopes[scA]; ix.vec.Has("x") || ix.lex.Has("x") {
		t.Error("a deleted row is still indexed")
	}
}

// TestEngineReadRacesWrite interleaves a search's read of its candidate
// rows with a write to one of them: the read took the row before the
// write committed and returns after the write reported itself. The search
// may return the old row (it began first), but the cache must not keep
// it: the next search sees the write, without a read of its own if the
// write came in through Written.
func TestEngineReadRacesWrite(t *testing.T) {
	for _, how := range []string{"changed", "written"} {
		t.Run(how, func(t *testing.T) {
			src := newFake()
			e := NewEngine(src, 2, Options{})
			m := mem("x", "old text", 1, 0)
			src.put(scA, m)
			inRead, release := make(chan struct{}), make(chan struct{})
			src.setHold(func() { close(inRead); <-release })
			done := make(chan []memory.Candidate)
			go func() {
				cs, err := e.Vector(context.Background(), scA, []float32{1, 0}, memory.SearchOptions{At: at})
				if err != nil {
					t.Error(err)
				}
				done <- cs
			}()
			<-inRead
			src.setHold(nil)
			m.Text = "new text"
			r := src.put(scA, m)
			if how == "written" {
				e.Written(scA, []Row{r}, nil)
			} else {
				e.Changed(context.Background(), scA, []string{"x"})
			}
			close(release)
			if cs := <-done; len(cs) != 1 || cs[0].Memory.Text != "old text" {
				t.Fatalf("the racing search = %+v", cs)
			}
			cs, err := e.Vector(context.Background(), scA, []float32{1, 0}, memory.SearchOptions{At: at})
			if err != nil || len(cs) != 1 || cs[0].Memory.Text != "new text" {
				t.Fatalf("the next search = %+v, %v: a stale row was cached", cs, err)
			}
			_, before := src.counts()
			if cs, _ := e.Vector(context.Background(), scA, []float32{1, 0}, memory.SearchOptions{At: at}); len(cs) != 1 || cs[0].Memory.Text != "new text" {
				t.Fatalf("a later search = %+v", cs)
			}
			if _, after := src.counts(); after != before {
				t.Errorf("a warm search read %d times from the source, want 0", after-before)
			}
		})
	}
}

// TestEngineTouchInFlight: a touch (hits+1) that began before a search
// read its rows and ended after: the row read may or may not include the
// touch, so the cache keeps neither version; after the touch a cached
// row takes it in place exactly once, and an uncommitted touch drops it.
func TestEngineTouchInFlight(t *testing.T) {
	src := newFake()
	e := NewEngine(src, 2, Options{})
	src.put(scA, mem("x", "sailing", 1, 0))
	hits := func() int {
		t.Helper()
		cs, err := e.Vector(context.Background(), scA, []float32{1, 0}, memory.SearchOptions{At: at})
		if err != nil || len(cs) != 1 {
			t.Fatalf("search = %v, %v", cs, err)
		}
		return cs[0].Memory.Hits
	}
	touch := func(committed bool) {
		src.mu.Lock()
		if committed {
			src.rows[scA]["x"].Hits++
		}
		src.mu.Unlock()
	}
	e.BeginTouch([]string{"x"})
	if h := hits(); h != 0 { // read during the touch: not cached
		t.Fatalf("hits %d", h)
	}
	touch(true)
	e.EndTouch(scA, []string{"x"}, at, true)
	if h := hits(); h != 1 {
		t.Fatalf("after the touch: hits %d, want 1", h)
	}
	// Cached now: a committed touch updates the cached row in place.
	e.BeginTouch([]string{"x"})
	touch(true)
	e.EndTouch(scA, []string{"x"}, at, true)
	_, before := src.counts()
	if h := hits(); h != 2 {
		t.Fatalf("after the second touch: hits %d, want 2", h)
	}
	if _, after := src.counts(); after != before {
		t.Error("the touched row was read again, not updated in the cache")
	}
	// A touch whose commit is unknown drops the row: the next read decides.
	e.BeginTouch([]string{"x"})
	touch(true)
	e.EndTouch(scA, []string{"x"}, at, false)
	if h := hits(); h != 3 {
		t.Fatalf("after a touch of unknown outcome: hits %d, want 3 (read again)", h)
	}
}

// TestEngineEviction: past the bound the least recently searched scope is
// unloaded; it reloads on its next search and sees the writes made while
// it was unloaded (which no index received).
func TestEngineEviction(t *testing.T) {
	src := newFake()
	e := NewEngine(src, 2, Options{})
	for i := range 50 {
		src.put(scA, mem(fmt.Sprintf("a%02d", i), "tea with lemon", 1, float32(i)/50))
		src.put(scB, mem(fmt.Sprintf("b%02d", i), "tea with honey", 1, float32(i)/50))
	}
	vecIDs(t, e, scA, 1, 0)
	one := e.Stats().Bytes
	e.SetLimit(one + one/2) // room for one scope
	vecIDs(t, e, scB, 1, 0)
	if got := e.Loaded(); !slices.Equal(got, []memory.Scope{scB}) {
		t.Fatalf("loaded after searching b = %v, want only b", got)
	}
	if st := e.Stats(); st.Evictions != 1 || st.Bytes > st.Limit {
		t.Errorf("stats %+v", st)
	}
	// A write to the unloaded scope reaches no index; the reload reads it.
	e.Written(scA, []Row{src.put(scA, mem("new", "tea with lemon", 1, 0))}, nil)
	src.del(scA, "a00")
	e.Changed(context.Background(), scA, []string{"a00"})
	got := vecIDs(t, e, scA, 1, 0)
	if got[0] != "new" || slices.Contains(got, "a00") {
		t.Errorf("after reloading a: %v", got)
	}
	if loads, _ := src.counts(); loads != 3 {
		t.Errorf("%d loads, want 3 (a, b, a again)", loads)
	}
}

// TestEngineForgetUser: a user's deletion unloads the user's scopes and
// drops their cached rows; another user's stay.
func TestEngineForgetUser(t *testing.T) {
	src := newFake()
	e := NewEngine(src, 2, Options{})
	src.put(scA, mem("x", "tea", 1, 0))
	src.put(scB, mem("y", "tea", 1, 0))
	vecIDs(t, e, scA, 1, 0)
	vecIDs(t, e, scB, 1, 0)
	src.del(scA, "x")
	e.ForgetUser("a", "")
	if got := vecIDs(t, e, scA, 1, 0); len(got) != 0 {
		t.Errorf("after forgetting a: %v", got)
	}
	if got := vecIDs(t, e, scB, 1, 0); !slices.Equal(got, []string{"y"}) {
		t.Errorf("b after forgetting a: %v", got)
	}
}

// TestEngineSourceErrors: a failed load is an error and is tried again at
// the next search; a failed re-read after a write unloads the scope, so
// no stale index survives it.
func TestEngineSourceErrors(t *testing.T) {
	src := newFake()
	e := NewEngine(src, 2, Options{})
	src.put(scA, mem("x", "tea", 1, 0))
	boom := errors.New("boom")
	src.fail = boom
	if _, err := e.Vector(context.Background(), scA, []float32{1, 0}, memory.SearchOptions{At: at}); !errors.Is(err, boom) {
		t.Fatalf("search on a failing source: %v", err)
	}
	src.fail = nil
	vecIDs(t, e, scA, 1, 0)
	x := mem("x", "coffee", 1, 0)
	src.put(scA, x)
	src.fail = boom
	e.Changed(context.Background(), scA, []string{"x"})
	src.fail = nil
	if got := lexIDs(t, e, scA, "coffee"); !slices.Equal(got, []string{"x"}) {
		t.Errorf("after a failed re-read: %v", got)
	}
}

// TestEngineConcurrent runs searches, writes and evictions of several
// scopes at once (for the race detector), then checks each scope against
// its rows.
func TestEngineConcurrent(t *testing.T) {
	src := newFake()
	e := NewEngine(src, 2, Options{IndexBytes: 1})
	scopes := []memory.Scope{scA, scB, {User: "c", Namespace: "default"}}
	var wg sync.WaitGroup
	for w, sc := range scopes {
		wg.Go(func() {
			for i := range 100 {
				m := mem(fmt.Sprintf("%s%03d", sc.User, i), "tea number", 1, float32(i))
				e.Written(sc, []Row{src.put(sc, m)}, nil)
				if i%3 == 0 {
					src.del(sc, m.ID)
					e.Changed(context.Background(), sc, []string{m.ID})
				}
				if _, _, err := e.Hybrid(context.Background(), scopes[(w+i)%3], []float32{1, 0}, "tea", memory.SearchOptions{At: at}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, sc := range scopes {
		cs, err := e.Lexical(context.Background(), sc, "tea", memory.SearchOptions{At: at, Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 66 {
			t.Errorf("%s: %d memories found, want 66", sc.User, len(cs))
		}
	}
}
