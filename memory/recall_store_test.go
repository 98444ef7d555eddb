package memory_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/inject"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/store/postgres"
	"github.com/memproxy/memproxy/store/sqlite"
)

// TestRecallOnStores runs the recall path (local embedder, real store
// search, score, render) end to end on both stores.
func TestRecallOnStores(t *testing.T) {
	onBothStores(t, testRecallOn)
}

// onBothStores runs f on a fresh SQLite store and a fresh PostgreSQL
// store, both sized for the local embedder it hands f.
func onBothStores(t *testing.T, f func(*testing.T, memory.Memories, *embed.Local)) {
	emb := embed.NewLocal(256)
	opts := memory.OpenOptions{Model: emb.Model(), Dim: emb.Dim()}
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st, emb)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := postgres.Open(context.Background(), testpg.New(t), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		f(t, st, emb)
	})
}

func testRecallOn(t *testing.T, st memory.Memories, emb *embed.Local) {
	ctx := context.Background()
	var err error

	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	alice := memory.Scope{User: "alice", Namespace: memory.DefaultNamespace}
	bob := memory.Scope{User: "bob", Namespace: memory.DefaultNamespace}
	mk := func(s memory.Scope, tier memory.Tier, text string, age time.Duration) *memory.Memory {
		vs, err := emb.Embed(ctx, []string{text})
		if err != nil {
			t.Fatal(err)
		}
		return &memory.Memory{Scope: s, Tier: tier, Text: text, Embedding: vs[0], Value: 0.6, Confidence: 1,
			Source: memory.SourceExtracted, CreatedAt: now.Add(-age), LastUsedAt: now.Add(-age), ValidFrom: now.Add(-age)}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	dog := mk(alice, memory.TierSemantic, "The user's dog is called Rex and he is a beagle.", 40*24*time.Hour)
	tea := mk(alice, memory.TierSemantic, "The user drinks green tea every morning.", 2*24*time.Hour)
	move := mk(alice, memory.TierEpisodic, "The supplier moved delivery from May 10 to May 18.", 5*24*time.Hour)
	prof := mk(alice, memory.TierProfile, "Call the user Sam.", 100*24*time.Hour)
	must(st.Insert(ctx, alice, dog, tea, move, prof))
	must(st.Insert(ctx, bob, mk(bob, memory.TierSemantic, "Bob's dog is called Max.", time.Hour)))

	p := policy.Default()
	rec, err := memory.NewRecaller(memory.RecallerConfig{Search: st, Profiles: st, Embedder: emb, Recall: p.Recall, Decay: p.Decay,
		Now: func() time.Time { return now }})
	must(err)

	res, err := rec.Recall(ctx, alice, memory.Query{Text: "what is my dog's name?", MinScore: p.Gate.MinScore})
	must(err)
	if len(res.Selected) == 0 || res.Selected[0].Memory.ID != dog.ID {
		t.Fatalf("dog fact not first: %+v", res.Ranked)
	}
	for _, c := range res.Ranked {
		if c.ID != dog.ID && c.ID != tea.ID && c.ID != move.ID {
			t.Errorf("candidate %s is not alice's non-profile memory", c.ID)
		}
	}

	// Already said in the conversation: not recalled again.
	res, err = rec.Recall(ctx, alice, memory.Query{Text: "what is my dog's name?",
		Exclude: []string{"FYI: the user's dog is called Rex, and he is a beagle!"}})
	must(err)
	for _, s := range res.Selected {
		if s.Memory.ID == dog.ID {
			t.Errorf("dog fact recalled though it is in the messages")
		}
	}

	profile, err := rec.Profile(ctx, alice)
	must(err)
	if len(profile) != 1 || profile[0].ID != prof.ID {
		t.Fatalf("profile = %v", profile)
	}
	res, err = rec.Recall(ctx, alice, memory.Query{Text: "what is my dog's name?", MinScore: p.Gate.MinScore})
	must(err)
	section, used, tokens := inject.Render(inject.Items(profile, res.Selected), inject.OptionsFrom(p.Inject, p.Recall))
	if len(used) < 2 || used[0].ID != prof.ID || used[1].ID != dog.ID || tokens > p.Inject.BudgetTokens {
		t.Fatalf("rendered %d tokens, used %v:\n%s", tokens, used, section)
	}
}
