package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

func (s *suite) testList(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	mk := func(id, text string, tier memory.Tier, created time.Duration) *memory.Memory {
		m := newMem(text, tier, nil)
		m.ID = id
		m.CreatedAt = at(created)
		return m
	}
	live := mk("live", "The user likes GREEN tea", memory.TierSemantic, 1*time.Hour)
	live.Key = "user.drink"
	live.Session = "s1"
	sup := mk("sup", "The user likes black tea", memory.TierSemantic, 2*time.Hour)
	sup.Key = "user.drink"
	arch := mk("arch", "archived chatter", memory.TierEvent, 3*time.Hour)
	arch.Source = memory.SourceEvent
	exp := mk("exp", "temporary: user is in Tokyo this week", memory.TierEpisodic, 4*time.Hour)
	exp.ExpiresAt = ptr(at(24 * time.Hour))
	ev := mk("ev", "a raw event", memory.TierEvent, 5*time.Hour)
	ev.Source = memory.SourceEvent
	ev.Session = "s1"
	cons := mk("cons", "a consolidated event", memory.TierEvent, 6*time.Hour)
	cons.Source = memory.SourceEvent
	cons.ConsolidatedAt = ptr(at(7 * time.Hour))
	insert(t, st, alice, live, sup, arch, exp, ev, cons)
	insert(t, st, bob, mk("bobs", "bob likes tea too", memory.TierSemantic, time.Hour))
	must(t, st.Supersede(ctx, alice, sup.ID, live.ID, at(3*time.Hour)))
	must(t, st.Archive(ctx, alice, []string{arch.ID}, at(4*time.Hour)))

	now := at(12 * time.Hour)
	later := at(48 * time.Hour)
	cases := []struct {
		name string
		f    memory.ListFilter
		want []string
	}{
		{"all", memory.ListFilter{}, []string{"cons", "ev", "exp", "arch", "sup", "live"}},
		{"live now", memory.ListFilter{State: memory.StateLive, At: now}, []string{"cons", "ev", "exp", "live"}},
		{"live later", memory.ListFilter{State: memory.StateLive, At: later}, []string{"cons", "ev", "live"}},
		{"expired later", memory.ListFilter{State: memory.StateExpired, At: later}, []string{"exp"}},
		{"expired now", memory.ListFilter{State: memory.StateExpired, At: now}, nil},
		{"superseded", memory.ListFilter{State: memory.StateSuperseded}, []string{"sup"}},
		{"archived", memory.ListFilter{State: memory.StateArchived}, []string{"arch"}},
		{"tiers", memory.ListFilter{Tiers: []memory.Tier{memory.TierEvent, memory.TierEpisodic}}, []string{"cons", "ev", "exp", "arch"}},
		{"key", memory.ListFilter{Key: "user.drink"}, []string{"sup", "live"}},
		{"query", memory.ListFilter{Query: "green TEA"}, []string{"live"}},
		{"query substring", memory.ListFilter{Query: "tea"}, []string{"sup", "live"}},
		{"query with wildcard characters", memory.ListFilter{Query: "%"}, nil},
		{"source", memory.ListFilter{Source: memory.SourceEvent}, []string{"cons", "ev", "arch"}},
		{"unconsolidated", memory.ListFilter{Tiers: []memory.Tier{memory.TierEvent}, Unconsolidated: true}, []string{"ev", "arch"}},
		{"session", memory.ListFilter{Session: "s1"}, []string{"ev", "live"}},
		{"since", memory.ListFilter{Since: at(4 * time.Hour)}, []string{"cons", "ev", "exp"}},
		{"until", memory.ListFilter{Until: at(2 * time.Hour)}, []string{"sup", "live"}},
		{"window", memory.ListFilter{Since: at(2 * time.Hour), Until: at(4 * time.Hour)}, []string{"exp", "arch", "sup"}},
		{"combined", memory.ListFilter{State: memory.StateLive, At: now, Tiers: []memory.Tier{memory.TierEvent}, Unconsolidated: true}, []string{"ev"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := st.List(ctx, alice, c.f)
			must(t, err)
			if got := memIDs(p.Data); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("List(%+v) = %v, want %v", c.f, got, c.want)
			}
			if p.Next != "" {
				t.Errorf("single page has Next %q", p.Next)
			}
		})
	}
	p, err := st.List(ctx, nobody, memory.ListFilter{})
	must(t, err)
	if len(p.Data) != 0 {
		t.Errorf("empty scope lists %v", memIDs(p.Data))
	}
}

