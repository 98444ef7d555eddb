package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

var reembedFacts = []string{
	"my dog is called Rex and he loves the beach",
	"I work as a nurse at the hospital in Leeds",
	"my favourite food is sushi, especially salmon nigiri",
	"I am learning to play the cello on Sundays",
}

// seedReembed creates a store at path for local embedder a holding the
// facts (and filler rows, so re-embedding spans several batches) in two
// scopes.
func seedReembed(t *testing.T, path string, a *embed.Local) memory.Scope {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, path, memory.OpenOptions{Model: a.Model(), Dim: a.Dim()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	var ms []*memory.Memory
	for _, f := range reembedFacts {
		ms = append(ms, &memory.Memory{Tier: memory.TierSemantic, Text: f, Embedding: a.Vector(f)})
	}
	for i := range sqlkit.ReembedBatch + 10 {
		f := fmt.Sprintf("filler note number %d about the weather", i)
		ms = append(ms, &memory.Memory{Tier: memory.TierEvent, Text: f, Embedding: a.Vector(f)})
	}
	if err := st.Insert(ctx, sc, ms...); err != nil {
		t.Fatal(err)
	}
	other := memory.Scope{User: "bob", Namespace: "work"}
	if err := st.Insert(ctx, other, &memory.Memory{Tier: memory.TierSemantic, Text: "bob's dog is called Max", Embedding: a.Vector("bob's dog is called Max")}); err != nil {
		t.Fatal(err)
	}
	return sc
}

func localEmbedFunc(e *embed.Local) EmbedFunc {
	return func(ctx context.Context, ms []*memory.Memory) ([][]float32, error) {
		texts := make([]string, len(ms))
		for i, m := range ms {
			texts[i] = m.Text
		}
		return e.Embed(ctx, texts)
	}
}

func TestReembed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memproxy.db")
	a, b := embed.NewLocal(64), embed.NewLocal(128)
	sc := seedReembed(t, path, a)
	total := len(reembedFacts) + sqlkit.ReembedBatch + 10 + 1

	var calls []int
	if err := Reembed(ctx, path, memory.OpenOptions{Model: b.Model(), Dim: b.Dim()}, localEmbedFunc(b), func(done, n int) {
		if n != total {
			t.Errorf("progress total %d, want %d", n, total)
		}
		calls = append(calls, done)
	}); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[len(calls)-1] != total {
		t.Errorf("progress calls %v, want two ending at %d", calls, total)
	}

	_, err := Open(ctx, path, memory.OpenOptions{Model: a.Model(), Dim: a.Dim()})
	if !errors.Is(err, memory.ErrEmbedderMismatch) {
		t.Fatalf("open with the old embedder: %v, want ErrEmbedderMismatch", err)
	}
	st, err := Open(ctx, path, memory.OpenOptions{Model: b.Model(), Dim: b.Dim()})
	if err != nil {
		t.Fatalf("open with the new embedder: %v", err)
	}
	defer st.Close()
	got, err := st.VectorSearch(ctx, sc, b.Vector("what is my dog called"), memory.SearchOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Memory.Text != reembedFacts[0] {
		t.Fatalf("top result %v, want %q", got, reembedFacts[0])
	}
	p, err := st.List(ctx, memory.Scope{User: "bob", Namespace: "work"}, memory.ListFilter{})
	if err != nil || len(p.Data) != 1 {
		t.Fatalf("bob's memories: %v %v", p, err)
	}
	if want := b.Vector(p.Data[0].Text); fmt.Sprint(p.Data[0].Embedding) != fmt.Sprint(want) {
		t.Errorf("bob's vector has %d dims and is not the new embedder's", len(p.Data[0].Embedding))
	}
}

func TestReembedFailureChangesNothing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memproxy.db")
	a, b := embed.NewLocal(64), embed.NewLocal(128)
	sc := seedReembed(t, path, a)
	calls := 0
	boom := errors.New("embedder down")
	err := Reembed(ctx, path, memory.OpenOptions{Model: b.Model(), Dim: b.Dim()}, func(ctx context.Context, ms []*memory.Memory) ([][]float32, error) {
		if calls++; calls == 2 {
			return nil, boom
		}
		return localEmbedFunc(b)(ctx, ms)
	}, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("reembed: %v, want %v", err, boom)
	}
	// A wrong dimension from the embedder is refused too.
	err = Reembed(ctx, path, memory.OpenOptions{Model: b.Model(), Dim: b.Dim()}, localEmbedFunc(a), nil)
	if !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("reembed with vectors of the wrong size: %v, want ErrInvalid", err)
	}
	st, err := Open(ctx, path, memory.OpenOptions{Model: a.Model(), Dim: a.Dim()})
	if err != nil {
		t.Fatalf("open with the old embedder after failed reembeds: %v", err)
	}
	defer st.Close()
	got, err := st.VectorSearch(ctx, sc, a.Vector("what is my dog called"), memory.SearchOptions{Limit: 1})
	if err != nil || len(got) == 0 || got[0].Memory.Text != reembedFacts[0] || len(got[0].Memory.Embedding) != 64 {
		t.Fatalf("search with the old embedder: %v %v", got, err)
	}
}
