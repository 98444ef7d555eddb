package sqlite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storebench"
)

// TestInsertRefreshMatchesReload checks that the rows Insert applies to
// loaded indexes from memory (refreshWritten) index exactly as a load from
// the database does, metadata included.
func TestInsertRefreshMatchesReload(t *testing.T) {
	ctx := context.Background()
	st, path, scs := budgetStore(t, -1, 1)
	sc := scs[0]
	q := storebench.NewQueries(21, 1)
	c := storebench.NewCorpus(22)
	searchBoth(t, st, sc, q.Vecs[0], "load") // both indexes loaded
	now := time.Now().UTC()
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	var ms []*memory.Memory
	for i := range 40 {
		m := &memory.Memory{ID: fmt.Sprintf("ins%02d", i), Tier: []memory.Tier{memory.TierEvent, memory.TierSemantic, memory.TierProfile}[i%3],
			Text: "inserted " + c.Text(8), Context: "ctx " + c.Text(3), Embedding: c.Vector()}
		switch i % 5 {
		case 1:
			m.ExpiresAt = &past
		case 2:
			m.ExpiresAt = &future
		case 3:
			m.ArchivedAt = &past
		case 4:
			m.ConsolidatedAt = &past
		}
		ms = append(ms, m)
	}
	ms = append(ms, &memory.Memory{ID: "novec", Tier: memory.TierSemantic, Text: "inserted without a vector"})
	if err := st.Insert(ctx, sc, ms...); err != nil {
		t.Fatal(err)
	}
	fresh, err := Open(ctx, path, memory.OpenOptions{Model: "m", Dim: storebench.Dim})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	opts := []memory.SearchOptions{{Limit: 30}, {Limit: 30, IncludeDead: true}, {Limit: 30, ExcludeConsolidated: true},
		{Limit: 30, Tiers: []memory.Tier{memory.TierProfile}}}
	for _, o := range opts {
		for _, m := range ms[:5] {
			gv, err1 := st.VectorSearch(ctx, sc, m.Embedding, o)
			wv, err2 := fresh.VectorSearch(ctx, sc, m.Embedding, o)
			gl, err3 := st.LexicalSearch(ctx, sc, m.Text, o)
			wl, err4 := fresh.LexicalSearch(ctx, sc, m.Text, o)
			if err := errors.Join(err1, err2, err3, err4); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(gv), ids(wv)) || !slices.Equal(ids(gl), ids(wl)) {
				t.Fatalf("options %+v, query %s: refreshed index differs from a fresh load:\nvector %v\n  want %v\nlexical %v\n   want %v",
					o, m.ID, ids(gv), ids(wv), ids(gl), ids(wl))
			}
		}
	}
}