func (s *suite) testListPaging(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	var want []string
	var ms []*memory.Memory
	for i := range 25 {
		m := newMem(fmt.Sprintf("memory %02d", i), memory.TierSemantic, nil)
		m.ID = fmt.Sprintf("id-%02d", i)
		// Pairs share a creation time so the id breaks the tie.
		m.CreatedAt = at(time.Duration(i/2) * time.Minute)
		ms = append(ms, m)
	}
	insert(t, st, alice, ms...)
	for i := len(ms) - 1; i >= 0; i-- {
		want = append(want, ms[i].ID)
	}
	for _, limit := range []int{1, 4, 5, 24, 25, 26} {
		var got []string
		cursor := ""
		pages := 0
		for {
			p, err := st.List(ctx, alice, memory.ListFilter{Limit: limit, Cursor: cursor})
			must(t, err)
			if len(p.Data) > limit {
				t.Fatalf("limit %d: page of %d", limit, len(p.Data))
			}
			got = append(got, memIDs(p.Data)...)
			pages++
			if p.Next == "" {
				break
			}
			if pages > 30 {
				t.Fatalf("limit %d: paging does not end", limit)
			}
			cursor = p.Next
		}
		if !slices.Equal(got, want) {
			t.Errorf("limit %d: paged %v, want %v", limit, got, want)
		}
	}
	// Paging goes on correctly while new memories arrive.
	p, err := st.List(ctx, alice, memory.ListFilter{Limit: 10})
	must(t, err)
	insert(t, st, alice, newMem("newer than everything", memory.TierSemantic, nil))
	p2, err := st.List(ctx, alice, memory.ListFilter{Limit: 10, Cursor: p.Next})
	must(t, err)
	if !slices.Equal(memIDs(p2.Data), want[10:20]) {
		t.Errorf("second page after an insert = %v, want %v", memIDs(p2.Data), want[10:20])
	}
	// A filtered listing pages within the filter.
	p, err = st.List(ctx, alice, memory.ListFilter{Limit: 3, Until: at(3 * time.Minute)})
	must(t, err)
	if !slices.Equal(memIDs(p.Data), []string{"id-07", "id-06", "id-05"}) {
		t.Errorf("filtered first page = %v", memIDs(p.Data))
	}
	p, err = st.List(ctx, alice, memory.ListFilter{Limit: 3, Until: at(3 * time.Minute), Cursor: p.Next})
	must(t, err)
	if !slices.Equal(memIDs(p.Data), []string{"id-04", "id-03", "id-02"}) {
		t.Errorf("filtered second page = %v", memIDs(p.Data))
	}
	p, err = st.List(ctx, alice, memory.ListFilter{})
	must(t, err)
	if len(p.Data) != 26 || p.Next != "" {
		t.Errorf("default limit listing returned %d, next %q", len(p.Data), p.Next)
	}
	var many []*memory.Memory
	for i := range 120 {
		many = append(many, newMem(fmt.Sprintf("bulk %d", i), memory.TierEvent, nil))
	}
	insert(t, st, bob, many...)
	p, err = st.List(ctx, bob, memory.ListFilter{})
	must(t, err)
	if len(p.Data) != 100 || p.Next == "" {
		t.Errorf("default limit: %d memories, next %q; want 100 and a cursor", len(p.Data), p.Next)
	}
	_, err = st.List(ctx, alice, memory.ListFilter{Cursor: "not a cursor!"})
	wantErr(t, err, memory.ErrInvalid, "list with a garbage cursor")
}

