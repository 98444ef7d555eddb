package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// TestRecallReplacedFirst: after "I run in Brooks shoes." and, later, a
// switch "I swapped my Brooks for a pair of Hoka Cliftons" (the live fact
// "The user uses Hoka Cliftons.", its triple's Prior Brooks), a message
// about running shoes gets the live fact before the older event, though
// only the event shares its words; on both stores.
func TestRecallReplacedFirst(t *testing.T) {
	onBothStores(t, testReplacedFirst)
}

func testReplacedFirst(t *testing.T, st memory.Memories, emb *embed.Local) {
	ctx := context.Background()
	now := time.Date(2026, 5, 20, 7, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	mk := func(s memory.Scope, tier memory.Tier, text string, age time.Duration, f *memory.Triple) *memory.Memory {
		vs, err := emb.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		m := &memory.Memory{Scope: s, Tier: tier, Text: text, Embedding: vs[0], Value: 0.6, Confidence: 1,
			Source: memory.SourceExtracted, CreatedAt: now.Add(-age), LastUsedAt: now.Add(-age), ValidFrom: now.Add(-age)}
		if f != nil {
			m.Provenance.Fact, m.Key = f, f.Key()
		}
		return m
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	p := policy.Default()
	rec, err := memory.NewRecaller(memory.RecallerConfig{Search: st, Profiles: st, Embedder: emb, Recall: p.Recall, Decay: p.Decay,
		VectorWeight: p.Recall.LocalVectorWeight, Now: func() time.Time { return now }})
	must(err)
	// rank is each memory's place among the selected (-1: not selected).
	rank := func(s memory.Scope, q string, ms ...*memory.Memory) []int {
		t.Helper()
		res, err := rec.Recall(ctx, s, memory.Query{Text: q, MinScore: p.Gate.MinScore})
		must(err)
		out := make([]int, len(ms))
		for i, m := range ms {
			out[i] = -1
			for j, c := range res.Selected {
				if c.Memory.ID == m.ID {
					out[i] = j
				}
			}
		}
		return out
	}
	chatter := func(s memory.Scope) {
		must(st.Insert(ctx, s,
			mk(s, memory.TierEvent, "My knees hurt after the long run on Sunday.\nAssistant: Rest a few days.", 30*day, nil),
			mk(s, memory.TierEvent, "I bought new socks for the trail race.\nAssistant: Nice!", 20*day, nil),
			mk(s, memory.TierEvent, "What should I cook tonight?\nAssistant: Try a curry.", 5*day, nil)))
	}
	const q = "What running shoes do I wear?"

	// The switch named what it replaced.
	alice := memory.Scope{User: "alice", Namespace: memory.DefaultNamespace}
	chatter(alice)
	brooks := mk(alice, memory.TierEvent, "I run in Brooks shoes, about 30 km a week.\nAssistant: Thanks, noted.", 80*day, nil)
	hoka := mk(alice, memory.TierSemantic, "The user uses Hoka Cliftons.", 10*day,
		&memory.Triple{Subject: "user", Attribute: "uses", Value: "Hoka Cliftons", Multi: true, Prior: "Brooks"})
	must(st.Insert(ctx, alice, brooks, hoka))
	got, err := st.Get(ctx, alice, hoka.ID)
	must(err)
	if f := got.Fact(); f == nil || f.Prior != "Brooks" {
		t.Fatalf("stored triple %+v: the prior value is lost", f)
	}
	if r := rank(alice, q, hoka, brooks); r[0] < 0 || r[1] >= 0 && r[0] > r[1] {
		t.Errorf("%q: live fact at %d, the older Brooks event at %d: want the fact selected, before the event", q, r[0], r[1])
	}

	// The old value is a live fact of the same slot, worded otherwise
	// than the switch named it ("Brooks shoes" for "my Brooks"), so
	// reconcile left it live: the new value still comes first.
	dave := memory.Scope{User: "dave", Namespace: memory.DefaultNamespace}
	chatter(dave)
	old := mk(dave, memory.TierSemantic, "The user uses Brooks shoes for running.", 80*day,
		&memory.Triple{Subject: "user", Attribute: "uses", Value: "Brooks shoes", Multi: true})
	hoka = mk(dave, memory.TierSemantic, "The user uses Hoka Cliftons.", 10*day,
		&memory.Triple{Subject: "user", Attribute: "uses", Value: "Hoka Cliftons", Multi: true, Prior: "Brooks"})
	must(st.Insert(ctx, dave, old, hoka))
	if r := rank(dave, q, hoka, old); r[0] < 0 || r[1] >= 0 && r[0] > r[1] {
		t.Errorf("%q: live fact at %d, the older Brooks fact of its slot at %d: want the new value first", q, r[0], r[1])
	}

	// The same memories without the prior: the event, which holds the
	// message's words, comes first (the check above measures the prior).
	bob := memory.Scope{User: "bob", Namespace: memory.DefaultNamespace}
	chatter(bob)
	brooks = mk(bob, memory.TierEvent, "I run in Brooks shoes, about 30 km a week.\nAssistant: Thanks, noted.", 80*day, nil)
	hoka = mk(bob, memory.TierSemantic, "The user uses Hoka Cliftons.", 10*day,
		&memory.Triple{Subject: "user", Attribute: "uses", Value: "Hoka Cliftons", Multi: true})
	must(st.Insert(ctx, bob, brooks, hoka))
	if r := rank(bob, q, hoka, brooks); r[1] < 0 || r[0] >= 0 && r[0] < r[1] {
		t.Errorf("%q without a prior: fact at %d, event at %d: want the event first", q, r[0], r[1])
	}

	// An event newer than the fact that names the prior value is news
	// about it, not what the fact replaced: it keeps its place.
	carol := memory.Scope{User: "carol", Namespace: memory.DefaultNamespace}
	chatter(carol)
	hoka = mk(carol, memory.TierSemantic, "The user uses Hoka Cliftons.", 80*day,
		&memory.Triple{Subject: "user", Attribute: "uses", Value: "Hoka Cliftons", Multi: true, Prior: "Brooks"})
	brooks = mk(carol, memory.TierEvent, "I run in Brooks shoes again, about 30 km a week.\nAssistant: Thanks, noted.", 2*day, nil)
	must(st.Insert(ctx, carol, brooks, hoka))
	if r := rank(carol, q, hoka, brooks); r[1] < 0 || r[0] >= 0 && r[0] < r[1] {
		t.Errorf("%q, event newer than the fact: fact at %d, event at %d: want the event first", q, r[0], r[1])
	}
}
