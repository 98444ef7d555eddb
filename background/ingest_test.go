package background

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

func forBackends(t *testing.T, fn func(t *testing.T, backend string)) {
	for _, b := range backends {
		t.Run(b, func(t *testing.T) { fn(t, b) })
	}
}

func TestIngestPaths(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		s := scope("alice")
		ctx := context.Background()
		noise := []string{"ok", "哈哈哈", "/reset", "好的", "hi"}
		for _, n := range noise {
			e.say(s, n)
		}
		fact := e.say(s, "I live in Lisbon.")
		remember := e.say(s, "Please remember that I'm allergic to peanuts.")
		profile := e.say(s, "From now on, answer in French.")
		// A question is kept for an informative reply; one answered by
		// nothing to keep leaves no memory.
		ev := e.turn(s, "Can you explain how the Raft election timeout works with 150ms intervals?",
			"Each follower waits a random 150 to 300ms without a heartbeat before it starts an election, so split votes are rare.")
		if err := e.q.Enqueue(ctx, ev); err != nil {
			t.Fatal(err)
		}
		asked := e.say(s, "What's the capital of Australia?")
		fenced := e.turn(s, "<memory>\n- [fact] The user lives in Lisbon.\n</memory>\nWhat about Paxos then", "Paxos is…")
		if err := e.q.Enqueue(ctx, fenced); err != nil {
			t.Fatal(err)
		}
		e.wait()

		all := e.list(s, memory.StateLive)
		if got := e.q.IngestedTurns(); got != int64(len(noise)+6) {
			t.Errorf("ingested %d turns, want %d", got, len(noise)+6)
		}
		for _, m := range all {
			for _, n := range noise {
				if strings.TrimSpace(userPart(m.Text)) == n {
					t.Errorf("noise %q stored as %s", n, m.Tier)
				}
			}
			if strings.Contains(m.Text, "<memory>") || (m.Tier == memory.TierEvent && strings.Contains(m.Text, "lives in Lisbon")) {
				t.Errorf("fenced memory re-extracted: %q", m.Text)
			}
		}
		byReq := func(id string) *memory.Memory {
			for _, m := range all {
				if slices.Contains(m.Provenance.RequestIDs, id) {
					return m
				}
			}
			t.Fatalf("no memory from %s among %d", id, len(all))
			return nil
		}
		for _, m := range all {
			if slices.Contains(m.Provenance.RequestIDs, asked.RequestID) {
				t.Errorf("a question answered by nothing to keep stored as %s: %q", m.Tier, m.Text)
			}
		}
		m := byReq(fact.RequestID)
		if (m.Tier != memory.TierSemantic && m.Tier != memory.TierProfile) || m.Key != "user.lives_in" || m.Source != memory.SourceExtracted || !slices.Equal(m.Provenance.TurnRefs, fact.Refs) {
			t.Errorf("implicit fact: %+v", m)
		}
		m = byReq(remember.RequestID)
		if m.Source != memory.SourceExplicit || !m.NoDecay || m.Value < 0.8 || !strings.Contains(m.Text, "peanut") {
			t.Errorf("explicit remember: %+v", m)
		}
		if m := byReq(profile.RequestID); m.Tier != memory.TierProfile {
			t.Errorf("profile cue: tier %s, want profile", m.Tier)
		}
		m = byReq(ev.RequestID)
		if m.Tier != memory.TierEvent || len(m.Embedding) != testDim || m.Value <= 0 || !strings.Contains(m.Text, "Raft") {
			t.Errorf("event: %+v", m)
		}
		turns, err := e.st.Turns(ctx, s, memory.TurnFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(turns.Data) != len(noise)+6 {
			t.Errorf("turn log has %d turns, want %d", len(turns.Data), len(noise)+6)
		}
		audit, err := e.st.Audit(ctx, s, e.clock.Now().AddDate(-1, 0, 0), 100)
		if err != nil {
			t.Fatal(err)
		}
		actors := map[string]bool{}
		for _, a := range audit {
			actors[a.Actor+"/"+a.Action] = true
		}
		if !actors["explicit/insert"] || !actors["background/insert"] {
			t.Errorf("audit actors %v: want explicit/insert and background/insert", actors)
		}
	})
}

