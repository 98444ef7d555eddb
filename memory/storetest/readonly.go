package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// testSearchReadOnly checks that SearchOptions.ReadOnly, which lets a
// store share its cached rows with the caller, changes nothing the caller
// can see: the same candidates, scores and whole memories (embeddings
// included: recall computes the cosine of lexical-only candidates from
// them), and a later plain search still hands out memories of its own.
func (s *suite) testSearchReadOnly(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	var ms []*memory.Memory
	for i := range 8 {
		m := newMem("the user's garden grows"+strings.Repeat(" tomato", i+1), memory.TierSemantic, unit(0, float32(i)*0.3))
		m.Provenance.RequestIDs = []string{fmt.Sprintf("req-%d", i)}
		ms = append(ms, m)
	}
	insert(t, st, alice, ms...)
	byID := make(map[string]*memory.Memory, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
	}
	plain := memory.SearchOptions{At: t0}
	ro := plain
	ro.ReadOnly = true
	searches := map[string]func(o memory.SearchOptions) ([]memory.Candidate, error){
		"vector": func(o memory.SearchOptions) ([]memory.Candidate, error) {
			return st.VectorSearch(ctx, alice, unit(0, 0), o)
		},
		"lexical": func(o memory.SearchOptions) ([]memory.Candidate, error) {
			return st.LexicalSearch(ctx, alice, "garden tomato", o)
		},
	}
	for name, search := range searches {
		// Read-only first, so a cache is filled by it and then read by
		// the plain search.
		got, err := search(ro)
		must(t, err)
		want, err := search(plain)
		must(t, err)
		if len(got) != len(ms) || len(want) != len(ms) {
			t.Fatalf("%s: %d read-only and %d plain candidates, want %d", name, len(got), len(want), len(ms))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Memory.ID != w.Memory.ID || g.Score != w.Score || !sameMemory(g.Memory, w.Memory) || len(g.Memory.Embedding) != Dim {
				t.Errorf("%s candidate %d: read-only %+v (score %v), plain %+v (score %v)", name, i, g.Memory, g.Score, w.Memory, w.Score)
			}
		}
		// The plain search's memories are the caller's: changing them
		// changes no later search.
		want[0].Memory.Text = "changed"
		want[0].Memory.Embedding[0] = 42
		want[0].Memory.Provenance.RequestIDs[0] = "changed"
		again, err := search(ro)
		must(t, err)
		for _, c := range again {
			m := byID[c.Memory.ID]
			if c.Memory.Text != m.Text || c.Memory.Embedding[0] != m.Embedding[0] || c.Memory.Provenance.RequestIDs[0] != m.Provenance.RequestIDs[0] {
				t.Errorf("%s: a change to a plain search's memory reached the store: %+v", name, c.Memory)
			}
		}
	}
}
