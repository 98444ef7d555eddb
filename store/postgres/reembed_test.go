package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

var reembedFacts = []string{
	"my dog is called Rex and he loves the beach",
	"I work as a nurse at the hospital in Leeds",
	"my favourite food is sushi, especially salmon nigiri",
	"I am learning to play the cello on Sundays",
}

// seedReembed creates a database at dsn for local embedder a holding the
// facts (and filler rows, so re-embedding spans several batches) in two
// scopes.
func seedReembed(t *testing.T, dsn string, a *embed.Local) memory.Scope {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, dsn, memory.OpenOptions{Model: a.Model(), Dim: a.Dim()})
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
	// 128 stays a vector column; 2048 becomes halfvec.
	for _, dim := range []int{128, 2048} {
		t.Run(fmt.Sprint(dim), func(t *testing.T) {
			ctx := context.Background()
			dsn := testpg.New(t)
			a, b := embed.NewLocal(64), embed.NewLocal(dim)
			sc := seedReembed(t, dsn, a)
			total := len(reembedFacts) + sqlkit.ReembedBatch + 10 + 1
			var calls []int
			if err := Reembed(ctx, dsn, memory.OpenOptions{Model: b.Model(), Dim: b.Dim()}, localEmbedFunc(b), func(done, n int) {
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

			_, err := Open(ctx, dsn, memory.OpenOptions{Model: a.Model(), Dim: a.Dim()})
			if !errors.Is(err, memory.ErrEmbedderMismatch) {
				t.Fatalf("open with the old embedder: %v, want ErrEmbedderMismatch", err)
			}
			st, err := Open(ctx, dsn, memory.OpenOptions{Model: b.Model(), Dim: b.Dim()})
			if err != nil {
				t.Fatalf("open with the new embedder: %v", err)
			}
			defer st.Close()
			typ := vectorType(dim)
			var colType string
			if err := st.DB().QueryRowContext(ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
				WHERE attrelid = 'memories'::regclass AND attname = 'embedding'`).Scan(&colType); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("%s(%d)", typ, dim); colType != want {
				t.Errorf("embedding column is %s, want %s", colType, want)
			}
			t.Run("search", func(t *testing.T) {
				got, err := st.VectorSearch(ctx, sc, b.Vector("what is my dog called"), memory.SearchOptions{Limit: 3})
				if err != nil {
					t.Fatal(err)
				}
				if len(got) == 0 || got[0].Memory.Text != reembedFacts[0] {
					t.Fatalf("top result %v, want %q", got, reembedFacts[0])
				}
			})
			p, err := st.List(ctx, memory.Scope{User: "bob", Namespace: "work"}, memory.ListFilter{})
			if err != nil || len(p.Data) != 1 {
				t.Fatalf("bob's memories: %v %v", p, err)
			}
			if len(p.Data[0].Embedding) != dim {
				t.Errorf("bob's vector has %d dims, want %d", len(p.Data[0].Embedding), dim)
			}
		})
	}
}

func TestReembedFailureChangesNothing(t *testing.T) {
	ctx := context.Background()
	dsn := testpg.New(t)
	a, b := embed.NewLocal(64), embed.NewLocal(128)
	sc := seedReembed(t, dsn, a)
	calls := 0
	boom := errors.New("embedder down")
	err := Reembed(ctx, dsn, memory.OpenOptions{Model: b.Model(), Dim: b.Dim()}, func(ctx context.Context, ms []*memory.Memory) ([][]float32, error) {
		if calls++; calls == 2 {
			return nil, boom
		}
		return localEmbedFunc(b)(ctx, ms)
	}, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("reembed: %v, want %v", err, boom)
	}
	err = Reembed(ctx, dsn, memory.OpenOptions{Model: b.Model(), Dim: b.Dim()}, localEmbedFunc(a), nil)
	if !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("reembed with vectors of the wrong size: %v, want ErrInvalid", err)
	}
	st, err := Open(ctx, dsn, memory.OpenOptions{Model: a.Model(), Dim: a.Dim()})
	if err != nil {
		t.Fatalf("open with the old embedder after failed reembeds: %v", err)
	}
	defer st.Close()
	got, err := st.VectorSearch(ctx, sc, a.Vector("what is my dog called"), memory.SearchOptions{Limit: 1})
	if err != nil || len(got) == 0 || got[0].Memory.Text != reembedFacts[0] || len(got[0].Memory.Embedding) != 64 {
		t.Fatalf("search with the old embedder: %v %v", got, err)
	}
}