func (s *suite) testSupersede(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	old := newMem("The user drinks coffee", memory.TierSemantic, unit(0, 0))
	nw := newMem("The user switched to tea", memory.TierSemantic, unit(0, 0.1))
	insert(t, st, alice, old, nw)
	_, err := st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: t0})
	must(t, err)
	wantErr(t, st.Supersede(ctx, bob, old.ID, nw.ID, at(time.Hour)), memory.ErrNotFound, "supersede from another scope")
	wantErr(t, st.Supersede(ctx, alice, "missing", nw.ID, at(time.Hour)), memory.ErrNotFound, "supersede a missing id")
	must(t, st.Supersede(ctx, alice, old.ID, nw.ID, at(time.Hour)))
	got := get(t, st, alice, old.ID)
	if got.ValidTo == nil || !got.ValidTo.Equal(at(time.Hour)) || got.SupersededBy != nw.ID {
		t.Errorf("superseded memory: valid_to %v superseded_by %q", got.ValidTo, got.SupersededBy)
	}
	if got.Live(at(2 * time.Hour)) {
		t.Error("superseded memory is live")
	}
	vs, err := st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: at(2 * time.Hour)})
	must(t, err)
	if !slices.Equal(ids(vs), []string{nw.ID}) {
		t.Errorf("vector search after supersede = %v, want only the new memory", ids(vs))
	}
	ls, err := st.LexicalSearch(ctx, alice, "user coffee tea", memory.SearchOptions{At: at(2 * time.Hour)})
	must(t, err)
	if !slices.Equal(ids(ls), []string{nw.ID}) {
		t.Errorf("lexical search after supersede = %v, want only the new memory", ids(ls))
	}
	vs, err = st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: at(2 * time.Hour), IncludeDead: true})
	must(t, err)
	if !slices.Equal(ids(vs), []string{old.ID, nw.ID}) {
		t.Errorf("vector search with dead = %v, want both", ids(vs))
	}
}

func (s *suite) testHistory(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	var chain []*memory.Memory
	for i, city := range []string{"Lyon", "Paris", "Berlin", "Osaka"} {
		m := newMem("The user lives in "+city, memory.TierSemantic, unit(i, 0))
		m.Key = "user.city"
		m.ValidFrom = at(time.Duration(i) * 24 * time.Hour)
		m.CreatedAt = m.ValidFrom
		chain = append(chain, m)
	}
	// Insert out of order: history orders by time, not insertion.
	insert(t, st, alice, chain[2], chain[0], chain[3], chain[1])
	for i := 0; i+1 < len(chain); i++ {
		must(t, st.Supersede(ctx, alice, chain[i].ID, chain[i+1].ID, chain[i+1].ValidFrom))
	}
	other := newMem("The user's job is baker", memory.TierSemantic, nil)
	other.Key = "user.job"
	insert(t, st, alice, other)
	foreign := newMem("Bob lives in Rome", memory.TierSemantic, nil)
	foreign.Key = "user.city"
	insert(t, st, bob, foreign)

	h, err := st.History(ctx, alice, "user.city")
	must(t, err)
	if !slices.Equal(memIDs(h), memIDs(chain)) {
		t.Fatalf("history = %v, want %v", memIDs(h), memIDs(chain))
	}
	for i, m := range h[:len(h)-1] {
		if m.SupersededBy != chain[i+1].ID || m.ValidTo == nil || !m.ValidTo.Equal(chain[i+1].ValidFrom) {
			t.Errorf("history[%d]: superseded_by %q valid_to %v", i, m.SupersededBy, m.ValidTo)
		}
	}
	if last := h[len(h)-1]; last.ValidTo != nil || last.SupersededBy != "" {
		t.Errorf("head of the chain is superseded: %+v", last)
	}
	// "What was it before, when did it change": the fact in force at a time.
	var then *memory.Memory
	for _, m := range h {
		if !m.ValidFrom.After(at(36*time.Hour)) && (m.ValidTo == nil || m.ValidTo.After(at(36*time.Hour))) {
			then = m
		}
	}
	if then == nil || then.ID != chain[1].ID {
		t.Errorf("fact in force at day 1.5 = %v, want Paris", then)
	}
	h, err = st.History(ctx, alice, "user.none")
	must(t, err)
	if len(h) != 0 {
		t.Errorf("history of an unknown key = %v", memIDs(h))
	}
}

