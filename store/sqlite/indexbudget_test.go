package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storebench"
)

// budgetStore opens a store on a fresh file with the given index bound and
// fills scopes u0…u(n-1) with 300 memories each.
func budgetStore(t *testing.T, limit int64, scopes int) (*Store, string, []memory.Scope) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "budget.db")
	st, err := OpenWith(ctx, path, memory.OpenOptions{Model: "m", Dim: storebench.Dim}, Options{IndexBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var scs []memory.Scope
	for i := range scopes {
		sc := memory.Scope{User: fmt.Sprintf("u%d", i), Namespace: "default"}
		if err := storebench.Fill(ctx, st, sc, storebench.NewCorpus(uint64(i+1)), 300, 100); err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	return st, path, scs
}

// searchBoth runs a vector and a lexical search of sc and returns the ids
// and scores found, in order.
func searchBoth(t *testing.T, st *Store, sc memory.Scope, vec []float32, query string) []string {
	t.Helper()
	ctx := context.Background()
	v, err := st.VectorSearch(ctx, sc, vec, memory.SearchOptions{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.LexicalSearch(ctx, sc, query, memory.SearchOptions{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range append(v, l...) {
		out = append(out, fmt.Sprintf("%s %.6f", c.Memory.ID, c.Score))
	}
	return out
}

// loadedScopes lists the scopes whose indexes are in the store's maps.
func loadedScopes(st *Store) []string {
	var out []string
	for _, sc := range st.idx.Loaded() {
		out = append(out, sc.User)
	}
	slices.Sort(out)
	return out
}

func setLimit(st *Store, n int64) {
	st.idx.SetLimit(n)
}

// TestIndexBudgetEvictsLeastRecentlySearched checks that indexes stay
// loaded up to the bound, and that past it the least recently searched
// scope is the one unloaded, both indexes at once.
func TestIndexBudgetEvictsLeastRecentlySearched(t *testing.T) {
	st, _, scs := budgetStore(t, -1, 4)
	q := storebench.NewQueries(7, 1)
	c := storebench.NewCorpus(9)
	search := func(sc memory.Scope) { searchBoth(t, st, sc, q.Vecs[0], c.Query()) }

	search(scs[0])
	one := st.IndexStats().Bytes
	if one < 300*storebench.Dim {
		t.Fatalf("one scope's indexes estimated at %d bytes, less than its vectors", one)
	}
	// Room for three scopes of this size, not four.
	setLimit(st, 3*one+one/2)
	search(scs[1])
	search(scs[2])
	if got, want := loadedScopes(st), []string{"u0", "u1", "u2"}; !slices.Equal(got, want) {
		t.Fatalf("under the bound: loaded %v, want %v", got, want)
	}
	if s := st.IndexStats(); s.Evictions != 0 || s.Bytes > s.Limit {
		t.Fatalf("under the bound: %+v", s)
	}
	search(scs[0]) // u1 is now the least recent
	search(scs[3])
	if got, want := loadedScopes(st), []string{"u0", "u2", "u3"}; !slices.Equal(got, want) {
		t.Fatalf("over the bound: loaded %v, want %v (u1 least recently searched)", got, want)
	}
	s := st.IndexStats()
	if s.Evictions != 1 || s.Bytes > s.Limit || s.Scopes != 3 {
		t.Fatalf("over the bound: %+v, want one eviction and bytes within the limit", s)
	}
	// A bound smaller than one scope keeps the scope being searched.
	setLimit(st, 1)
	search(scs[1])
	if got, want := loadedScopes(st), []string{"u1"}; !slices.Equal(got, want) {
		t.Fatalf("tiny bound: loaded %v, want %v", got, want)
	}
}

// TestIndexBudgetReloadIsExact checks that an unloaded scope searches the
// same after reloading, and sees the writes made while it was unloaded
// (compared with a store that loads the file afresh).
func TestIndexBudgetReloadIsExact(t *testing.T) {
	ctx := context.Background()
	st, path, scs := budgetStore(t, -1, 2)
	qs := storebench.NewQueries(3, 5)
	c := storebench.NewCorpus(4)
	var queries []string
	for range qs.Vecs {
		queries = append(queries, c.Query())
	}
	before := make([][]string, len(qs.Vecs))
	for i, v := range qs.Vecs {
		before[i] = searchBoth(t, st, scs[0], v, queries[i])
	}
	setLimit(st, 1) // only the scope searched stays
	searchBoth(t, st, scs[1], qs.Vecs[0], queries[0])
	if got := loadedScopes(st); !slices.Equal(got, []string{"u1"}) {
		t.Fatalf("loaded %v, want u0 unloaded", got)
	}
	for i, v := range qs.Vecs {
		if got := searchBoth(t, st, scs[0], v, queries[i]); !slices.Equal(got, before[i]) {
			t.Fatalf("query %d after reload:\n got %v\nwant %v", i, got, before[i])
		}
	}

	// Writes while unloaded: a new memory shaped like the first query, an
	// update and an archive of memories the searches returned.
	searchBoth(t, st, scs[1], qs.Vecs[0], queries[0])
	nm := &memory.Memory{ID: "new0", Tier: memory.TierSemantic, Text: queries[0], Embedding: qs.Vecs[0]}
	if err := st.Insert(ctx, scs[0], nm); err != nil {
		t.Fatal(err)
	}
	hits, err := st.VectorSearch(ctx, memory.Scope{User: "nobody", Namespace: "default"}, qs.Vecs[0], memory.SearchOptions{})
	if err != nil || len(hits) != 0 {
		t.Fatalf("empty scope: %v %v", hits, err)
	}
	if got := loadedScopes(st); slices.Contains(got, "u0") {
		t.Fatalf("u0 reloaded by a write: %v", got)
	}
	victim := strings.Fields(before[1][0])[0]
	if err := st.Archive(ctx, scs[0], []string{victim}, time.Now()); err != nil {
		t.Fatal(err)
	}

	fresh, err := Open(ctx, path, memory.OpenOptions{Model: "m", Dim: storebench.Dim})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	for i, v := range qs.Vecs {
		got, want := searchBoth(t, st, scs[0], v, queries[i]), searchBoth(t, fresh, scs[0], v, queries[i])
		if !slices.Equal(got, want) {
			t.Fatalf("query %d after writes while unloaded:\n got %v\nwant %v", i, got, want)
		}
		if i == 0 && (len(got) == 0 || !strings.HasPrefix(got[0], "new0 ")) {
			t.Fatalf("the memory inserted while unloaded is not first: %v", got)
		}
	}
}

// TestIndexBudgetConcurrent runs searches, writes and evictions at once
// (run with -race): a write is always seen by the searches made after it
// returned, and at the end every scope searches as a fresh load does.
func TestIndexBudgetConcurrent(t *testing.T) {
	ctx := context.Background()
	st, path, scs := budgetStore(t, -1, 5)
	q := storebench.NewQueries(8, 1)
	searchBoth(t, st, scs[0], q.Vecs[0], "hello")
	setLimit(st, st.IndexStats().Bytes*2) // about two scopes of five

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	// Searchers cycle over the scopes, forcing evictions.
	for g := range 3 {
		wg.Go(func() {
			c := storebench.NewCorpus(uint64(100 + g))
			for i := range 60 {
				sc := scs[(i+g)%len(scs)]
				if _, err := st.VectorSearch(ctx, sc, c.Vector(), memory.SearchOptions{Limit: 10}); err != nil {
					errs <- err
					return
				}
				if _, err := st.LexicalSearch(ctx, sc, c.Query(), memory.SearchOptions{Limit: 10}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	// Writers insert, then must find what they wrote.
	for g := range 2 {
		wg.Go(func() {
			c := storebench.NewCorpus(uint64(200 + g))
			for i := range 25 {
				sc := scs[(i*2+g)%len(scs)]
				word := fmt.Sprintf("zqx%dw%d", g, i)
				m := &memory.Memory{ID: fmt.Sprintf("w%d-%03d", g, i), Tier: memory.TierSemantic, Text: "note " + word, Embedding: c.Vector(), CreatedAt: time.Now()}
				if err := st.Insert(ctx, sc, m); err != nil {
					errs <- err
					return
				}
				lex, err := st.LexicalSearch(ctx, sc, word, memory.SearchOptions{Limit: 5})
				if err != nil {
					errs <- err
					return
				}
				vec, err := st.VectorSearch(ctx, sc, m.Embedding, memory.SearchOptions{Limit: 1})
				if err != nil {
					errs <- err
					return
				}
				if len(lex) == 0 || lex[0].Memory.ID != m.ID || len(vec) == 0 || vec[0].Memory.ID != m.ID {
					errs <- fmt.Errorf("%s in %s not found after its insert returned (lexical %v, vector %v)", m.ID, sc.User, ids(lex), ids(vec))
					return
				}
				if i%5 == 4 {
					if err := st.Archive(ctx, sc, []string{m.ID}, time.Now()); err != nil {
						errs <- err
						return
					}
					if lex, err := st.LexicalSearch(ctx, sc, word, memory.SearchOptions{Limit: 5}); err != nil || len(lex) != 0 {
						errs <- fmt.Errorf("%s still found after its archive returned: %v %v", m.ID, ids(lex), err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s := st.IndexStats(); s.Evictions == 0 {
		t.Fatalf("no scope was unloaded: %+v", s)
	}

	fresh, err := Open(ctx, path, memory.OpenOptions{Model: "m", Dim: storebench.Dim})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	c := storebench.NewCorpus(300)
	for _, sc := range scs {
		v, query := c.Vector(), c.Query()
		if got, want := searchBoth(t, st, sc, v, query), searchBoth(t, fresh, sc, v, query); !slices.Equal(got, want) {
			t.Errorf("%s differs from a fresh load:\n got %v\nwant %v", sc.User, got, want)
		}
	}
}
