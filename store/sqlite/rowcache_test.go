package sqlite

import (
	"context"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestRowCacheCoherent checks that searches served from the row cache see
// every write of the store, and that a caller changing a returned memory
// does not change what the next search returns.
func TestRowCacheCoherent(t *testing.T) {
	ctx := context.Background()
	st, sc, t0 := smallStore(t)
	m := &memory.Memory{ID: "a", Tier: memory.TierSemantic, Text: "sailing on the lake", Embedding: []float32{1, 0}, CreatedAt: t0}
	if err := st.Insert(ctx, sc, m); err != nil {
		t.Fatal(err)
	}
	o := memory.SearchOptions{At: t0}
	both := func() (vec, lex *memory.Memory) {
		t.Helper()
		vs, err := st.VectorSearch(ctx, sc, []float32{1, 0}, o)
		if err != nil || len(vs) != 1 {
			t.Fatalf("vector search = %v, %v", vs, err)
		}
		ls, err := st.LexicalSearch(ctx, sc, "sailing lake", o)
		if err != nil || len(ls) != 1 {
			t.Fatalf("lexical search = %v, %v", ls, err)
		}
		return vs[0].Memory, ls[0].Memory
	}
	// Fill the cache, then change what a search returned.
	v, l := both()
	v.Text, v.Embedding[0], l.Hits = "changed by a caller", 9, 99
	v, l = both()
	if v.Text != m.Text || v.Embedding[0] != 1 || l.Hits != 0 {
		t.Fatalf("a caller's change reached the cache: %+v, %+v", v, l)
	}

	if err := st.Touch(ctx, sc, []string{"a"}, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if v, l := both(); v.Hits != 1 || l.Hits != 1 || !v.LastUsedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("after touch: hits %d/%d, last used %v", v.Hits, l.Hits, v.LastUsedAt)
	}

	m.Text, m.Value = "sailing on the lake at dawn", 0.9
	if err := st.Update(ctx, sc, m); err != nil {
		t.Fatal(err)
	}
	if v, l := both(); v.Text != m.Text || l.Value != 0.9 {
		t.Fatalf("after update: %q, value %v", v.Text, l.Value)
	}

	if err := st.Archive(ctx, sc, []string{"a"}, t0); err != nil {
		t.Fatal(err)
	}
	dead := memory.SearchOptions{At: t0, IncludeDead: true}
	vs, err := st.VectorSearch(ctx, sc, []float32{1, 0}, dead)
	if err != nil || len(vs) != 1 || vs[0].Memory.ArchivedAt == nil {
		t.Fatalf("after archive: %v, %v", vs, err)
	}
	ls, err := st.LexicalSearch(ctx, sc, "sailing", dead)
	if err != nil || len(ls) != 1 || ls[0].Memory.ArchivedAt == nil {
		t.Fatalf("after archive: %v, %v", ls, err)
	}

	if _, err := st.DeleteUser(ctx, "u", ""); err != nil {
		t.Fatal(err)
	}
	if vs, err := st.VectorSearch(ctx, sc, []float32{1, 0}, dead); err != nil || len(vs) != 0 {
		t.Fatalf("after user deletion: %v, %v", vs, err)
	}
	if ls, err := st.LexicalSearch(ctx, sc, "sailing", dead); err != nil || len(ls) != 0 {
		t.Fatalf("after user deletion: %v, %v", ls, err)
	}
}

// TestRowCacheTouchUnderConcurrency checks that rows cached while touches
// run count every touch exactly once.
func TestRowCacheTouchUnderConcurrency(t *testing.T) {
	ctx := context.Background()
	st, sc, t0 := smallStore(t)
	if err := st.Insert(ctx, sc, &memory.Memory{ID: "a", Tier: memory.TierSemantic, Text: "sailing", Embedding: []float32{1, 0}, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	o := memory.SearchOptions{At: t0}
	const touchers, touches = 4, 25
	var wg, searchers sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		searchers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := st.VectorSearch(ctx, sc, []float32{1, 0}, o); err != nil {
					t.Error(err)
					return
				}
				if _, err := st.LexicalSearch(ctx, sc, "sailing", o); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for i := range touchers {
		wg.Go(func() {
			for j := range touches {
				if err := st.Touch(ctx, sc, []string{"a", "a"}, t0.Add(time.Duration(i*touches+j)*time.Second)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	searchers.Wait()
	vs, err := st.VectorSearch(ctx, sc, []float32{1, 0}, o)
	if err != nil || len(vs) != 1 {
		t.Fatalf("vector search = %v, %v", vs, err)
	}
	ls, err := st.LexicalSearch(ctx, sc, "sailing", o)
	if err != nil || len(ls) != 1 {
		t.Fatalf("lexical search = %v, %v", ls, err)
	}
	last := t0.Add(time.Duration(touchers*touches-1) * time.Second)
	for _, m := range []*memory.Memory{vs[0].Memory, ls[0].Memory} {
		if m.Hits != touchers*touches || !m.LastUsedAt.Equal(last) {
			t.Errorf("after %d touches: hits %d, last used %v (want %v)", touchers*touches, m.Hits, m.LastUsedAt, last)
		}
	}
}

// smallStore opens a store of 2-dimensional vectors on a fresh file, with
// the scope and time the small tests use.
func smallStore(t *testing.T) (*Store, memory.Scope, time.Time) {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "small.db"), memory.OpenOptions{Model: "m", Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st, memory.Scope{User: "u", Namespace: "default"}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
}

// TestInsertedRowsCachedAsRead checks that an insert leaves its rows in
// the row cache exactly as a read of them returns them (times in UTC to
// the microsecond, provenance as its JSON reads back), so a search after
// it serves them without reading them back; and that a row the same batch
// touched is left to the touch.
func TestInsertedRowsCachedAsRead(t *testing.T) {
	ctx := context.Background()
	st, sc, _ := smallStore(t)
	berlin := time.FixedZone("CET", 3600)
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 891234567, berlin)
	ends, exp := t0.Add(48*time.Hour+123), t0.Add(72*time.Hour+456)
	ms := []*memory.Memory{
		{ID: "fact", Tier: memory.TierProfile, Text: "The user lives in Lisbon.", Embedding: []float32{1, 0}, Value: 0.7, Confidence: 0.9,
			Source: memory.SourceExtracted, Key: "user.lives_in", Session: "s1", CreatedAt: t0, ValidTo: &ends, ExpiresAt: &exp,
			Provenance: memory.Provenance{RequestIDs: []string{"r1"}, TurnRefs: []string{}, Fact: &memory.Triple{Subject: "user", Attribute: "lives_in", Value: "Lisbon"}},
			Context:    "moving", API: "chat"},
		{ID: "old", Tier: memory.TierEvent, Text: "User: I sail.\nAssistant: Nice.", Embedding: []float32{0.6, 0.8}, CreatedAt: t0,
			LastUsedAt: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), NoDecay: true},
	}
	// The scope's index is loaded first (its load would read the rows).
	if _, err := st.VectorSearch(ctx, sc, []float32{1, 0}, memory.SearchOptions{At: t0}); err != nil {
		t.Fatal(err)
	}
	if err := st.Insert(ctx, sc, ms...); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if !st.idx.Cached(m.ID) {
			t.Fatalf("%s: not cached after its insert", m.ID)
		}
	}
	// What the cache serves is what a read of the rows returns.
	got, err := st.VectorSearch(ctx, sc, []float32{1, 0}, memory.SearchOptions{At: t0, IncludeDead: true})
	if err != nil || len(got) != 2 {
		t.Fatalf("search = %v, %v", got, err)
	}
	for _, c := range got {
		want, err := st.Get(ctx, sc, c.Memory.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c.Memory, want) {
			t.Errorf("%s: cached\n%+v\nread\n%+v", want.ID, c.Memory, want)
		}
	}

	// Inserted and touched in one batch: the touch's count is in the row.
	m := &memory.Memory{ID: "new", Tier: memory.TierSemantic, Text: "tea", Embedding: []float32{0, 1}, CreatedAt: t0}
	err = st.Batch(ctx, func(ctx context.Context) error {
		if err := st.Insert(ctx, sc, m); err != nil {
			return err
		}
		return st.Touch(ctx, sc, []string{"new"}, t0.Add(time.Hour))
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err = st.VectorSearch(ctx, sc, []float32{0, 1}, memory.SearchOptions{At: t0, Limit: 1})
	if err != nil || len(got) != 1 || got[0].Memory.ID != "new" || got[0].Memory.Hits != 1 {
		t.Fatalf("after insert and touch in a batch: %+v, %v", got, err)
	}
}
