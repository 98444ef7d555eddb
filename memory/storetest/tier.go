package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// testListTier: a store that lists a tier from its index
// (memory.TierLister) returns what List returns for that tier and
// StateLive, once its index is loaded and after writes of every kind.
func (s *suite) testListTier(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	tl, ok := st.(memory.TierLister)
	if !ok {
		t.Skip("the store lists tiers only through List")
	}
	mk := func(id, text string, tier memory.Tier, created time.Duration) *memory.Memory {
		m := newMem(text, tier, unit(len(id), 0.1))
		m.ID = id
		m.CreatedAt = at(created)
		return m
	}
	name := mk("name", "The user's name is Ada", memory.TierProfile, time.Hour)
	diet := mk("diet", "The user is vegetarian", memory.TierProfile, 2*time.Hour)
	trip := mk("trip", "The user is in Kyoto this week", memory.TierProfile, 3*time.Hour)
	trip.ExpiresAt = ptr(at(24 * time.Hour))
	old := mk("old", "The user's name is Ad", memory.TierProfile, 30*time.Minute)
	gone := mk("gone", "The user lives in Oslo", memory.TierProfile, 4*time.Hour)
	noVec := mk("novec", "The user is left-handed", memory.TierProfile, 5*time.Hour)
	noVec.Embedding = nil
	insert(t, st, alice, name, diet, trip, old, gone, noVec,
		mk("fact", "The user likes tea", memory.TierSemantic, time.Hour),
		mk("event", "We talked about tea", memory.TierEvent, time.Hour))
	insert(t, st, bob, mk("bobs", "Bob's name is Bob", memory.TierProfile, time.Hour))
	must(t, st.Supersede(ctx, alice, old.ID, name.ID, at(time.Hour)))
	must(t, st.Archive(ctx, alice, []string{gone.ID}, at(5*time.Hour)))

	check := func(what string, when time.Time) {
		t.Helper()
		p, err := st.List(ctx, alice, memory.ListFilter{Tiers: []memory.Tier{memory.TierProfile}, State: memory.StateLive, At: when})
		must(t, err)
		want := memIDs(p.Data)
		ms, ok, err := tl.ListTier(ctx, alice, memory.TierProfile, when, 10)
		must(t, err)
		if !ok {
			t.Fatalf("%s: ListTier not ok with %d matching", what, len(want))
		}
		got := memIDs(ms)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: ListTier = %v, List = %v", what, got, want)
		}
		for _, m := range ms {
			if m.Text == "" || m.Scope != alice {
				t.Errorf("%s: %s comes back without its row: %+v", what, m.ID, m)
			}
		}
	}
	// Not searched yet: the first call may send the caller to List while
	// the index loads; once it is loaded, the index answers.
	if _, ok, err := tl.ListTier(ctx, alice, memory.TierProfile, at(12*time.Hour), 10); err != nil {
		t.Fatal(err)
	} else if !ok {
		if _, err := st.LexicalSearch(ctx, alice, "user", memory.SearchOptions{At: at(12 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	check("loaded", at(12*time.Hour))
	check("after the expiry", at(48*time.Hour))
	if got := memIDs(mustTier(t, tl, alice, at(12*time.Hour))); len(got) != 4 {
		t.Errorf("live profile = %v, want name, diet, trip, novec", got)
	}

	// Writes after the load.
	insert(t, st, alice, mk("city", "The user lives in Lyon", memory.TierProfile, 6*time.Hour))
	check("after an insert", at(12*time.Hour))
	must(t, st.Delete(ctx, alice, diet.ID))
	check("after a delete", at(12*time.Hour))
	m := get(t, st, alice, name.ID)
	m.Tier = memory.TierSemantic
	must(t, st.Update(ctx, alice, m))
	check("after a tier change", at(12*time.Hour))
	must(t, st.Restore(ctx, alice, []string{gone.ID}))
	check("after a restore", at(12*time.Hour))

	// More than most: the caller is told to list.
	if _, ok, err := tl.ListTier(ctx, alice, memory.TierProfile, at(12*time.Hour), 1); err != nil || ok {
		t.Errorf("ListTier over most = ok %v, err %v; want not ok", ok, err)
	}
	if _, err := st.LexicalSearch(ctx, nobody, "user", memory.SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	if ms, ok, err := tl.ListTier(ctx, nobody, memory.TierProfile, at(12*time.Hour), 10); err != nil || !ok || len(ms) != 0 {
		t.Errorf("ListTier of an empty scope = %v, %v, %v", memIDs(ms), ok, err)
	}
}

func mustTier(t *testing.T, tl memory.TierLister, sc memory.Scope, when time.Time) []*memory.Memory {
	t.Helper()
	ms, ok, err := tl.ListTier(context.Background(), sc, memory.TierProfile, when, 100)
	must(t, err)
	if !ok {
		t.Fatal("ListTier not ok")
	}
	return ms
}
