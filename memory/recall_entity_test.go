package memory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/entity"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// TestRecallEntityFirst: a message naming an entity, by name or alias,
// gets that entity's live facts first, on both stores; its superseded
// facts and another user's entity of the same name never.
func TestRecallEntityFirst(t *testing.T) {
	onBothStores(t, testEntityFirst)
}

func testEntityFirst(t *testing.T, st memory.Memories, emb *embed.Local) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	alice := memory.Scope{User: "alice", Namespace: memory.DefaultNamespace}
	bob := memory.Scope{User: "bob", Namespace: memory.DefaultNamespace}
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
	day := 24 * time.Hour
	named := mk(alice, memory.TierSemantic, "The user has a sister named Anna.", 90*day, &memory.Triple{Subject: "user", Attribute: "sister", Value: "Anna", Multi: true})
	old := mk(alice, memory.TierSemantic, "The user's sister lives in Berlin.", 80*day, &memory.Triple{Subject: "sister", Attribute: "lives_in", Value: "Berlin"})
	lives := mk(alice, memory.TierSemantic, "The user's sister lives in Porto.", 10*day, &memory.Triple{Subject: "sister", Attribute: "lives_in", Value: "Porto"})
	works := mk(alice, memory.TierSemantic, "The user's sister works at Globex.", 20*day, &memory.Triple{Subject: "sister", Attribute: "works_at", Value: "Globex"})
	must(st.Insert(ctx, alice, named, old, lives, works))
	must(st.Supersede(ctx, alice, old.ID, lives.ID, now.Add(-10*day)))
	// Chatter that names Anna far more often than the facts do.
	var evs []*memory.Memory
	for i := range 30 {
		evs = append(evs, mk(alice, memory.TierEvent, fmt.Sprintf("Anna and I talked about the weather and what Anna said about day %d.\nAssistant: Sounds like Anna had a lot to say.", i), time.Duration(i+1)*time.Hour, nil))
	}
	must(st.Insert(ctx, alice, evs...))
	must(st.Insert(ctx, bob, mk(bob, memory.TierSemantic, "The user has a friend named Anna.", day, &memory.Triple{Subject: "user", Attribute: "friend", Value: "Anna", Multi: true})))

	p := policy.Default()
	cfg := memory.RecallerConfig{Search: st, Profiles: st, Embedder: emb, Recall: p.Recall, Decay: p.Decay,
		VectorWeight: p.Recall.LocalVectorWeight, Now: func() time.Time { return now }}
	plain, err := memory.NewRecaller(cfg)
	must(err)
	cfg.Entities = entity.Matcher{}
	rec, err := memory.NewRecaller(cfg)
	must(err)

	for _, q := range []string{"What's new with Anna these days?", "how is my sister doing?"} {
		res, err := rec.Recall(ctx, alice, memory.Query{Text: q, MinScore: p.Gate.MinScore})
		must(err)
		want := map[string]bool{named.ID: true, lives.ID: true, works.ID: true}
		if len(res.Selected) < 3 {
			t.Fatalf("%q: %d selected, want Anna's 3 live facts first", q, len(res.Selected))
		}
		for i, s := range res.Selected[:3] {
			if !want[s.Memory.ID] {
				t.Errorf("%q: selected #%d is %q, not one of Anna's live facts", q, i+1, s.Memory.Text)
			}
		}
		for _, s := range res.Selected {
			if s.Memory.ID == old.ID || s.Memory.Scope != alice {
				t.Errorf("%q: selected %q (%s)", q, s.Memory.Text, s.Memory.Scope)
			}
		}
	}
	// Without the entity index, the chatter wins the first slots: the
	// check above measures the index, not the lexical match.
	res, err := plain.Recall(ctx, alice, memory.Query{Text: "What's new with Anna these days?", MinScore: p.Gate.MinScore})
	must(err)
	if len(res.Selected) > 0 && res.Selected[0].Memory.Tier == memory.TierSemantic {
		t.Errorf("without the entity index a fact is first (%q): the chatter no longer outranks it", res.Selected[0].Memory.Text)
	}
	// A message that names no entity is ranked as before.
	res, err = rec.Recall(ctx, alice, memory.Query{Text: "what did we say about the weather?", MinScore: p.Gate.MinScore})
	must(err)
	for _, s := range res.Selected {
		if s.Entity {
			t.Errorf("%q marked as an entity fact for a message naming none", s.Memory.Text)
		}
	}
}
