package storetest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

func (s *suite) testVectorSearch(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	o := memory.SearchOptions{At: t0}
	vs, err := st.VectorSearch(ctx, alice, unit(0, 0), o)
	must(t, err)
	if len(vs) != 0 {
		t.Fatalf("empty store returned %v", ids(vs))
	}
	// Tilts of growing size away from axis 0: similarity falls with i.
	var ms []*memory.Memory
	for i := range 12 {
		v := unit(0, float32(i)*0.3)
		// Scale must not matter: similarity is cosine.
		for j := range v {
			v[j] *= float32(1 + i)
		}
		ms = append(ms, newMem(fmt.Sprintf("vector %d", i), memory.TierSemantic, v))
	}
	noVec := newMem("no embedding", memory.TierSemantic, nil)
	insert(t, st, alice, ms[6:]...)
	insert(t, st, alice, noVec)
	insert(t, st, alice, ms[:6]...)
	insert(t, st, bob, newMem("bob's exact match", memory.TierSemantic, unit(0, 0)))

	vs, err = st.VectorSearch(ctx, alice, unit(0, 0), o)
	must(t, err)
	if !slices.Equal(ids(vs), memIDs(ms)) {
		t.Fatalf("ranking = %v, want %v", ids(vs), memIDs(ms))
	}
	for i, c := range vs {
		e := float64(i) * 0.3
		want := 1 / math.Sqrt(1+e*e)
		if math.Abs(c.Score-want) > 1e-4 {
			t.Errorf("candidate %d: score %v, want cosine %v", i, c.Score, want)
		}
		if c.Memory.Scope != alice || c.Memory.Text != ms[i].Text || len(c.Memory.Embedding) != Dim {
			t.Errorf("candidate %d memory incomplete: %+v", i, c.Memory)
		}
	}
	vs, err = st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: t0, Limit: 3})
	must(t, err)
	if !slices.Equal(ids(vs), memIDs(ms[:3])) {
		t.Errorf("limit 3 = %v", ids(vs))
	}
	// A scaled query gives the same scores.
	q := unit(0, 0)
	q[0] = 42
	vs2, err := st.VectorSearch(ctx, alice, q, memory.SearchOptions{At: t0, Limit: 3})
	must(t, err)
	for i := range vs2 {
		if math.Abs(vs2[i].Score-vs[i].Score) > 1e-5 {
			t.Errorf("scaled query changed score %d: %v vs %v", i, vs2[i].Score, vs[i].Score)
		}
	}
	// Opposite direction scores negative and ranks last.
	insert(t, st, alice, newMem("opposite", memory.TierSemantic, []float32{-1, 0, 0, 0, 0, 0, 0, 0}))
	vs, err = st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: t0, Limit: 100})
	must(t, err)
	if len(vs) != 13 || vs[12].Memory.Text != "opposite" || vs[12].Score > -0.99 {
		t.Errorf("opposite vector: %d candidates, last %+v", len(vs), vs[len(vs)-1])
	}
	var many []*memory.Memory
	for i := range 60 {
		many = append(many, newMem(fmt.Sprintf("many %d", i), memory.TierEvent, unit(i, 0.5)))
	}
	insert(t, st, aliceW, many...)
	vs, err = st.VectorSearch(ctx, aliceW, unit(0, 0), memory.SearchOptions{At: t0})
	must(t, err)
	if len(vs) != 50 {
		t.Errorf("default limit returned %d, want 50", len(vs))
	}
	for i := 1; i < len(vs); i++ {
		if vs[i].Score > vs[i-1].Score {
			t.Errorf("scores not descending at %d", i)
		}
	}
}