func TestExplicitForget(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		s := scope("bob")
		e.say(s, "I work at Initech.")
		e.say(s, "I like sailing.")
		e.wait()
		if n := len(e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)); n != 2 {
			t.Fatalf("%d facts before forget, want 2", n)
		}
		e.say(s, "Please forget that I work at Initech.")
		e.wait()
		live := e.list(s, memory.StateAny)
		for _, m := range live {
			if strings.Contains(m.Text, "Initech") {
				t.Errorf("forgotten memory still stored: %q", m.Text)
			}
		}
		if !slices.ContainsFunc(live, func(m *memory.Memory) bool { return strings.Contains(m.Text, "sailing") }) {
			t.Errorf("unrelated memory went too")
		}
		audit, err := e.st.Audit(context.Background(), s, e.clock.Now().AddDate(-1, 0, 0), 100)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(audit, func(a *memory.AuditEntry) bool { return a.Actor == "explicit" && a.Action == "delete" }) {
			t.Errorf("forget not audited")
		}
	})
}

func TestUsageFeedback(t *testing.T) {
	e, s, porto, tennis := portoAndTennis(t, "carol")
	ctx := context.Background()
	tu := e.turn(s, "Any restaurant tips near home?", "Since you live in Porto, try the francesinha at Café Santiago.")
	tu.Injected = []string{porto.ID, tennis.ID}
	if err := e.q.Enqueue(ctx, tu); err != nil {
		t.Fatal(err)
	}
	e.wait()
	got, err := e.st.Get(ctx, s, porto.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hits != porto.Hits+1 {
		t.Errorf("used memory hits %d → %d, want +1", porto.Hits, got.Hits)
	}
	got, _ = e.st.Get(ctx, s, tennis.ID)
	if got.Hits != tennis.Hits {
		t.Errorf("unused memory reinforced")
	}
	th, ok, err := e.st.Threshold(ctx, s)
	if err != nil || !ok {
		t.Fatalf("threshold not stored: %v %v", ok, err)
	}
	a := e.pol.Gate.Adaptive
	if want := e.pol.Gate.MinScore - a.StepDown + a.StepUp; abs(th-want) > 1e-9 {
		t.Errorf("threshold %v, want %v", th, want)
	}
}

// portoAndTennis has a new user say where they live and what they like
// (SQLite), and returns the store, the scope and the two facts.
func portoAndTennis(t *testing.T, user string) (e *env, s memory.Scope, porto, tennis *memory.Memory) {
	t.Helper()
	e, s = newEnv(t, "sqlite", envOpts{}), scope(user)
	e.say(s, "I live in Porto.")
	e.say(s, "I like tennis.")
	e.wait()
	facts := e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)
	if len(facts) != 2 {
		t.Fatalf("%d facts", len(facts))
	}
	for _, f := range facts {
		if strings.Contains(f.Text, "Porto") {
			porto = f
		} else {
			tennis = f
		}
	}
	if porto == nil {
		t.Fatal("no fact about Porto")
	}
	return e, s, porto, tennis
}

