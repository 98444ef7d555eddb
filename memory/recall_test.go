package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/policy"
)

// testSearcher is an in-memory Searcher/ProfileLister over a slice: a test
// double for the narrow interfaces recall consumes. stale makes it return
// dead memories too, as a store whose clock disagrees with the query's.
type testSearcher struct {
	mems  []*Memory
	stale bool
	mu    sync.Mutex // the Recaller runs both searches at once
	opts  []SearchOptions
}

func (s *testSearcher) record(o SearchOptions) {
	s.mu.Lock()
	s.opts = append(s.opts, o)
	s.mu.Unlock()
}

func (s *testSearcher) keep(sc Scope, m *Memory, o SearchOptions) bool {
	switch {
	case m.Scope != sc:
		return false
	case !s.stale && !o.IncludeDead && !m.Live(o.At):
		return false
	case o.Tiers != nil && !slices.Contains(o.Tiers, m.Tier):
		return false
	case o.ExcludeConsolidated && m.ConsolidatedAt != nil:
		return false
	}
	return true
}

func (s *testSearcher) top(hits []Candidate, limit int) []Candidate {
	slices.SortStableFunc(hits, func(a, b Candidate) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Memory.ID, b.Memory.ID)
	})
	return hits[:min(len(hits), limit)]
}

func (s *testSearcher) VectorSearch(_ context.Context, sc Scope, vec []float32, o SearchOptions) ([]Candidate, error) {
	s.record(o)
	var hits []Candidate
	for _, m := range s.mems {
		if s.keep(sc, m, o) && len(m.Embedding) > 0 {
			hits = append(hits, Candidate{Memory: m, Score: Cosine(vec, m.Embedding)})
		}
	}
	return s.top(hits, o.Limit), nil
}

func (s *testSearcher) LexicalSearch(_ context.Context, sc Scope, q string, o SearchOptions) ([]Candidate, error) {
	s.record(o)
	var hits []Candidate
	for _, m := range s.mems {
		if !s.keep(sc, m, o) {
			continue
		}
		have := map[string]bool{}
		eachTerm(m.Text, func(t string, _ int) { have[strings.ToLower(t)] = true })
		n := 0
		eachTerm(q, func(t string, _ int) {
			if have[strings.ToLower(t)] {
				n++
			}
		})
		if n > 0 {
			hits = append(hits, Candidate{Memory: m, Score: float64(n)})
		}
	}
	return s.top(hits, o.Limit), nil
}

func (s *testSearcher) List(_ context.Context, sc Scope, f ListFilter) (Page[*Memory], error) {
	var out []*Memory
	for _, m := range s.mems {
		if m.Scope == sc && slices.Contains(f.Tiers, m.Tier) && (f.State != StateLive || m.Live(f.At)) {
			out = append(out, m)
		}
	}
	return Page[*Memory]{Data: out}, nil
}

// vecEmbedder maps query texts to fixed vectors.
type vecEmbedder struct {
	vecs map[string][]float32
	err  error
}

func (e vecEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.vecs[t]
	}
	return out, nil
}

