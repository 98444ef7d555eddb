package storetest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// testHybridSearch checks that HybridSearch returns exactly what
// VectorSearch and LexicalSearch return for the same query and options,
// sees writes at once, stays in its scope, and refuses bad input.
func (s *suite) testHybridSearch(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	words := []string{"apple", "pear", "plum", "cherry", "grape", "melon"}
	var ms []*memory.Memory
	for i := range 30 {
		tier := memory.TierSemantic
		if i%3 == 0 {
			tier = memory.TierEvent
		}
		text := fmt.Sprintf("the %s and the %s number %d", words[i%len(words)], words[(i/2)%len(words)], i)
		ms = append(ms, newMem(text, tier, unit(i%5, float32(i)*0.05)))
	}
	ms[7].Text = "梨子和苹果 apple"
	insert(t, st, alice, ms...)
	insert(t, st, bob, newMem("bob's apple and pear", memory.TierSemantic, unit(0, 0)))

	same := func(what string, got, want []memory.Candidate) {
		t.Helper()
		if !slices.Equal(ids(got), ids(want)) {
			t.Errorf("%s: hybrid ranks %v, alone %v", what, ids(got), ids(want))
			return
		}
		for i := range got {
			if math.Abs(got[i].Score-want[i].Score) > 1e-9 || got[i].Memory.Scope != alice || got[i].Memory.Text != want[i].Memory.Text {
				t.Errorf("%s %d: hybrid %+v (%v), alone %+v (%v)", what, i, got[i].Memory, got[i].Score, want[i].Memory, want[i].Score)
			}
		}
	}
	check := func(what string, vec []float32, query string, o memory.SearchOptions) (byVector, byText []memory.Candidate) {
		t.Helper()
		byVector, byText, err := st.HybridSearch(ctx, alice, vec, query, o)
		must(t, err)
		v, err := st.VectorSearch(ctx, alice, vec, o)
		must(t, err)
		l, err := st.LexicalSearch(ctx, alice, query, o)
		must(t, err)
		same(what+" vector", byVector, v)
		same(what+" lexical", byText, l)
		return byVector, byText
	}
	v, l := check("plain", unit(0, 0), "apple pear", memory.SearchOptions{At: t0})
	if len(v) != 30 || len(l) == 0 {
		t.Fatalf("plain: %d vector and %d lexical candidates, want 30 and some", len(v), len(l))
	}
	check("limit", unit(2, 0.1), "plum cherry", memory.SearchOptions{At: t0, Limit: 4})
	check("tiers", unit(1, 0), "grape melon", memory.SearchOptions{At: t0, Tiers: []memory.Tier{memory.TierEvent}})
	check("chinese", unit(3, 0), "苹果", memory.SearchOptions{At: t0, Limit: 5})
	check("stopwords only", unit(4, 0), "the and", memory.SearchOptions{At: t0})
	check("no terms", unit(4, 0), "?!", memory.SearchOptions{At: t0})

	// Writes are seen at once: an update, a new memory, a deletion.
	ms[4].Text = "a quince now"
	must(t, st.Update(ctx, alice, ms[4]))
	fresh := newMem("quince jam recipe", memory.TierSemantic, unit(9, 0))
	insert(t, st, alice, fresh)
	must(t, st.Delete(ctx, alice, ms[5].ID))
	v, l = check("after writes", unit(9, 0), "quince", memory.SearchOptions{At: t0})
	if len(v) == 0 || v[0].Memory.ID != fresh.ID {
		t.Errorf("after writes: vector top %v, want the new memory %s", ids(v), fresh.ID)
	}
	if got := ids(l); !slices.Contains(got, fresh.ID) || !slices.Contains(got, ms[4].ID) {
		t.Errorf("after writes: lexical %v, want the new %s and updated %s", got, fresh.ID, ms[4].ID)
	}
	if slices.Contains(ids(v), ms[5].ID) {
		t.Errorf("after writes: deleted %s still found", ms[5].ID)
	}

	// Another scope sees nothing of alice's.
	v, l, err := st.HybridSearch(ctx, bob, unit(0, 0), "apple quince", memory.SearchOptions{At: t0})
	must(t, err)
	if len(v) != 1 || len(l) != 1 || v[0].Memory.Scope != bob || l[0].Memory.Scope != bob {
		t.Errorf("bob's hybrid search: vector %v, lexical %v, want his one memory in each", ids(v), ids(l))
	}

	_, _, err = st.HybridSearch(ctx, alice, make([]float32, Dim+1), "apple", memory.SearchOptions{})
	wantErr(t, err, memory.ErrDimension, "hybrid search with a wrong dimension")
	for _, sc := range invalid {
		_, _, err := st.HybridSearch(ctx, sc, unit(0, 0), "apple", memory.SearchOptions{})
		wantErr(t, err, memory.ErrInvalidScope, fmt.Sprintf("hybrid search in scope %q", sc))
	}
}