// TestUsageFeedbackRound: a round's replies are fed back together, with
// the effect of feeding them back one by one: a memory two replies used
// gains two hits and the latest use, one no reply used gains none, and
// the threshold takes every reply's step in turn.
func TestUsageFeedbackRound(t *testing.T) {
	e, s, porto, tennis := portoAndTennis(t, "dora")
	ctx := context.Background()
	used := e.turn(s, "Restaurant tips near home?", "Since you live in Porto, try the francesinha.")
	missed := e.turn(s, "What should I read?", "Try a novel by Saramago.")
	again := e.turn(s, "And for dinner tomorrow?", "You live in Porto: grilled sardines by the river.")
	round := []*memory.Turn{used, missed, again}
	for _, tu := range round[:2] {
		tu.Injected = []string{porto.ID, tennis.ID}
	}
	again.Injected = []string{porto.ID}
	if done, err := e.q.ing.ingestTurns(ctx, s, round); err != nil || len(done) != 3 {
		t.Fatalf("ingest: %v, %d done", err, len(done))
	}
	got, err := e.st.Get(ctx, s, porto.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hits != porto.Hits+2 {
		t.Errorf("memory used by two replies: hits %d → %d, want +2", porto.Hits, got.Hits)
	}
	if !got.LastUsedAt.Equal(again.Time) {
		t.Errorf("last used %v, want the latest use %v", got.LastUsedAt, again.Time)
	}
	if got, _ := e.st.Get(ctx, s, tennis.ID); got.Hits != tennis.Hits {
		t.Errorf("unused memory reinforced: hits %d → %d", tennis.Hits, got.Hits)
	}
	th, ok, err := e.st.Threshold(ctx, s)
	if err != nil || !ok {
		t.Fatalf("threshold not stored: %v %v", ok, err)
	}
	a := e.pol.Gate.Adaptive
	want := e.pol.Gate.MinScore
	for _, u := range []gate.Usage{{Used: 1, Unused: 1}, {Unused: 2}, {Used: 1}} {
		want = gate.Adaptive{}.Next(want, u.Used, u.Unused, a)
	}
	if abs(th-want) > 1e-9 {
		t.Errorf("threshold %v, want %v", th, want)
	}
}

// TestUsageFeedbackRoundWithoutEvents: a round that leaves no event and
// no turn-log row (an acknowledgement whose reply used a memory) still
// records the use, with the round's write.
func TestUsageFeedbackRoundWithoutEvents(t *testing.T) {
	e, s, porto, _ := portoAndTennis(t, "erin")
	e.pol.Ingest.TurnLog = false
	ack := e.turn(s, "ok", "Porto it is.")
	ack.Injected = []string{porto.ID}
	if done, err := e.q.ing.ingestTurns(context.Background(), s, []*memory.Turn{ack}); err != nil || len(done) != 1 {
		t.Fatalf("ingest: %v, %d done", err, len(done))
	}
	if n := len(e.list(s, memory.StateLive, memory.TierEvent)); n != 0 {
		t.Fatalf("the acknowledgement left %d events; the test wants none", n)
	}
	if got, err := e.st.Get(context.Background(), s, porto.ID); err != nil || got.Hits != porto.Hits+1 {
		t.Errorf("memory the reply used: %v, hits %d → %d, want +1", err, porto.Hits, got.Hits)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestMaxFactsPerTurn: a turn listing more facts than
// ingest.max_facts_per_turn stores the first ones said, up to the cap;
// its event keeps the whole text.
func TestMaxFactsPerTurn(t *testing.T) {
	pol := policy.Default()
	pol.Ingest.MaxFactsPerTurn = 4
	e := newEnv(t, "sqlite", envOpts{pol: pol})
	s := scope("lister")
	e.say(s, "My friend Priya works at Globex. My friend Omar works at Initech. My friend Lena works at Hooli. My friend Tom works at Acme. My friend Ana works at Umbrella.")
	e.wait()
	var got []string
	for _, m := range e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile) {
		got = append(got, m.Text)
	}
	if len(got) != 4 {
		t.Fatalf("%d facts stored, want the cap of 4: %q", len(got), got)
	}
	// Each sentence says two: the friend and where they work.
	for _, name := range []string{"Priya", "Globex", "Omar", "Initech"} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, name) }) {
			t.Errorf("the fact about %s (said before the cap) is missing: %q", name, got)
		}
	}
	if !slices.ContainsFunc(e.list(s, memory.StateLive, memory.TierEvent), func(m *memory.Memory) bool { return strings.Contains(m.Text, "Umbrella") }) {
		t.Error("the turn's event lost the text past the cap")
	}
}

// TestNamedRelatives: two named sisters keep a home each; a sister said
// without her name is the one sister named, when only one is, and her
// slot's value changes; with two named, it is neither's.
func TestNamedRelatives(t *testing.T) {
	e := newEnv(t, "sqlite", envOpts{})
	live := func(s memory.Scope) []string {
		var out []string
		for _, m := range e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile) {
			out = append(out, m.Text)
		}
		slices.Sort(out)
		return out
	}
	one := scope("one-sister")
	for _, msg := range []string{"My sister Anna lives in Porto.", "My sister just moved to Rome.", "My sister Anna moved to Lisbon."} {
		e.say(one, msg)
		e.wait()
	}
	if got, want := live(one), []string{"The user has a sister named Anna.", "The user's sister Anna lives in Lisbon."}; !slices.Equal(got, want) {
		t.Errorf("one sister: live %q, want %q", got, want)
	}
	two := scope("two-sisters")
	for _, msg := range []string{"My sister Anna lives in Porto.", "My sister Maria lives in Rome.", "My sister moved to Berlin."} {
		e.say(two, msg)
		e.wait()
	}
	got := live(two)
	for _, want := range []string{"The user's sister Anna lives in Porto.", "The user's sister Maria lives in Rome."} {
		if !slices.Contains(got, want) {
			t.Errorf("two sisters: %q is not live: %q", want, got)
		}
	}
}
