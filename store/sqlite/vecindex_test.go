package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storebench"
	"github.com/memproxy/memproxy/search"
)

// TestQuantisedSearchIsExact checks that the int8 scan plus exact re-scoring
// returns the same top 50, in the same order, as exhaustive float cosine.
func TestQuantisedSearchIsExact(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "q.db"), memory.OpenOptions{Model: "m", Dim: storebench.Dim})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc := memory.Scope{User: "u", Namespace: "default"}
	c := storebench.NewCorpus(11)
	var all []*memory.Memory
	for i := range 4000 {
		all = append(all, &memory.Memory{ID: fmt.Sprintf("m%04d", i), Tier: memory.TierSemantic, Text: "x", Embedding: c.Vector()})
	}
	if err := st.Insert(ctx, sc, all...); err != nil {
		t.Fatal(err)
	}
	qs := storebench.NewQueries(12, 20)
	misses := 0
	for _, qv := range qs.Vecs {
		q, _ := search.Normalise(qv)
		type scored struct {
			id string
			s  float32
		}
		var exact []scored
		for _, m := range all {
			e, _ := search.Normalise(m.Embedding)
			exact = append(exact, scored{m.ID, search.Dot(q, e)})
		}
		sort.SliceStable(exact, func(i, j int) bool { return exact[i].s > exact[j].s })
		got, err := st.VectorSearch(ctx, sc, qv, memory.SearchOptions{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, e := range exact[:50] {
			want = append(want, e.id)
		}
		if !slices.Equal(ids(got), want) {
			misses++
		}
	}
	// Ties within float rounding may swap; anything more is a bug.
	if misses > 1 {
		t.Errorf("%d of %d queries ranked differently from exact search", misses, len(qs.Vecs))
	}
}

func ids(cs []memory.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Memory.ID
	}
	return out
}