func (s *suite) testTouch(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	a := newMem("a", memory.TierSemantic, nil)
	b := newMem("b", memory.TierSemantic, nil)
	c := newMem("c", memory.TierSemantic, nil)
	insert(t, st, alice, a, b, c)
	foreign := newMem("bob's", memory.TierSemantic, nil)
	insert(t, st, bob, foreign)
	must(t, st.Touch(ctx, alice, []string{a.ID, b.ID, "missing", foreign.ID}, at(time.Hour)))
	must(t, st.Touch(ctx, alice, []string{a.ID}, at(2*time.Hour)))
	must(t, st.Touch(ctx, alice, nil, at(3*time.Hour)))
	for _, w := range []struct {
		m    *memory.Memory
		sc   memory.Scope
		hits int
		last time.Time
	}{{a, alice, 2, at(2 * time.Hour)}, {b, alice, 1, at(time.Hour)}, {c, alice, 0, t0}, {foreign, bob, 0, t0}} {
		got := get(t, st, w.sc, w.m.ID)
		if got.Hits != w.hits || !got.LastUsedAt.Equal(w.last) {
			t.Errorf("%s: hits %d last_used %v, want %d %v", w.m.Text, got.Hits, got.LastUsedAt, w.hits, w.last)
		}
	}
}

// testTouchThenUpdateDelete: an Update of a touched memory keeps the hits
// it was read with and later touches add to them; a deleted memory's
// usage goes with it, so the id is free again.
func (s *suite) testTouchThenUpdateDelete(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	m := newMem("touched then edited", memory.TierSemantic, nil)
	insert(t, st, alice, m)
	must(t, st.Touch(ctx, alice, []string{m.ID}, at(time.Hour)))
	must(t, st.Touch(ctx, alice, []string{m.ID}, at(2*time.Hour)))
	got := get(t, st, alice, m.ID)
	got.Text = "touched then edited, again"
	must(t, st.Update(ctx, alice, got))
	if g := get(t, st, alice, m.ID); g.Hits != 2 || !g.LastUsedAt.Equal(at(2*time.Hour)) {
		t.Errorf("after the update: hits %d last used %v, want 2 %v", g.Hits, g.LastUsedAt, at(2*time.Hour))
	}
	must(t, st.Touch(ctx, alice, []string{m.ID}, at(3*time.Hour)))
	if g := get(t, st, alice, m.ID); g.Hits != 3 || !g.LastUsedAt.Equal(at(3*time.Hour)) {
		t.Errorf("a touch after the update: hits %d last used %v, want 3 %v", g.Hits, g.LastUsedAt, at(3*time.Hour))
	}
	if b, ok := st.(Batcher); ok {
		// In a batch too, an id given twice in one Touch is one touch.
		must(t, b.Batch(ctx, func(ctx context.Context) error {
			return st.Touch(ctx, alice, []string{m.ID, m.ID}, at(4*time.Hour))
		}))
		if g := get(t, st, alice, m.ID); g.Hits != 4 {
			t.Errorf("a batch touch naming the memory twice: hits %d, want 4", g.Hits)
		}
	}
	must(t, st.Delete(ctx, alice, m.ID))
	again := newMem("the same id, inserted anew", memory.TierSemantic, nil)
	again.ID = m.ID
	insert(t, st, alice, again)
	if g := get(t, st, alice, m.ID); g.Hits != 0 || !g.LastUsedAt.Equal(again.LastUsedAt) {
		t.Errorf("a memory inserted under a deleted one's id: hits %d last used %v, want 0 %v", g.Hits, g.LastUsedAt, again.LastUsedAt)
	}
}