func (s *suite) testVectorSearchFilters(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	mk := func(name string, tier memory.Tier, eps float32) *memory.Memory {
		m := newMem(name, tier, unit(0, eps))
		m.ID = name
		return m
	}
	ev := mk("event", memory.TierEvent, 0.0)
	cons := mk("consolidated", memory.TierEvent, 0.1)
	cons.ConsolidatedAt = ptr(t0)
	epi := mk("episodic", memory.TierEpisodic, 0.2)
	sem := mk("semantic", memory.TierSemantic, 0.3)
	prof := mk("profile", memory.TierProfile, 0.4)
	exp := mk("expired", memory.TierSemantic, 0.5)
	exp.ExpiresAt = ptr(at(time.Hour))
	arch := mk("archived", memory.TierSemantic, 0.6)
	sup := mk("superseded", memory.TierSemantic, 0.7)
	insert(t, st, alice, ev, cons, epi, sem, prof, exp, arch, sup)
	must(t, st.Archive(ctx, alice, []string{arch.ID}, t0))
	must(t, st.Supersede(ctx, alice, sup.ID, sem.ID, t0))
	later := at(2 * time.Hour)
	cases := []struct {
		name string
		o    memory.SearchOptions
		want []string
	}{
		{"live", memory.SearchOptions{At: later}, []string{"event", "consolidated", "episodic", "semantic", "profile"}},
		{"live before expiry", memory.SearchOptions{At: t0}, []string{"event", "consolidated", "episodic", "semantic", "profile", "expired"}},
		{"dead", memory.SearchOptions{At: later, IncludeDead: true}, []string{"event", "consolidated", "episodic", "semantic", "profile", "expired", "archived", "superseded"}},
		{"tiers", memory.SearchOptions{At: later, Tiers: []memory.Tier{memory.TierSemantic, memory.TierProfile}}, []string{"semantic", "profile"}},
		{"tiers dead", memory.SearchOptions{At: later, IncludeDead: true, Tiers: []memory.Tier{memory.TierSemantic}}, []string{"semantic", "expired", "archived", "superseded"}},
		{"exclude consolidated", memory.SearchOptions{At: later, ExcludeConsolidated: true}, []string{"event", "episodic", "semantic", "profile"}},
		{"limit after filter", memory.SearchOptions{At: later, Limit: 2, Tiers: []memory.Tier{memory.TierEpisodic, memory.TierProfile}}, []string{"episodic", "profile"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs, err := st.VectorSearch(ctx, alice, unit(0, 0), c.o)
			must(t, err)
			if !slices.Equal(ids(vs), c.want) {
				t.Errorf("VectorSearch(%+v) = %v, want %v", c.o, ids(vs), c.want)
			}
		})
	}
	// At zero means now: the expiry at t0+1h is long past.
	vs, err := st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{})
	must(t, err)
	if slices.Contains(ids(vs), "expired") {
		t.Error("At zero did not mean now")
	}
}

