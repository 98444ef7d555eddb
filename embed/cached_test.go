package embed

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/memproxy/memproxy/policy"
)

// counting records what reaches the inner embedder.
type counting struct {
	Embedder
	mu    sync.Mutex
	calls [][]string
	err   error
}

func (c *counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.calls = append(c.calls, append([]string(nil), texts...))
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return c.Embedder.Embed(ctx, texts)
}

func TestCachedOnlyMissesReachInner(t *testing.T) {
	ctx := context.Background()
	inner := &counting{Embedder: NewLocal(32)}
	c := newCached(inner, 100)
	defer c.Close()

	first, err := c.Embed(ctx, []string{"a cat", "a dog", "a cat"})
	if err != nil {
		t.Fatal(err)
	}
	if len(inner.calls) != 1 || len(inner.calls[0]) != 2 {
		t.Fatalf("first batch sent %v, want the 2 distinct texts", inner.calls)
	}
	c.Wait()
	second, err := c.Embed(ctx, []string{"a dog", "a bird", "a cat"})
	if err != nil {
		t.Fatal(err)
	}
	if len(inner.calls) != 2 || len(inner.calls[1]) != 1 || inner.calls[1][0] != "a bird" {
		t.Fatalf("second batch sent %v, want only the miss", inner.calls)
	}
	want := NewLocal(32)
	for i, text := range []string{"a dog", "a bird", "a cat"} {
		if Cosine(second[i], want.Vector(text)) < 0.9999 {
			t.Errorf("%q: wrong vector from cache", text)
		}
	}
	if Cosine(first[0], first[2]) < 0.9999 {
		t.Error("duplicate text in one batch got different vectors")
	}
	if s := c.Stats(); s.Hits != 2 || s.Misses != 4 {
		t.Errorf("stats %+v, want 2 hits and 4 misses", s)
	}
	// Returned vectors are the caller's: changing one must not change the cache.
	second[2][0] = 42
	again, _ := c.Embed(ctx, []string{"a cat"})
	if again[0][0] == 42 {
		t.Error("cached vector aliased to a returned one")
	}
}

// The key includes the model: two models never share vectors.
func TestCachedKeyedByModel(t *testing.T) {
	a, b := cacheKey("local-hash-v1", "hello")
	c, d := cacheKey("text-embedding-3-small", "hello")
	e, _ := cacheKey("local-hash-v1", "hello ")
	if a == c || b == d || a == e {
		t.Fatal("cache keys collide across models or texts")
	}
}

func TestCachedError(t *testing.T) {
	boom := errors.New("upstream down")
	inner := &counting{Embedder: NewLocal(8), err: boom}
	c := newCached(inner, 10)
	defer c.Close()
	if _, err := c.Embed(context.Background(), []string{"x"}); !errors.Is(err, boom) {
		t.Fatalf("error %v, want %v", err, boom)
	}
	out, err := c.Embed(context.Background(), nil)
	if err != nil || len(out) != 0 {
		t.Fatalf("empty batch: %v %v", out, err)
	}
}

func TestFromPolicy(t *testing.T) {
	p := policy.Default().Embedder
	e, err := FromPolicy(p, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	defer e.(*Cached).Close()
	if e.Model() != LocalModel || e.Dim() != p.Dim {
		t.Fatalf("local: model %q dim %d", e.Model(), e.Dim())
	}

	f, base := newFake(t, 24)
	p.Provider, p.BaseURL, p.Model = "openai", base, "text-embedding-3-small"
	var asked string
	e, err = FromPolicy(p, func(k string) string { asked = k; return "sk-from-env" })
	if err != nil {
		t.Fatal(err)
	}
	defer e.(*Cached).Close()
	if e.Dim() != 24 || e.Model() != "text-embedding-3-small" {
		t.Fatalf("openai: model %q dim %d", e.Model(), e.Dim())
	}
	if asked != p.APIKeyEnv || f.Last().Header.Get("Authorization") != "Bearer sk-from-env" {
		t.Fatalf("key env %q, auth %q", asked, f.Last().Header.Get("Authorization"))
	}

	p.BaseURL = base + "/missing"
	if _, err := FromPolicy(p, nil); err == nil {
		t.Error("unreachable embeddings endpoint accepted at start")
	}
	p.Provider = "cohere"
	if _, err := FromPolicy(p, nil); err == nil {
		t.Error("unknown provider accepted")
	}
}

func BenchmarkCachedHit(b *testing.B) {
	c := newCached(NewLocal(256), 1000)
	defer c.Close()
	ctx := context.Background()
	q := []string{"When did Caroline go to the LGBTQ support group?"}
	_, _ = c.Embed(ctx, q)
	c.Wait()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Embed(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