func (s *suite) testTouchConcurrent(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	var ms []*memory.Memory
	for i := range 10 {
		ms = append(ms, newMem(fmt.Sprintf("touched %d", i), memory.TierSemantic, unit(i, 0)))
	}
	insert(t, st, alice, ms...)
	const workers, rounds = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				// Each worker touches a rotating half of the memories.
				var batch []string
				for i := range ms {
					if (i+w+r)%2 == 0 {
						batch = append(batch, ms[i].ID)
					}
				}
				if err := st.Touch(ctx, alice, batch, at(time.Duration(w*rounds+r)*time.Second)); err != nil {
					errs <- err
				}
				// Interleave reads so readers and writers overlap.
				if _, err := st.VectorSearch(ctx, alice, unit(w, 0), memory.SearchOptions{At: t0}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent touch: %v", err)
	}
	got, err := st.GetMany(ctx, alice, memIDs(ms))
	must(t, err)
	total := 0
	for _, m := range got {
		total += m.Hits
		if m.Hits != workers*rounds/2 {
			t.Errorf("%s: %d hits, want %d", m.Text, m.Hits, workers*rounds/2)
		}
	}
	if total != workers*rounds*len(ms)/2 {
		t.Errorf("lost touches: %d hits in total, want %d", total, workers*rounds*len(ms)/2)
	}
}

func (s *suite) testMarkConsolidated(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	a := newMem("event one about hiking", memory.TierEvent, unit(0, 0))
	b := newMem("event two about hiking", memory.TierEvent, unit(0, 0.2))
	insert(t, st, alice, a, b)
	foreign := newMem("bob's hiking event", memory.TierEvent, unit(0, 0))
	insert(t, st, bob, foreign)
	_, err := st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: t0})
	must(t, err)
	must(t, st.MarkConsolidated(ctx, alice, []string{a.ID, foreign.ID, "missing"}, at(time.Hour)))
	if got := get(t, st, alice, a.ID); got.ConsolidatedAt == nil || !got.ConsolidatedAt.Equal(at(time.Hour)) {
		t.Errorf("consolidated_at = %v", got.ConsolidatedAt)
	}
	if got := get(t, st, bob, foreign.ID); got.ConsolidatedAt != nil {
		t.Error("another scope's event was marked")
	}
	o := memory.SearchOptions{At: t0, ExcludeConsolidated: true}
	vs, err := st.VectorSearch(ctx, alice, unit(0, 0), o)
	must(t, err)
	if !slices.Equal(ids(vs), []string{b.ID}) {
		t.Errorf("vector search excluding consolidated = %v", ids(vs))
	}
	ls, err := st.LexicalSearch(ctx, alice, "hiking", o)
	must(t, err)
	if !slices.Equal(ids(ls), []string{b.ID}) {
		t.Errorf("lexical search excluding consolidated = %v", ids(ls))
	}
	vs, err = st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: t0})
	must(t, err)
	if len(vs) != 2 {
		t.Errorf("consolidated events are live: got %v", ids(vs))
	}
}