// rNear compares scores built from float32 embeddings.
func rNear(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

var rcScope = Scope{User: "alice", Namespace: DefaultNamespace}

func rcMem(id string, tier Tier, text string, vec ...float32) *Memory {
	return &Memory{ID: id, Scope: rcScope, Tier: tier, Text: text, Embedding: vec, CreatedAt: sT0, Value: 0.5}
}

// formulaWeights are DESIGN.md's original weights, pinned so the formula
// tests state their expected scores whatever the shipped defaults are.
var formulaWeights = policy.Weights{Similarity: 0.6, Recency: 0.3, Frequency: 0.1, Value: 0}

func newTestRecaller(t *testing.T, s *testSearcher, query string, qvec ...float32) *Recaller {
	t.Helper()
	p := policy.Default()
	p.Recall.Weights = formulaWeights
	r, err := NewRecaller(RecallerConfig{
		Search:   s,
		Profiles: s,
		Embedder: vecEmbedder{vecs: map[string][]float32{query: qvec}},
		Recall:   p.Recall,
		Decay:    p.Decay,
		Now:      func() time.Time { return sT0 },
		// Evidence sims keep the expected scores easy to state; the
		// fusion-ranked default has its own test.
		SimEvidence: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func rankedByID(res *Result) map[string]RankedCandidate {
	out := map[string]RankedCandidate{}
	for _, c := range res.Ranked {
		out[c.ID] = c
	}
	return out
}

func selectedIDs(res *Result) []string {
	var ids []string
	for _, s := range res.Selected {
		ids = append(ids, s.Memory.ID)
	}
	return ids
}

func TestRecallFormula(t *testing.T) {
	const q = "zebra"
	old := rcMem("a", TierEvent, "unrelated words", 0.6, 0.8, 0)
	old.CreatedAt = sT0.Add(-30 * sDay) // retention 0.5
	old.Hits = 0
	fresh := rcMem("b", TierSemantic, "also unrelated", 1, 0, 0)
	fresh.Hits = 10 // freq 1; hits do not matter for a fresh memory's retention
	s := &testSearcher{mems: []*Memory{old, fresh}}
	res, err := newTestRecaller(t, s, q, 1, 0, 0).Recall(context.Background(), rcScope, Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	got := rankedByID(res)
	if want := 0.6*0.6 + 0.3*0.5 + 0.1*0; !rNear(got["a"].Score, want) {
		t.Errorf("a: score %v, want %v (%+v)", got["a"].Score, want, got["a"])
	}
	if want := 0.6*1 + 0.3*1 + 0.1*1; !sNear(got["b"].Score, want) {
		t.Errorf("b: score %v, want %v (%+v)", got["b"].Score, want, got["b"])
	}
	if ids := selectedIDs(res); !slices.Equal(ids, []string{"b", "a"}) {
		t.Errorf("selected %v, want [b a]", ids)
	}
	if got["b"].Rank != 1 || got["a"].Rank != 2 || !got["a"].Injected {
		t.Errorf("ranks: %+v", res.Ranked)
	}
}

// With SimEvidence, sim = max(cosine, lexical coverage): a memory with every content term of
// the query counts as fully similar even when its vector is orthogonal; a
// memory lexical search alone found gets its cosine computed.
func TestRecallSimCombinesLexical(t *testing.T) {
	const q = "what is my dog's name"
	lexical := rcMem("lex", TierSemantic, "The dog's name is Rex.", 0, 1, 0)
	half := rcMem("half", TierSemantic, "My dog likes long walks.", 0.6, 0.8, 0)
	s := &testSearcher{mems: []*Memory{lexical, half}}
	r := newTestRecaller(t, s, q, 1, 0, 0)
	res, err := r.Recall(context.Background(), rcScope, Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	got := rankedByID(res)
	if got["lex"].Sim != 1 {
		t.Errorf("lex: sim %v, want 1 (full coverage of {dog, name})", got["lex"].Sim)
	}
	if !rNear(got["half"].Sim, 0.6) {
		t.Errorf("half: sim %v, want 0.6 (cosine beats coverage 0.5)", got["half"].Sim)
	}
	for _, sc := range res.Selected {
		if sc.Memory.ID == "lex" && (sc.Cosine != 0 || sc.Lexical != 1) {
			t.Errorf("lex evidence: cosine %v lexical %v", sc.Cosine, sc.Lexical)
		}
	}
}

func TestRecallLexicalOnlyCandidateGetsCosine(t *testing.T) {
	const q = "kiwi"
	p := policy.Default()
	p.Recall.Candidates = 2
	// Vector search returns near and mid; lexical search only kiwi, whose
	// cosine must then come from its embedding.
	near := rcMem("near", TierSemantic, "nothing in common", 1, 0, 0)
	mid := rcMem("mid", TierSemantic, "nothing either", 0.8, 0.6, 0)
	kiwi := rcMem("kiwi", TierSemantic, "kiwi and other words here", 0.6, 0.8, 0)
	s := &testSearcher{mems: []*Memory{near, mid, kiwi}}
	r, _ := NewRecaller(RecallerConfig{Search: s, Embedder: vecEmbedder{vecs: map[string][]float32{q: {1, 0, 0}}}, Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }, SimEvidence: true})
	res, err := r.Recall(context.Background(), rcScope, Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range res.Selected {
		if sc.Memory.ID == "kiwi" {
			if sc.LexicalRank != 1 || sc.VectorRank != 0 || !rNear(sc.Cosine, 0.6) || sc.Sim != 1 {
				t.Errorf("kiwi: ranks %d/%d cosine %v sim %v", sc.VectorRank, sc.LexicalRank, sc.Cosine, sc.Sim)
			}
			return
		}
	}
	t.Fatalf("kiwi not selected: %+v", res.Ranked)
}

// Fusion keeps the candidates both searches agree on when the union is
// larger than recall.candidates.
func TestRecallFusionKeepsAgreement(t *testing.T) {
	const q = "apple"
	both := rcMem("both", TierSemantic, "apple", 0.8, 0.6, 0)
	vecOnly := rcMem("vec", TierSemantic, "pear", 1, 0, 0)
	lexOnly := rcMem("lex", TierSemantic, "apple apple", 0, 1, 0)
	s := &testSearcher{mems: []*Memory{both, vecOnly, lexOnly}}
	p := policy.Default()
	p.Recall.Candidates = 2
	r, _ := NewRecaller(RecallerConfig{Search: s, Embedder: vecEmbedder{vecs: map[string][]float32{q: {1, 0, 0}}}, Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }})
	res, err := r.Recall(context.Background(), rcScope, Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	got := rankedByID(res)
	if len(res.Ranked) != 2 {
		t.Fatalf("want 2 fused candidates, got %+v", res.Ranked)
	}
	if _, ok := got["both"]; !ok {
		t.Errorf("candidate found by both searches was fused out: %+v", res.Ranked)
	}
	for _, o := range s.opts {
		if o.Limit != 2 || !o.ExcludeConsolidated || slices.Contains(o.Tiers, TierProfile) || !o.At.Equal(sT0) {
			t.Errorf("search options %+v", o)
		}
	}
}

// By default the order comes from the fusion and the level from the best
// evidence: sim = fused / best_fused × best_evidence.
func TestRecallSimFromFusion(t *testing.T) {
	const q = "apple tart"
	lex := rcMem("lex", TierSemantic, "apple pie recipe", 0.6, 0.8, 0) // lexical 1st, vector 2nd; evidence 0.6
	vec := rcMem("vec", TierSemantic, "cake", 0.8, 0.6, 0)             // vector 1st only; evidence 0.8
	s := &testSearcher{mems: []*Memory{lex, vec}}
	p := policy.Default()
	r, _ := NewRecaller(RecallerConfig{Search: s, Embedder: vecEmbedder{vecs: map[string][]float32{q: {1, 0, 0}}},
		Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }, VectorWeight: 0.5})
	res, err := r.Recall(context.Background(), rcScope, Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	got := rankedByID(res)
	k := p.Recall.RRFK
	best := 0.5/(k+2) + 1.0/(k+1)
	if !rNear(got["lex"].Sim, 0.8) || !rNear(got["vec"].Sim, (0.5/(k+1))/best*0.8) {
		t.Fatalf("fusion sims: lex %v vec %v", got["lex"].Sim, got["vec"].Sim)
	}
	if ids := selectedIDs(res); !slices.Equal(ids, []string{"lex", "vec"}) {
		t.Errorf("selected %v", ids)
	}
	// The same query with evidence sims ranks the other way.
	r.cfg.SimEvidence = true
	res, _ = r.Recall(context.Background(), rcScope, Query{Text: q})
	if ids := selectedIDs(res); !slices.Equal(ids, []string{"vec", "lex"}) {
		t.Errorf("evidence mode selected %v", ids)
	}
}

func TestRecallFilters(t *testing.T) {
	const q = "tea"
	at := sT0
	past := at.Add(-time.Hour)
	future := at.Add(time.Hour)
	mk := func(id string, f func(m *Memory)) *Memory {
		m := rcMem(id, TierSemantic, "tea note "+id, 1, 0, 0)
		if f != nil {
			f(m)
		}
		return m
	}
	mems := []*Memory{
		mk("ok", nil),
		mk("superseded", func(m *Memory) { m.ValidTo = &past; m.SupersededBy = "ok" }),
		mk("archived", func(m *Memory) { m.ArchivedAt = &past }),
		mk("expired", func(m *Memory) { m.ExpiresAt = &at }), // expiry at At is past
		mk("notyet", func(m *Memory) { m.ExpiresAt = &future }),
		mk("profile", func(m *Memory) { m.Tier = TierProfile }),
		mk("folded", func(m *Memory) { m.Tier = TierEvent; m.ConsolidatedAt = &past }),
		mk("inmsg", func(m *Memory) { m.Text = "The user drinks green tea." }),
		mk("weak", func(m *Memory) { m.Embedding = []float32{0.3, 0.95, 0}; m.Text = "unrelated" }),
		mk("nomatch", func(m *Memory) { m.Embedding = []float32{0, 1, 0}; m.Text = "unrelated"; m.Hits = 50 }),
	}
	s := &testSearcher{mems: mems, stale: true}
	p := policy.Default()
	r, _ := NewRecaller(RecallerConfig{Search: staleSearcher{s}, Embedder: vecEmbedder{vecs: map[string][]float32{q: {1, 0, 0}}}, Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }, SimEvidence: true})
	res, err := r.Recall(context.Background(), rcScope, Query{
		Text:     q,
		Exclude:  []string{"hi", "  by the way, THE USER drinks green-tea!  "},
		MinScore: 0.5,
		At:       at,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ok": "", "notyet": "", "superseded": FilteredSuperseded, "archived": FilteredArchived,
		"expired": FilteredExpired, "profile": FilteredProfile, "folded": FilteredConsolidated,
		"inmsg": FilteredInMessages, "weak": FilteredMinScore, "nomatch": FilteredNoMatch,
	}
	got := rankedByID(res)
	for id, reason := range want {
		c, ok := got[id]
		if !ok {
			t.Errorf("%s: missing from ranked list", id)
			continue
		}
		if c.Filtered != reason || c.Injected != (reason == "") {
			t.Errorf("%s: filtered %q injected %v, want %q", id, c.Filtered, c.Injected, reason)
		}
	}
	if ids := selectedIDs(res); len(ids) != 2 {
		t.Errorf("selected %v, want ok and notyet", ids)
	}
}

// staleSearcher ignores search options, as a store lagging behind the
// query's clock would: recall's own filters must still hold.
type staleSearcher struct{ s *testSearcher }

func (st staleSearcher) VectorSearch(ctx context.Context, sc Scope, vec []float32, o SearchOptions) ([]Candidate, error) {
	o.Tiers, o.ExcludeConsolidated = nil, false
	return st.s.VectorSearch(ctx, sc, vec, o)
}

func (st staleSearcher) LexicalSearch(ctx context.Context, sc Scope, q string, o SearchOptions) ([]Candidate, error) {
	o.Tiers, o.ExcludeConsolidated = nil, false
	return st.s.LexicalSearch(ctx, sc, q, o)
}

func TestRecallTieBreaksAndTopK(t *testing.T) {
	const q = "same"
	var mems []*Memory
	for i, id := range []string{"c", "a", "b", "d", "e", "f", "g"} {
		m := rcMem(id, TierSemantic, "text", 1, 0, 0)
		m.CreatedAt = sT0.Add(-time.Duration(i/2) * time.Second) // pairs share created_at
		m.LastUsedAt = sT0                                       // equal retention
		mems = append(mems, m)
	}
	s := &testSearcher{mems: mems}
	res, err := newTestRecaller(t, s, q, 1, 0, 0).Recall(context.Background(), rcScope, Query{Text: q, TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	// created desc: {c,a} newest, then {b,d}, {e,f}, g; ties by id asc.
	var order []string
	for _, c := range res.Ranked {
		order = append(order, c.ID)
	}
	if want := []string{"a", "c", "b", "d", "e", "f", "g"}; !slices.Equal(order, want) {
		t.Fatalf("ranked %v, want %v", order, want)
	}
	if ids := selectedIDs(res); !slices.Equal(ids, []string{"a", "c", "b"}) {
		t.Errorf("selected %v", ids)
	}
	if res.Ranked[3].Filtered != FilteredTopK {
		t.Errorf("4th: filtered %q, want %q", res.Ranked[3].Filtered, FilteredTopK)
	}
}

func TestRecallScopeAndErrors(t *testing.T) {
	const q = "secret"
	other := rcMem("bob1", TierSemantic, "secret plan", 1, 0, 0)
	other.Scope = Scope{User: "bob", Namespace: DefaultNamespace}
	s := &testSearcher{mems: []*Memory{other}}
	r := newTestRecaller(t, s, q, 1, 0, 0)
	res, err := r.Recall(context.Background(), rcScope, Query{Text: q})
	if err != nil || len(res.Ranked) != 0 {
		t.Fatalf("alice sees bob's memory: %+v %v", res, err)
	}
	if res, err := r.Recall(context.Background(), rcScope, Query{Text: "   "}); err != nil || len(res.Ranked) != 0 || len(s.opts) != 2 {
		t.Errorf("blank query searched: %+v %v (searches %d)", res, err, len(s.opts))
	}

	boom := errors.New("boom")
	p := policy.Default()
	r, _ = NewRecaller(RecallerConfig{Search: s, Embedder: vecEmbedder{err: boom}, Recall: p.Recall, Decay: p.Decay})
	if _, err := r.Recall(context.Background(), rcScope, Query{Text: q}); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "embed query: ") {
		t.Errorf("embedder error: %v", err)
	}
	if _, err := NewRecaller(RecallerConfig{}); err == nil {
		t.Error("NewRecaller without Search: no error")
	}
}

func TestRecallWithoutEmbedderIsLexical(t *testing.T) {
	s := &testSearcher{mems: []*Memory{rcMem("a", TierSemantic, "我喜欢喝绿茶", 1, 0, 0), rcMem("b", TierSemantic, "我住在上海", 1, 0, 0)}}
	p := policy.Default()
	r, _ := NewRecaller(RecallerConfig{Search: s, Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }})
	res, err := r.Recall(context.Background(), rcScope, Query{Text: "我喜欢什么茶？", MinScore: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if ids := selectedIDs(res); !slices.Equal(ids, []string{"a"}) {
		t.Errorf("selected %v, want [a] (ranked %+v)", ids, res.Ranked)
	}
}

func TestProfile(t *testing.T) {
	now := sT0
	gone := now.Add(-time.Hour)
	p1 := rcMem("p1", TierProfile, "Call the user Sam.")
	p2 := rcMem("p2", TierProfile, "Old name.")
	p2.ValidTo = &gone
	s := &testSearcher{mems: []*Memory{p1, p2, rcMem("f", TierSemantic, "fact")}}
	r := newTestRecaller(t, s, "x")
	got, err := r.Profile(context.Background(), rcScope)
	if err != nil || len(got) != 1 || got[0].ID != "p1" {
		t.Fatalf("Profile = %v, %v; want [p1]", got, err)
	}
	r, _ = NewRecaller(RecallerConfig{Search: s})
	if got, err := r.Profile(context.Background(), rcScope); got != nil || err != nil {
		t.Errorf("no lister: %v %v", got, err)
	}
}

func TestExcluder(t *testing.T) {
	e := newExcluder([]string{"I moved to Lisbon last week.", "Nice! Lisbon is lovely in spring, enjoy the pastel de nata."})
	cases := map[string]bool{
		"i moved to LISBON": true,
		"I moved to Lisbon last week.\nAssistant: Nice! Lisbon is lovely in spr…": true, // an event of this conversation
		"I moved to Lisbon last week.\nAssistant: Porto is nicer.":                false,
		"week. Nice": false, // never across two messages
		"":           false,
		"?!":         false,
	}
	for text, want := range cases {
		if got := e.contains(text); got != want {
			t.Errorf("contains(%q) = %v, want %v", text, got, want)
		}
	}
	if newExcluder(nil).contains("anything") {
		t.Error("no messages excluded a memory")
	}
}

// A line longer than the excluder's head is judged as a whole, wherever
// the head ends (inside a word, in punctuation, inside a rune).
func TestExcluderLongLines(t *testing.T) {
	msg := "Yesterday we finally went hiking up Sintra's hills — all of us, even Grandma Zoë!!  Then café au lait, obviously."
	e := newExcluder([]string{"unrelated", msg})
	// whole is what contains answers for a one-line text: its normalised
	// form, in full, is in the messages.
	whole := func(line string) bool {
		n := normalizeForMatch(line)
		return n != "" && strings.Contains(normalizeForMatch("unrelated")+"\n"+normalizeForMatch(msg), n)
	}
	variants := []func(string) string{
		func(s string) string { return s },
		strings.ToUpper,
		func(s string) string { return strings.ReplaceAll(s, " ", " ,  ") },
		func(s string) string { return "--" + s + " and more" },
		func(s string) string { return strings.Replace(s, "Grandma", "Grandpa", 1) },
	}
	for i := range msg {
		for v, f := range variants {
			line := f(msg[i:])
			if got, want := e.contains(line), whole(line); got != want {
				t.Fatalf("contains(%q) = %v, want %v (variant %d)", line, got, want, v)
			}
		}
	}
	if !e.contains(strings.ToUpper(msg)) || e.contains(strings.Replace(msg, "obviously", "naturally", 1)) {
		t.Error("a long line is not judged whole")
	}
}

func TestTerms(t *testing.T) {
	var got []string
	eachTerm("Rex's 狗叫小白, ok 猫! 我的狗, 宠物狗", func(s string, _ int) { got = append(got, s) })
	if want := []string{"Rex", "s", "狗", "小白", "小", "白", "ok", "猫", "狗", "宠物", "物狗", "宠", "物", "狗"}; !slices.Equal(got, want) {
		t.Errorf("eachTerm = %q, want %q", got, want)
	}
	// Words next to CJK, accented and combining letters, fullwidth and
	// digits, and bytes that are no UTF-8 (each one a separator).
	got = nil
	eachTerm("abc狗叫x2 café cafe\u0301 ｔｅａ 3.5kg\xffok\xe4\xb8z 小白", func(s string, k int) { got = append(got, fmt.Sprint(s, k)) })
	if want := []string{"abc0", "狗0", "x20", "café0", "cafe\u03010", "ｔｅａ0", "30", "5kg0", "ok0", "z0", "小白0", "小1", "白1"}; !slices.Equal(got, want) {
		t.Errorf("eachTerm = %q, want %q", got, want)
	}
	terms := contentTerms("What is my DOG's name? dog")
	if !slices.Equal(terms, []string{"dog", "nam"}) {
		t.Errorf("contentTerms = %q (stemmed)", terms)
	}
	// A one-character word matches inside a longer one; particles are
	// no terms (我的狗叫什么 asks about 狗).
	if c := coverage(contentTerms("我的狗叫什么？"), "用户养了宠物狗（名叫豆豆）。"); c < 0.6 {
		t.Errorf("CJK coverage = %v (terms %q)", c, contentTerms("我的狗叫什么？"))
	}
	if c := coverage(terms, "The Dog is called Rex"); c != 0.5 {
		t.Errorf("coverage = %v, want 0.5", c)
	}
	if c := coverage(contentTerms("hiking movies"), "We HIKED, then watched a movie"); c != 1 {
		t.Errorf("coverage of inflected words = %v, want 1 (stemmed on both sides)", c)
	}
	if n := testing.AllocsPerRun(50, func() { coverage(terms, "The Dogs were named Rex and Hiking") }); n != 0 {
		t.Errorf("coverage allocates %v times", n)
	}
}

func TestQueryPhrases(t *testing.T) {
	qt := newQueryTerms("When did she go to the LGBTQ support group? Honor the memories")
	if want := []string{"go", "lgbtq", "support", "group", "honor", "memori"}; !slices.Equal(qt.terms, want) {
		t.Fatalf("terms = %q, want %q", qt.terms, want)
	}
	for _, tc := range []struct {
		text     string
		phrases  int
		coverage float64
	}{
		{"I went to a LGBTQ support group yesterday", 2, 3.0 / 6},
		{"Group support for LGBTQ people", 0, 3.0 / 6},            // the words, not side by side in order
		{"a way to honor the memories of loved ones", 1, 2.0 / 6}, // stop words between do not break a phrase
		{"support and a group", 1, 2.0 / 6},                       // nor do several
		{"support groups, then the support group", 1, 2.0 / 6},    // inflected; counted once
		{"support. Group", 1, 2.0 / 6},
		{"", 0, 0},
	} {
		if c, n := qt.match(tc.text); n != tc.phrases || math.Abs(c-tc.coverage) > 1e-9 {
			t.Errorf("match(%q) = %v, %d; want %v, %d", tc.text, c, n, tc.coverage, tc.phrases)
		}
	}
	if n := testing.AllocsPerRun(50, func() { qt.match("We went to the LGBTQ support group and the Group support") }); n != 0 {
		t.Errorf("match allocates %v times", n)
	}
	cjk := newQueryTerms("我的狗叫小白")
	if _, n := cjk.match("朋友说我的狗叫小白"); n == 0 {
		t.Errorf("CJK bigrams side by side make no phrase")
	}
	// CJK terms compare as bytes, other non-ASCII words by case folding.
	mixed := newQueryTerms("小白 ÉCOLE straße")
	if c, _ := mixed.match("Die Straße zur école, 小白 und 小黑"); c != 1 {
		t.Errorf("mixed-script coverage = %v, want 1", c)
	}
	if c, _ := mixed.match("小黑 Strasse"); c != 0 {
		t.Errorf("coverage of other words = %v, want 0", c)
	}
	if n := testing.AllocsPerRun(50, func() { mixed.match("Die Straße zur école, 小白 und 小黑") }); n != 0 {
		t.Errorf("match allocates %v times on mixed scripts", n)
	}
}

// A memory's text and context are matched as its SearchText is, without
// joining them; a word no query term starts like still breaks a phrase.
func TestMatchTextsAsSearchText(t *testing.T) {
	qt := newQueryTerms("support group at the clothing store, 小白, Straße")
	for _, tc := range []struct{ text, context string }{
		{"I run a clothing store", "Support group meets Tuesdays"},
		{"we met at the support", "group yesterday"}, // a phrase across the newline, as SearchText reads it
		{"support big group", ""},                    // "big" is no term: no phrase
		{"support suppers group", ""},                // nor is "suppers", which starts like one
		{"朋友说小", "白 and the STRASSE straße"},
		{"", "clothing stores"},
	} {
		m := &Memory{Text: tc.text, Context: tc.context}
		c1, p1, m1 := qt.matchTexts(m.Text, m.Context)
		c2, p2, m2 := qt.matchTerms(m.SearchText())
		if c1 != c2 || p1 != p2 || m1 != m2 {
			t.Errorf("matchTexts(%q, %q) = %v, %d, %b; matchTerms(SearchText) = %v, %d, %b", tc.text, tc.context, c1, p1, m1, c2, p2, m2)
		}
	}
	if _, n := qt.match("support big group"); n != 0 {
		t.Errorf("a word between breaks no phrase: %d phrases", n)
	}
	if _, n := qt.match("support suppers group"); n != 0 {
		t.Errorf("a word starting like a term between breaks no phrase: %d phrases", n)
	}
	if _, n := qt.match("support the group"); n != 1 {
		t.Errorf("a stop word between breaks the phrase: %d phrases", n)
	}
}

// Of two memories with the same query words, the one holding them as the
// query's phrase ranks first, whatever order the searches gave.
func TestRecallPhraseRanksFirst(t *testing.T) {
	const q = "clothing store spot floor"
	// scattered holds one query word more, so lexical search ranks it first.
	scattered := rcMem("scattered", TierEvent, "every floor of the store had clothing in some spot")
	phrase := rcMem("phrase", TierEvent, "found the perfect spot for my clothing store")
	s := &testSearcher{mems: []*Memory{scattered, phrase}}
	for _, pw := range []float64{0, 0.5} {
		p := policy.Default()
		p.Recall.PhraseWeight = pw
		r, err := NewRecaller(RecallerConfig{Search: s, Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Recall(context.Background(), rcScope, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"phrase", "scattered"}
		if pw == 0 {
			want = []string{"scattered", "phrase"}
		}
		if ids := selectedIDs(res); !slices.Equal(ids, want) {
			t.Errorf("phrase_weight %v: selected %v, want %v", pw, ids, want)
		}
	}
}

func TestNormalizeForMatch(t *testing.T) {
	cases := map[string]string{
		"  The User's   dog,  REX! ": "the user s dog rex",
		"ＴＥＡ　time":                   "tea time",
		"我的狗叫 Rex。":                  "我的狗叫 rex",
		"!!!":                        "",
	}
	for in, want := range cases {
		if got := normalizeForMatch(in); got != want {
			t.Errorf("normalizeForMatch(%q) = %q, want %q", in, got, want)
		}
	}
}

// fixedSearcher returns the same candidate lists every time, so the
// benchmark measures recall's own work (fusion, scoring, filters), not a
// search.
type fixedSearcher struct{ vec, lex []Candidate }

func (f fixedSearcher) VectorSearch(context.Context, Scope, []float32, SearchOptions) ([]Candidate, error) {
	return f.vec, nil
}

func (f fixedSearcher) LexicalSearch(context.Context, Scope, string, SearchOptions) ([]Candidate, error) {
	return f.lex, nil
}

func BenchmarkRecallOverhead(b *testing.B) {
	benchRecallOverhead(b, "what did the supplier say about the delivery date in May")
}

// BenchmarkRecallOverheadCategory is BenchmarkRecallOverhead for a query
// asking for a plural category: the lexicon's look-up, a third search
// (here a fixed list) and hyponym matching of every candidate.
func BenchmarkRecallOverheadCategory(b *testing.B) {
	benchRecallOverhead(b, "what sports did the supplier say about the delivery date in May")
}

func benchRecallOverhead(b *testing.B, q string) {
	const dim = 256
	vec := func(seed int) []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32((seed*31+i*17)%97) / 97
		}
		return v
	}
	var fs fixedSearcher
	for i := range 50 {
		m := rcMem(string(rune('a'+i%26))+strings.Repeat("x", i/26)+"0000", TierEvent,
			"The supplier said delivery moves from May 10 to May 18, item "+strings.Repeat("z", i%5), vec(i)...)
		m.CreatedAt = sT0.Add(-time.Duration(i) * sDay)
		fs.vec = append(fs.vec, Candidate{Memory: m, Score: 0.9 - float64(i)/100})
		if i%2 == 0 {
			fs.lex = append(fs.lex, Candidate{Memory: m, Score: float64(50 - i)})
		}
	}
	p := policy.Default()
	r, _ := NewRecaller(RecallerConfig{Search: fs, Embedder: vecEmbedder{vecs: map[string][]float32{q: vec(7)}}, Recall: p.Recall, Decay: p.Decay})
	query := Query{Text: q, Exclude: []string{"You are helpful.", q}, MinScore: 0.35, At: sT0}
	for b.Loop() {
		if _, err := r.Recall(context.Background(), rcScope, query); err != nil {
			b.Fatal(err)
		}
	}
}

// min_score judges each candidate on its own evidence: a weak match ranked
// right behind a perfect one does not borrow its level.
func TestRecallMinScoreUsesOwnEvidence(t *testing.T) {
	const q = "zebra stripes savanna"
	p := policy.Default()
	p.Recall.Weights = policy.Weights{Similarity: 1}
	// No phrase boost: weak must keep the level fusion gives its rank.
	p.Recall.PhraseWeight = 0
	full := rcMem("full", TierSemantic, "zebra stripes on the savanna", 0, 1, 0)
	weak := rcMem("weak", TierSemantic, "a zebra at the zoo", 0, 0.2, 0.98)
	s := &testSearcher{mems: []*Memory{full, weak}}
	r, err := NewRecaller(RecallerConfig{Search: s, Embedder: vecEmbedder{vecs: map[string][]float32{q: {0, 1, 0}}},
		Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Recall(context.Background(), rcScope, Query{Text: q, MinScore: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	got := rankedByID(res)
	if ids := selectedIDs(res); !slices.Equal(ids, []string{"full"}) {
		t.Fatalf("selected %v, want [full] (weak: %+v)", ids, got["weak"])
	}
	if got["weak"].Filtered != FilteredMinScore || got["weak"].Sim < 0.5 {
		t.Errorf("weak should rank high by fusion yet fail min_score on its own evidence: %+v", got["weak"])
	}
}

// A fact extracted from a turn is not injected beside that turn's event,
// whichever ranks first; a fact from another turn is.
func TestRecallDropsFactCoveredByItsEvent(t *testing.T) {
	const q = "german language structure"
	prov := func(ids ...string) Provenance { return Provenance{RequestIDs: ids} }
	fact := rcMem("fact", TierSemantic, "The user likes the structure of the German language.")
	fact.Provenance = prov("r1")
	event := rcMem("event", TierEvent, "Learning German is tough. I like the structure of the language.\nAssistant: Keep going!")
	event.Provenance = prov("r1")
	other := rcMem("other", TierSemantic, "The user speaks German at work.")
	other.Provenance = prov("r2")
	for _, first := range []string{"fact", "event"} {
		// Equal lexical scores rank by id: the first one gets "a".
		fact.ID, event.ID = "a-fact", "b-event"
		if first == "event" {
			fact.ID, event.ID = "b-fact", "a-event"
		}
		p := policy.Default()
		p.Recall.PhraseWeight = 0
		r, err := NewRecaller(RecallerConfig{Search: &testSearcher{mems: []*Memory{fact, event, other}}, Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Recall(context.Background(), rcScope, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		ids := selectedIDs(res)
		if slices.Contains(ids, fact.ID) || !slices.Contains(ids, event.ID) || !slices.Contains(ids, "other") {
			t.Errorf("%s first: selected %v, want the event and the other fact", first, ids)
		}
		if rankedByID(res)["a-"+first].Rank != 1 {
			t.Errorf("%s first: %s is not ranked first: %+v", first, first, res.Ranked)
		}
		if got := rankedByID(res)[fact.ID]; got.Filtered != FilteredCovered || got.Injected {
			t.Errorf("%s first: fact %+v, want filtered %q", first, got, FilteredCovered)
		}
	}
}

// hybridSearcher adds HybridSearch to a testSearcher, counting its calls.
type hybridSearcher struct {
	*testSearcher
	calls int
}

func (h *hybridSearcher) HybridSearch(ctx context.Context, sc Scope, vec []float32, query string, o SearchOptions) ([]Candidate, []Candidate, error) {
	h.calls++
	v, err := h.VectorSearch(ctx, sc, vec, o)
	if err != nil {
		return nil, nil, err
	}
	l, err := h.LexicalSearch(ctx, sc, query, o)
	return v, l, err
}

// A store's HybridSearch serves recall in place of the two searches, and
// ranks exactly as they do side by side.
func TestRecallHybridSameResult(t *testing.T) {
	const q = "apple"
	mems := []*Memory{
		rcMem("both", TierSemantic, "apple", 0.8, 0.6, 0),
		rcMem("vec", TierSemantic, "pear", 1, 0, 0),
		rcMem("lex", TierSemantic, "apple apple", 0, 1, 0),
	}
	p := policy.Default()
	var ranked [2][]RankedCandidate
	for i, hybrid := range []bool{false, true} {
		s := &testSearcher{mems: mems}
		h := &hybridSearcher{testSearcher: s}
		var search Searcher = s
		if hybrid {
			search = h
		}
		r, err := NewRecaller(RecallerConfig{Search: search, Embedder: vecEmbedder{vecs: map[string][]float32{q: {1, 0, 0}}}, Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Recall(context.Background(), rcScope, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.opts) != 2 {
			t.Fatalf("hybrid=%v: %d searches, want vector and lexical", hybrid, len(s.opts))
		}
		if want := map[bool]int{false: 0, true: 1}[hybrid]; h.calls != want {
			t.Fatalf("hybrid=%v: %d HybridSearch calls, want %d", hybrid, h.calls, want)
		}
		ranked[i] = res.Ranked
	}
	if len(ranked[0]) != 3 || !reflect.DeepEqual(ranked[0], ranked[1]) {
		t.Fatalf("side by side %+v\nhybrid %+v", ranked[0], ranked[1])
	}
}

// An explicit note that clears the starting threshold is selected however
// far the adaptive threshold drifted; an ordinary memory is not.
func TestRecallExplicitNoteSurvivesDrift(t *testing.T) {
	const q = "zebra stripes savanna"
	p := policy.Default()
	p.Recall.Weights = policy.Weights{Similarity: 1}
	p.Recall.PhraseWeight = 0
	note := rcMem("note", TierSemantic, "zebra stripes on the savanna", 0, 1, 0)
	note.Source = SourceExplicit
	plain := rcMem("plain", TierSemantic, "zebra stripes on the savanna plains", 0, 1, 0)
	s := &testSearcher{mems: []*Memory{note, plain}}
	r, err := NewRecaller(RecallerConfig{Search: s, Embedder: vecEmbedder{vecs: map[string][]float32{q: {0, 1, 0}}},
		Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Recall(context.Background(), rcScope, Query{Text: q, MinScore: 1.01, ExplicitMinScore: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if ids := selectedIDs(res); !slices.Equal(ids, []string{"note"}) {
		t.Fatalf("selected %v, want [note] (%+v)", ids, rankedByID(res))
	}
}

func TestRecallAnswerRanksFirst(t *testing.T) {
	const q = "Which board game did Nate play at the convention?"
	// other holds three of the query's words, so lexical search ranks it
	// first; answer holds one, and is the turn that answers the question
	// its context ends with.
	other := rcMem("other", TierEvent, "The convention had a board game corner.")
	answer := rcMem("answer", TierEvent, "Catan, all night long at the convention!")
	answer.Context = "9 October 2022\nIt was great, so many people.\nAssistant: Which board game did you play?"
	// The same context, not ending with the question, is no answer.
	told := rcMem("told", TierEvent, "Catan again, at the convention!")
	told.Context = "9 October 2022\nWhich board game did you play? Tell me.\nAssistant: Sure."
	s := &testSearcher{mems: []*Memory{other, answer, told}}
	for _, aw := range []float64{0, 0.5} {
		p := policy.Default()
		p.Recall.AnswerWeight = aw
		r, err := NewRecaller(RecallerConfig{Search: s, Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Recall(context.Background(), rcScope, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"answer", "other", "told"}
		if aw == 0 {
			want = []string{"other", "answer", "told"}
		}
		if ids := selectedIDs(res); !slices.Equal(ids, want) {
			t.Errorf("answer_weight %v: selected %v, want %v", aw, ids, want)
		}
	}
}

// A temporary state that holds answers a message about the present on
// little evidence; once it has expired, or for a message that does not
// speak of now, or as a lasting memory, the threshold applies as ever.
func TestRecallTemporaryStateForNow(t *testing.T) {
	p := policy.Default()
	p.Recall.Weights = policy.Weights{Similarity: 1}
	p.Recall.PhraseWeight = 0
	until := sT0.Add(48 * time.Hour)
	state := rcMem("state", TierSemantic, "The user has a bad cold this week.", 0, 1, 0)
	state.Context = "today now"
	state.ExpiresAt = &until
	lasting := rcMem("lasting", TierSemantic, "The user has a bad knee.", 0, 1, 0)
	lasting.Context = "today now"
	s := &testSearcher{mems: []*Memory{state, lasting}}
	for _, tc := range []struct {
		q    string
		at   time.Time
		want []string
	}{
		{"Should I go running today?", sT0, []string{"state"}},
		{"Should I go running tomorrow?", sT0, nil},
		{"Should I go running today?", sT0.Add(72 * time.Hour), nil},
	} {
		vecs := map[string][]float32{tc.q: {0, 1, 0}}
		r, err := NewRecaller(RecallerConfig{Search: s, Embedder: vecEmbedder{vecs: vecs},
			Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return tc.at }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Recall(context.Background(), rcScope, Query{Text: tc.q, MinScore: 1.01, At: tc.at})
		if err != nil {
			t.Fatal(err)
		}
		if ids := selectedIDs(res); !slices.Equal(ids, tc.want) {
			t.Errorf("%q at %v: selected %v, want %v (%+v)", tc.q, tc.at, ids, tc.want, rankedByID(res))
		}
	}
}

// A message asking for a category ("What martial arts …") finds the
// memories naming its kinds (karate, judo) through the lexicon, which
// share no word with it; without the expansion, or for a message that
// names the word without asking for its kinds, they are not found.
func TestRecallHyponyms(t *testing.T) {
	karate := rcMem("karate", TierEvent, "I started karate classes last spring.")
	judo := rcMem("judo", TierEvent, "Judo tournament on Saturday, wish me luck!")
	other := rcMem("other", TierEvent, "John painted the fence on Sunday.")
	s := &testSearcher{mems: []*Memory{karate, judo, other}}
	for _, tc := range []struct {
		q    string
		hw   float64
		want []string
	}{
		{"What martial arts has John done?", 0.5, []string{"judo", "karate"}},
		{"What martial arts has John done?", 0, nil},
		// The category is not what this one asks for.
		{"When did John write about martial arts?", 0.5, nil},
	} {
		p := policy.Default()
		p.Recall.HyponymWeight = tc.hw
		r, err := NewRecaller(RecallerConfig{Search: s, Recall: p.Recall, Decay: p.Decay, Now: func() time.Time { return sT0 }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Recall(context.Background(), rcScope, Query{Text: tc.q, MinScore: 0.2})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, id := range selectedIDs(res) {
			if id != "other" {
				got = append(got, id)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q (hyponym_weight %v): selected %v, want %v", tc.q, tc.hw, selectedIDs(res), tc.want)
		}
	}
}

func TestQueryTermsAsked(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string // the hyponyms' presence: a few of them
		none bool
	}{
		{q: "What European countries has Maria been to?", want: []string{"spain", "france"}},
		{q: "What styles of dance does Jon like?", want: []string{"ballet"}},
		{q: "What kinds of soups did John make?", want: []string{"gazpacho"}},
		{q: "Which desserts has Maria made?", want: []string{"tiramisu"}},
		{q: "What sports does John like?", want: []string{"football", "swimming"}},
		// One thing asked for, which its memory names as such.
		{q: "What kind of soup did John make?", none: true},
		// A category is its phrase's last word: "helps" is a verb here,
		// not the plural of "help".
		{q: "Which activity helps Nate escape?", none: true},
		{q: "Which classical musicians does Melanie like?", want: []string{"pianist"}},
		{q: "What did Caroline research?", none: true},              // a verb after a name
		{q: "What type of volunteering has John done?", none: true}, // "john" is a toilet in WordNet, never a name's kinds
		{q: "When did Caroline go to the support group?", none: true},
		{q: "What are the new shoes for?", none: true}, // "news" is no plural of "new"
	} {
		qt := newQueryTerms(tc.q)
		words := qt.expand()
		if tc.none {
			if len(words) > 0 {
				t.Errorf("%q expands to %v", tc.q, words)
			}
			continue
		}
		for _, w := range tc.want {
			if !slices.Contains(words, w) {
				t.Errorf("%q expands to %v, lacks %q", tc.q, words, w)
			}
		}
		// Matching counts a hyponym as its category's terms.
		c, _ := qt.match("I loved the " + tc.want[0] + " there")
		if c == 0 {
			t.Errorf("%q: a memory naming %q matches no term", tc.q, tc.want[0])
		}
	}
}
