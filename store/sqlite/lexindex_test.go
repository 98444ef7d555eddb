package sqlite

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storebench"
)

// TestLexicalIndexMatchesFTS5 checks that the in-memory lexical index ranks
// exactly as the FTS5 query it replaced (lexicalSearchFTS): the same
// memories with the same scores, in the same order up to ties, for short
// and long queries, with filters, on a scope whose common terms exceed the
// postings budget, and after updates, deletions and archiving. The scope
// is alone in the table, where FTS5's table-wide counts are the scope's
// own, which the index uses; then another scope's memories must change
// none of its scores.
func TestLexicalIndexMatchesFTS5(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "lex.db"), memory.OpenOptions{Model: "m", Dim: storebench.Dim})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc := memory.Scope{User: "u", Namespace: "default"}
	if err := storebench.Fill(ctx, st, sc, storebench.NewCorpus(1), 3000, 500); err != nil {
		t.Fatal(err)
	}
	c := storebench.NewCorpus(5)
	var queries []string
	for range 60 {
		queries = append(queries, c.Query(), "so here is the thing, "+c.Text(60)+". what next?")
	}
	queries = append(queries, "the and of", "北京", "zzzz")
	opts := []memory.SearchOptions{
		{Limit: 50, At: storebench.Epoch},
		{Limit: 5, At: storebench.Epoch, Tiers: []memory.Tier{memory.TierSemantic}},
		{Limit: 50, At: storebench.Epoch, IncludeDead: true},
		{Limit: 50, At: storebench.Epoch, Tiers: []memory.Tier{memory.TierSemantic, memory.TierEpisodic, memory.TierEvent}, ExcludeConsolidated: true},
	}
	compare := func(stage string) {
		t.Helper()
		for i, q := range queries {
			o := opts[i%len(opts)]
			got, err := st.LexicalSearch(ctx, sc, q, o)
			if err != nil {
				t.Fatal(err)
			}
			want, err := st.lexicalSearchFTS(ctx, sc, q, o)
			if err != nil {
				t.Fatal(err)
			}
			if !sameRanking(got, want) {
				t.Errorf("%s: query %q (%+v):\n got %v\nwant %v", stage, q, o, candIDs(got), candIDs(want))
			}
		}
	}
	compare("fresh")

	// Writes after the index loaded: it must follow them.
	page, err := st.List(ctx, sc, memory.ListFilter{Limit: 300})
	if err != nil {
		t.Fatal(err)
	}
	ms := page.Data
	for i, m := range ms[:100] {
		m.Text = c.Text(12)
		if i%3 == 0 {
			m.Context = "what about " + c.Query()
		}
		if err := st.Update(ctx, sc, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range ms[100:150] {
		if err := st.Delete(ctx, sc, m.ID); err != nil {
			t.Fatal(err)
		}
	}
	var arch []string
	for _, m := range ms[150:250] {
		arch = append(arch, m.ID)
	}
	if err := st.Archive(ctx, sc, arch, storebench.Epoch.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	var fresh []*memory.Memory
	for range 80 {
		fresh = append(fresh, c.Memory(storebench.Epoch.Add(-time.Minute)))
	}
	if err := st.Insert(ctx, sc, fresh...); err != nil {
		t.Fatal(err)
	}
	compare("after writes")

	before := make([][]memory.Candidate, len(queries))
	for i, q := range queries {
		if before[i], err = st.LexicalSearch(ctx, sc, q, opts[i%len(opts)]); err != nil {
			t.Fatal(err)
		}
	}
	other := memory.Scope{User: "v", Namespace: "default"}
	if err := storebench.Fill(ctx, st, other, storebench.NewCorpus(2), 700, 350); err != nil {
		t.Fatal(err)
	}
	for i, q := range queries {
		got, err := st.LexicalSearch(ctx, sc, q, opts[i%len(opts)])
		if err != nil {
			t.Fatal(err)
		}
		if !sameRanking(got, before[i]) {
			t.Errorf("another scope's memories moved query %q:\n got %v\nwas %v", q, candIDs(got), candIDs(before[i]))
		}
	}
}

// sameRanking reports whether two rankings hold the same memories with the
// same scores (to rounding), in the same order except among equal scores.
func sameRanking(a, b []memory.Candidate) bool {
	if len(a) != len(b) {
		return false
	}
	score := make(map[string]float64, len(b))
	for _, c := range b {
		score[c.Memory.ID] = c.Score
	}
	for i, c := range a {
		s, ok := score[c.Memory.ID]
		if !ok || math.Abs(s-c.Score) > 1e-9*math.Abs(s) {
			return false
		}
		if math.Abs(b[i].Score-c.Score) > 1e-9*math.Abs(c.Score) {
			return false
		}
	}
	return true
}

func candIDs(cs []memory.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%s:%.6f", c.Memory.ID[:6], c.Score)
	}
	return out
}