func (s *suite) testArchiveRestorePurge(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	a := newMem("archived early about gardening", memory.TierEvent, unit(0, 0))
	b := newMem("archived late about gardening", memory.TierEvent, unit(0, 0.1))
	c := newMem("live about gardening", memory.TierEvent, unit(0, 0.2))
	d := newMem("expired about gardening", memory.TierEvent, unit(0, 0.3))
	d.ExpiresAt = ptr(at(2 * time.Hour))
	insert(t, st, alice, a, b, c, d)
	foreign := newMem("bob's archived gardening", memory.TierEvent, unit(0, 0))
	insert(t, st, bob, foreign)
	must(t, st.Archive(ctx, bob, []string{foreign.ID}, at(time.Hour)))
	_, err := st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: at(time.Hour)})
	must(t, err)

	must(t, st.Archive(ctx, alice, []string{a.ID, foreign.ID}, at(time.Hour)))
	must(t, st.Archive(ctx, alice, []string{b.ID}, at(10*time.Hour)))
	if got := get(t, st, alice, a.ID); got.ArchivedAt == nil || !got.ArchivedAt.Equal(at(time.Hour)) {
		t.Errorf("archived_at = %v", got.ArchivedAt)
	}
	o := memory.SearchOptions{At: at(time.Hour)}
	vs, err := st.VectorSearch(ctx, alice, unit(0, 0), o)
	must(t, err)
	if !slices.Equal(ids(vs), []string{c.ID, d.ID}) {
		t.Errorf("vector search after archive = %v, want live ones", ids(vs))
	}
	ls, err := st.LexicalSearch(ctx, alice, "gardening", o)
	must(t, err)
	if got := ids(ls); len(got) != 2 || !slices.Contains(got, c.ID) || !slices.Contains(got, d.ID) {
		t.Errorf("lexical search after archive = %v", got)
	}

	must(t, st.Restore(ctx, alice, []string{b.ID, foreign.ID}))
	if got := get(t, st, alice, b.ID); got.ArchivedAt != nil {
		t.Error("restore left archived_at set")
	}
	if got := get(t, st, bob, foreign.ID); got.ArchivedAt == nil {
		t.Error("restore reached another scope")
	}
	vs, err = st.VectorSearch(ctx, alice, unit(0, 0), o)
	must(t, err)
	if !slices.Equal(ids(vs), []string{b.ID, c.ID, d.ID}) {
		t.Errorf("vector search after restore = %v", ids(vs))
	}
	must(t, st.Archive(ctx, alice, []string{b.ID}, at(10*time.Hour)))

	// Purge before 5h: a (archived 1h) and d (expired 2h) go; b (archived
	// 10h) and c stay; bob's archived memory is untouched.
	n, err := st.Purge(ctx, alice, at(5*time.Hour))
	must(t, err)
	if n != 2 {
		t.Errorf("purge removed %d, want 2", n)
	}
	for _, id := range []string{a.ID, d.ID} {
		if _, err := st.Get(ctx, alice, id); err == nil {
			t.Errorf("purged %s still there", id)
		}
	}
	get(t, st, alice, b.ID)
	get(t, st, alice, c.ID)
	get(t, st, bob, foreign.ID)
	vs, err = st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: t0, IncludeDead: true})
	must(t, err)
	if !slices.Equal(ids(vs), []string{b.ID, c.ID}) {
		t.Errorf("vector search with dead after purge = %v", ids(vs))
	}
	n, err = st.Purge(ctx, alice, at(5*time.Hour))
	must(t, err)
	if n != 0 {
		t.Errorf("second purge removed %d", n)
	}
}

func (s *suite) testTTL(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	tmp := newMem("The user is travelling in Kyoto this week", memory.TierEpisodic, unit(0, 0))
	tmp.ExpiresAt = ptr(at(7 * 24 * time.Hour))
	perm := newMem("The user is a vegetarian and likes Kyoto food", memory.TierSemantic, unit(0, 0.5))
	insert(t, st, alice, tmp, perm)
	for _, c := range []struct {
		at   time.Time
		want []string
	}{
		{at(time.Hour), []string{tmp.ID, perm.ID}},
		{at(7*24*time.Hour - time.Microsecond), []string{tmp.ID, perm.ID}},
		{at(7 * 24 * time.Hour), []string{perm.ID}},
		{at(30 * 24 * time.Hour), []string{perm.ID}},
	} {
		o := memory.SearchOptions{At: c.at}
		vs, err := st.VectorSearch(ctx, alice, unit(0, 0), o)
		must(t, err)
		if !slices.Equal(ids(vs), c.want) {
			t.Errorf("vector search at %v = %v, want %v", c.at, ids(vs), c.want)
		}
		ls, err := st.LexicalSearch(ctx, alice, "kyoto", o)
		must(t, err)
		if got := ids(ls); len(got) != len(c.want) {
			t.Errorf("lexical search at %v = %v, want %v", c.at, got, c.want)
		}
		p, err := st.List(ctx, alice, memory.ListFilter{State: memory.StateLive, At: c.at})
		must(t, err)
		if len(p.Data) != len(c.want) {
			t.Errorf("live listing at %v = %v", c.at, memIDs(p.Data))
		}
	}
	vs, err := st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: at(30 * 24 * time.Hour), IncludeDead: true})
	must(t, err)
	if len(vs) != 2 {
		t.Errorf("expired memory missing with IncludeDead: %v", ids(vs))
	}
	// Extending the TTL brings it back.
	m := get(t, st, alice, tmp.ID)
	m.ExpiresAt = ptr(at(60 * 24 * time.Hour))
	must(t, st.Update(ctx, alice, m))
	vs, err = st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: at(30 * 24 * time.Hour)})
	must(t, err)
	if len(vs) != 2 {
		t.Errorf("after extending the TTL: %v", ids(vs))
	}
}
