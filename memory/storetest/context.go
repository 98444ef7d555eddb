package storetest

import (
	"context"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// testContext pins Memory.Context: search-only text that lexical search
// finds a memory by, stored and returned unchanged, never mixed into Text.
func (s *suite) testContext(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	o := memory.SearchOptions{At: t0}
	ans := newMem("Yes, last weekend with my sister.", memory.TierEvent, unit(0, 0))
	ans.ID = "answer"
	ans.Context = "8 May 2023\nDid you go hiking at Mount Rainier?\nAssistant: Not yet."
	plain := newMem("I bought a new kayak.", memory.TierEvent, unit(1, 0))
	plain.ID = "plain"
	insert(t, st, alice, ans, plain)

	got, err := st.Get(ctx, alice, "answer")
	must(t, err)
	if got.Text != ans.Text || got.Context != ans.Context {
		t.Errorf("get: text %q context %q, want them unchanged (%q, %q)", got.Text, got.Context, ans.Text, ans.Context)
	}
	if p, err := st.Get(ctx, alice, "plain"); err != nil || p.Context != "" {
		t.Errorf("get plain: context %q (%v), want empty", p.Context, err)
	}
	want := ans.Context
	search := func(q string) []string {
		t.Helper()
		ls, err := st.LexicalSearch(ctx, alice, q, o)
		must(t, err)
		for _, l := range ls {
			if l.Memory.ID == "answer" && (l.Memory.Context != want || l.Memory.Text != ans.Text) {
				t.Errorf("search %q returned context %q, want it unchanged", q, l.Memory.Context)
			}
		}
		return ids(ls)
	}
	if got := search("Rainier hike"); len(got) != 1 || got[0] != "answer" {
		t.Errorf("search by context words = %v, want [answer]", got)
	}
	if got := search("sister"); len(got) != 1 || got[0] != "answer" {
		t.Errorf("search by text words = %v, want [answer]", got)
	}
	if got, err := st.LexicalSearch(ctx, bob, "Rainier", o); err != nil || len(got) != 0 {
		t.Errorf("another scope finds the context: %v (%v)", ids(got), err)
	}

	got.Context = "9 May 2023\nHow was the concert?"
	must(t, st.Update(ctx, alice, got))
	want = got.Context
	if ids := search("Rainier"); len(ids) != 0 {
		t.Errorf("after update, the old context still matches: %v", ids)
	}
	if ids := search("concert"); len(ids) != 1 || ids[0] != "answer" {
		t.Errorf("after update, the new context = %v, want [answer]", ids)
	}
	again, err := st.Get(ctx, alice, "answer")
	must(t, err)
	if again.Text != ans.Text || again.Context != got.Context {
		t.Errorf("after update: text %q context %q", again.Text, again.Context)
	}
}