// testVectorSearchCoherence interleaves searches with every kind of write
// so a backend that caches vectors must keep the cache in step.
func (s *suite) testVectorSearchCoherence(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	search := func(sc memory.Scope, q []float32) []string {
		t.Helper()
		vs, err := st.VectorSearch(ctx, sc, q, memory.SearchOptions{At: at(time.Hour), Limit: 100})
		must(t, err)
		return ids(vs)
	}
	a := newMem("a", memory.TierSemantic, unit(0, 0))
	insert(t, st, alice, a)
	if got := search(alice, unit(0, 0)); !slices.Equal(got, []string{a.ID}) {
		t.Fatalf("after first insert: %v", got)
	}
	b := newMem("b", memory.TierSemantic, unit(0, 0.05))
	insert(t, st, alice, b)
	if got := search(alice, unit(0, 0)); !slices.Equal(got, []string{a.ID, b.ID}) {
		t.Errorf("after second insert: %v", got)
	}
	// Move a away by update.
	ua := get(t, st, alice, a.ID)
	ua.Embedding = unit(4, 0)
	must(t, st.Update(ctx, alice, ua))
	if got := search(alice, unit(4, 0)); got[0] != a.ID {
		t.Errorf("after moving a: %v", got)
	}
	if got := search(alice, unit(0, 0)); got[0] != b.ID {
		t.Errorf("after moving a, b should lead: %v", got)
	}
	// Dropping the embedding removes it from vector search.
	ua.Embedding = nil
	must(t, st.Update(ctx, alice, ua))
	if got := search(alice, unit(4, 0)); slices.Contains(got, a.ID) {
		t.Errorf("memory without embedding still found: %v", got)
	}
	ua.Embedding = unit(4, 0)
	must(t, st.Update(ctx, alice, ua))
	// Update can also archive, expire and supersede directly.
	ub := get(t, st, alice, b.ID)
	ub.ExpiresAt = ptr(at(30 * time.Minute))
	must(t, st.Update(ctx, alice, ub))
	if got := search(alice, unit(0, 0)); slices.Contains(got, b.ID) {
		t.Errorf("expired by update still found: %v", got)
	}
	ub.ExpiresAt = nil
	ub.ArchivedAt = ptr(t0)
	must(t, st.Update(ctx, alice, ub))
	if got := search(alice, unit(0, 0)); slices.Contains(got, b.ID) {
		t.Errorf("archived by update still found: %v", got)
	}
	ub.ArchivedAt = nil
	ub.Tier = memory.TierProfile
	must(t, st.Update(ctx, alice, ub))
	vs, err := st.VectorSearch(ctx, alice, unit(0, 0), memory.SearchOptions{At: at(time.Hour), Tiers: []memory.Tier{memory.TierProfile}})
	must(t, err)
	if !slices.Equal(ids(vs), []string{b.ID}) {
		t.Errorf("tier changed by update: %v", ids(vs))
	}
	// Limit 1 after each lifecycle change must return the next best live
	// memory, not come back empty because a stale candidate took the slot.
	first := func(o memory.SearchOptions) string {
		t.Helper()
		o.At, o.Limit = at(time.Hour), 1
		vs, err := st.VectorSearch(ctx, alice, unit(6, 0), o)
		must(t, err)
		if len(vs) == 0 {
			return ""
		}
		return vs[0].Memory.ID
	}
	var lc []*memory.Memory
	for i := range 6 {
		lc = append(lc, newMem(fmt.Sprintf("lifecycle %d", i), memory.TierEvent, unit(6, float32(i)*0.1)))
	}
	insert(t, st, alice, lc...)
	if got := first(memory.SearchOptions{}); got != lc[0].ID {
		t.Fatalf("lifecycle best = %s, want %s", got, lc[0].ID)
	}
	must(t, st.Archive(ctx, alice, []string{lc[0].ID}, t0))
	if got := first(memory.SearchOptions{}); got != lc[1].ID {
		t.Errorf("after archive, best = %q, want %s", got, lc[1].ID)
	}
	must(t, st.Supersede(ctx, alice, lc[1].ID, lc[5].ID, t0))
	if got := first(memory.SearchOptions{}); got != lc[2].ID {
		t.Errorf("after supersede, best = %q, want %s", got, lc[2].ID)
	}
	must(t, st.MarkConsolidated(ctx, alice, []string{lc[2].ID}, t0))
	if got := first(memory.SearchOptions{ExcludeConsolidated: true}); got != lc[3].ID {
		t.Errorf("after consolidation, best = %q, want %s", got, lc[3].ID)
	}
	u3 := get(t, st, alice, lc[3].ID)
	u3.ExpiresAt = ptr(t0)
	must(t, st.Update(ctx, alice, u3))
	if got := first(memory.SearchOptions{ExcludeConsolidated: true}); got != lc[4].ID {
		t.Errorf("after expiry by update, best = %q, want %s", got, lc[4].ID)
	}
	must(t, st.Restore(ctx, alice, []string{lc[0].ID}))
	if got := first(memory.SearchOptions{}); got != lc[0].ID {
		t.Errorf("after restore, best = %q, want %s", got, lc[0].ID)
	}
	must(t, st.Archive(ctx, alice, []string{lc[0].ID}, t0))
	if _, err := st.Purge(ctx, alice, at(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := first(memory.SearchOptions{IncludeDead: true}); got != lc[1].ID {
		t.Errorf("after purge, best with dead = %q, want %s", got, lc[1].ID)
	}
	// lc[0] (archived) and lc[3] (expired) were purged.
	for _, m := range []*memory.Memory{lc[1], lc[2], lc[4], lc[5]} {
		must(t, st.Delete(ctx, alice, m.ID))
	}

	// Another scope's writes never show up here.
	insert(t, st, bob, newMem("bob", memory.TierSemantic, unit(0, 0)))
	insert(t, st, aliceW, newMem("alice at work", memory.TierSemantic, unit(0, 0)))
	if got := search(alice, unit(0, 0)); len(got) != 2 {
		t.Errorf("other scopes leaked in: %v", got)
	}
	must(t, st.Delete(ctx, alice, b.ID))
	if got := search(alice, unit(0, 0)); !slices.Equal(got, []string{a.ID}) {
		t.Errorf("after delete: %v", got)
	}
	// A user deletion empties the cache of every scope of that user.
	admin := Backend(st)
	_, err = admin.DeleteUser(ctx, "alice", "")
	must(t, err)
	if got := search(alice, unit(0, 0)); len(got) != 0 {
		t.Errorf("after deleting the user: %v", got)
	}
	if got := search(aliceW, unit(0, 0)); len(got) != 0 {
		t.Errorf("after deleting the user, work namespace: %v", got)
	}
	if got := search(bob, unit(0, 0)); len(got) != 1 {
		t.Errorf("another user lost data: %v", got)
	}
	insert(t, st, alice, newMem("a fresh start", memory.TierSemantic, unit(1, 0)))
	if got := search(alice, unit(1, 0)); len(got) != 1 {
		t.Errorf("insert after user deletion: %v", got)
	}
}

func (s *suite) testLexicalSearch(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	o := memory.SearchOptions{At: t0}
	mk := func(id, text string) *memory.Memory {
		m := newMem(text, memory.TierSemantic, nil)
		m.ID = id
		return m
	}
	insert(t, st, alice,
		mk("ts", "The user prefers TypeScript over JavaScript for web projects."),
		mk("py", "The user writes Python scripts for data analysis."),
		mk("dog", "The user's dog is called Biscuit."),
		mk("ts2", "TypeScript, TypeScript, TypeScript: the user really loves TypeScript."),
	)
	insert(t, st, bob, mk("bob-ts", "Bob also prefers TypeScript."))

	ls, err := st.LexicalSearch(ctx, alice, "typescript", o)
	must(t, err)
	if got := ids(ls); len(got) != 2 || !slices.Contains(got, "ts") || !slices.Contains(got, "ts2") {
		t.Errorf("typescript = %v", got)
	}
	for _, c := range ls {
		if c.Score <= 0 {
			t.Errorf("%s: score %v, want positive", c.Memory.ID, c.Score)
		}
		if c.Memory.Scope != alice || c.Memory.Text == "" {
			t.Errorf("candidate memory incomplete: %+v", c.Memory)
		}
	}
	// More matching terms rank higher.
	ls, err = st.LexicalSearch(ctx, alice, "What does the user prefer for web projects: TypeScript?", o)
	must(t, err)
	if len(ls) == 0 || ls[0].Memory.ID != "ts" {
		t.Errorf("best match for a multi-term query = %v, want ts first", ids(ls))
	}
	for i := 1; i < len(ls); i++ {
		if ls[i].Score > ls[i-1].Score {
			t.Errorf("scores not descending: %v", ls)
		}
	}
	// Case and punctuation do not matter; any term matching is enough.
	ls, err = st.LexicalSearch(ctx, alice, "BISCUIT??", o)
	must(t, err)
	if !slices.Equal(ids(ls), []string{"dog"}) {
		t.Errorf("BISCUIT = %v", ids(ls))
	}
	ls, err = st.LexicalSearch(ctx, alice, "python zebra", o)
	must(t, err)
	if !slices.Equal(ids(ls), []string{"py"}) {
		t.Errorf("python zebra = %v", ids(ls))
	}
	// Queries that look like query syntax are just words.
	for _, q := range []string{`"unbalanced`, "NOT dog", "dog*", "user AND", "OR", "NEAR(dog biscuit)", "col:dog", "-dog", "(dog", "^dog"} {
		if _, err := st.LexicalSearch(ctx, alice, q, o); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
	ls, err = st.LexicalSearch(ctx, alice, "NOT dog", o)
	must(t, err)
	if !slices.Contains(ids(ls), "dog") {
		t.Errorf("NOT was treated as an operator: %v", ids(ls))
	}
	for _, q := range []string{"", "   ", "?!...", "zebra"} {
		ls, err := st.LexicalSearch(ctx, alice, q, o)
		must(t, err)
		if len(ls) != 0 {
			t.Errorf("query %q matched %v", q, ids(ls))
		}
	}
	ls, err = st.LexicalSearch(ctx, alice, "user", memory.SearchOptions{At: t0, Limit: 2})
	must(t, err)
	if len(ls) != 2 {
		t.Errorf("limit 2 returned %d", len(ls))
	}
}

func (s *suite) testLexicalSearchCJK(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	o := memory.SearchOptions{At: t0}
	mk := func(id, text string) *memory.Memory {
		m := newMem(text, memory.TierSemantic, nil)
		m.ID = id
		return m
	}
	insert(t, st, alice,
		mk("tea", "用户喜欢喝乌龙茶，不喜欢咖啡。"),
		mk("city", "用户住在上海浦东新区。"),
		mk("supplier", "供应商把交货日期从5月10日改到5月18日。"),
		mk("ja", "ユーザーは東京に住んでいて、ラーメンが好きです。"),
		mk("mixed", "我最喜欢的编程语言是Go和TypeScript。"),
	)
	insert(t, st, bob, mk("bob-tea", "鲍勃也喜欢喝乌龙茶。"))
	cases := []struct {
		q    string
		want string
	}{
		{"我喜欢喝什么茶？", "tea"},
		{"乌龙茶", "tea"},
		{"用户住在哪里", "city"},
		{"上海", "city"},
		{"交货日期改了吗", "supplier"},
		{"東京", "ja"},
		{"ラーメン", "ja"},
		{"编程语言", "mixed"},
		{"typescript", "mixed"},
	}
	for _, c := range cases {
		ls, err := st.LexicalSearch(ctx, alice, c.q, o)
		must(t, err)
		if len(ls) == 0 || ls[0].Memory.ID != c.want {
			t.Errorf("query %q = %v, want %s first", c.q, ids(ls), c.want)
		}
		for _, l := range ls {
			if l.Memory.Scope != alice {
				t.Errorf("query %q returned another scope's memory %s", c.q, l.Memory.ID)
			}
		}
	}
	ls, err := st.LexicalSearch(ctx, alice, "北京", o)
	must(t, err)
	if len(ls) != 0 {
		t.Errorf("北京 matched %v", ids(ls))
	}
}

func (s *suite) testLexicalSearchFilters(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	mk := func(name string, tier memory.Tier) *memory.Memory {
		m := newMem(name+" talks about sailing boats", tier, nil)
		m.ID = name
		return m
	}
	ev := mk("event", memory.TierEvent)
	cons := mk("consolidated", memory.TierEvent)
	cons.ConsolidatedAt = ptr(t0)
	sem := mk("semantic", memory.TierSemantic)
	exp := mk("expired", memory.TierSemantic)
	exp.ExpiresAt = ptr(at(time.Hour))
	arch := mk("archived", memory.TierSemantic)
	sup := mk("superseded", memory.TierSemantic)
	insert(t, st, alice, ev, cons, sem, exp, arch, sup)
	must(t, st.Archive(ctx, alice, []string{arch.ID}, t0))
	must(t, st.Supersede(ctx, alice, sup.ID, sem.ID, t0))
	later := at(2 * time.Hour)
	cases := []struct {
		name string
		o    memory.SearchOptions
		want []string
	}{
		{"live", memory.SearchOptions{At: later}, []string{"consolidated", "event", "semantic"}},
		{"before expiry", memory.SearchOptions{At: t0}, []string{"consolidated", "event", "expired", "semantic"}},
		{"dead", memory.SearchOptions{At: later, IncludeDead: true}, []string{"archived", "consolidated", "event", "expired", "semantic", "superseded"}},
		{"tiers", memory.SearchOptions{At: later, Tiers: []memory.Tier{memory.TierEvent}}, []string{"consolidated", "event"}},
		{"exclude consolidated", memory.SearchOptions{At: later, ExcludeConsolidated: true}, []string{"event", "semantic"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ls, err := st.LexicalSearch(ctx, alice, "sailing", c.o)
			must(t, err)
			got := ids(ls)
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("LexicalSearch(%+v) = %v, want %v", c.o, got, c.want)
			}
		})
	}
	// Many better-ranked dead matches must not crowd out a live one.
	var dead []*memory.Memory
	for i := range 120 {
		m := newMem(fmt.Sprintf("regatta regatta regatta %d", i), memory.TierEvent, nil)
		dead = append(dead, m)
	}
	insert(t, st, aliceW, dead...)
	must(t, st.Archive(ctx, aliceW, memIDs(dead), t0))
	liveOne := newMem("a long note that mentions a regatta once among many other words about the weekend", memory.TierEvent, nil)
	insert(t, st, aliceW, liveOne)
	for _, limit := range []int{1, 5, 50} {
		ls, err := st.LexicalSearch(ctx, aliceW, "regatta", memory.SearchOptions{At: later, Limit: limit})
		must(t, err)
		if !slices.Equal(ids(ls), []string{liveOne.ID}) {
			t.Errorf("limit %d behind %d dead matches: %v, want the live one", limit, len(dead), ids(ls))
		}
	}
	ls, err := st.LexicalSearch(ctx, aliceW, "regatta", memory.SearchOptions{At: later, Limit: 200, IncludeDead: true})
	must(t, err)
	if len(ls) != len(dead)+1 {
		t.Errorf("with dead: %d matches, want %d", len(ls), len(dead)+1)
	}
}

// testLexicalScopeStats checks that lexical scores count the scope's own
// memories only: another user's memories, however many share the query's
// words, move none of alice's scores (nor does a scope of her own other
// namespace).
func (s *suite) testLexicalScopeStats(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	var ms []*memory.Memory
	for i := range 12 {
		ms = append(ms, newMem(fmt.Sprintf("note %d: tea with lemon and honey, walk %d", i, i%3), memory.TierSemantic, nil))
	}
	ms[3].Text = "tea tea tea"
	insert(t, st, alice, ms...)
	queries := []string{"tea", "lemon honey", "walk 2 tea"}
	search := func() [][]memory.Candidate {
		t.Helper()
		out := make([][]memory.Candidate, len(queries))
		for i, q := range queries {
			cs, err := st.LexicalSearch(ctx, alice, q, memory.SearchOptions{At: t0})
			must(t, err)
			if len(cs) == 0 {
				t.Fatalf("query %q matched nothing", q)
			}
			out[i] = cs
		}
		return out
	}
	before := search()
	others := func(n int) []*memory.Memory {
		var out []*memory.Memory
		for i := range n {
			out = append(out, newMem(fmt.Sprintf("tea %d and more tea, no lemon", i), memory.TierSemantic, nil))
		}
		return out
	}
	insert(t, st, bob, others(200)...)
	insert(t, st, aliceW, others(50)...)
	after := search()
	for i, q := range queries {
		if !slices.Equal(ids(after[i]), ids(before[i])) {
			t.Errorf("query %q: ranking %v, was %v before other scopes' memories", q, ids(after[i]), ids(before[i]))
			continue
		}
		for j := range after[i] {
			if math.Abs(after[i][j].Score-before[i][j].Score) > 1e-9 {
				t.Errorf("query %q, candidate %d: score %v, was %v before other scopes' memories", q, j, after[i][j].Score, before[i][j].Score)
			}
		}
	}
}
