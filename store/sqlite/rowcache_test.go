package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestRowCacheCoherent checks that searches served from the row cache see
// every write of the store, and that a caller changing a returned memory
// does not change what the next search returns.
func TestRowCacheCoherent(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"), memory.OpenOptions{Model: "m", Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc := memory.Scope{User: "u", Namespace: "default"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &memory.Memory{ID: "a", Tier: memory.TierSemantic, Text: "sailing on the lake", Embedding: []float32{1, 0}, CreatedAt: t0}
	if err := st.Insert(ctx, sc, m); err != nil {
		t.Fatal(err)
	}
	o := memory.SearchOptions{At: t0}
	both := func() (vec, lex *memory.Memory) {
		t.Helper()
		vs, err := st.VectorSearch(ctx, sc, []float32{1, 0}, o)
		if err != nil || len(vs) != 1 {
			t.Fatalf("vector search = %v, %v", vs, err)
		}
		ls, err := st.LexicalSearch(ctx, sc, "sailing lake", o)
		if err != nil || len(ls) != 1 {
			t.Fatalf("lexical search = %v, %v", ls, err)
		}
		return vs[0].Memory, ls[0].Memory
	}
	// Fill the cache, then change what a search returned.
	v, l := both()
	v.Text, v.Embedding[0], l.Hits = "changed by a caller", 9, 99
	v, l = both()
	if v.Text != m.Text || v.Embedding[0] != 1 || l.Hits != 0 {
		t.Fatalf("a caller's change reached the cache: %+v, %+v", v, l)
	}

	if err := st.Touch(ctx, sc, []string{"a"}, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if v, l := both(); v.Hits != 1 || l.Hits != 1 || !v.LastUsedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("after touch: hits %d/%d, last used %v", v.Hits, l.Hits, v.LastUsedAt)
	}

	m.Text, m.Value = "sailing on the lake at dawn", 0.9
	if err := st.Update(ctx, sc, m); err != nil {
		t.Fatal(err)
	}
	if v, l := both(); v.Text != m.Text || l.Value != 0.9 {
		t.Fatalf("after update: %q, value %v", v.Text, l.Value)
	}

	if err := st.Archive(ctx, sc, []string{"a"}, t0); err != nil {
		t.Fatal(err)
	}
	dead := memory.SearchOptions{At: t0, IncludeDead: true}
	vs, err := st.VectorSearch(ctx, sc, []float32{1, 0}, dead)
	if err != nil || len(vs) != 1 || vs[0].Memory.ArchivedAt == nil {
		t.Fatalf("after archive: %v, %v", vs, err)
	}
	ls, err := st.LexicalSearch(ctx, sc, "sailing", dead)
	if err != nil || len(ls) != 1 || ls[0].Memory.ArchivedAt == nil {
		t.Fatalf("after archive: %v, %v", ls, err)
	}

	if _, err := st.DeleteUser(ctx, "u", ""); err != nil {
		t.Fatal(err)
	}
	if vs, err := st.VectorSearch(ctx, sc, []float32{1, 0}, dead); err != nil || len(vs) != 0 {
		t.Fatalf("after user deletion: %v, %v", vs, err)
	}
	if ls, err := st.LexicalSearch(ctx, sc, "sailing", dead); err != nil || len(ls) != 0 {
		t.Fatalf("after user deletion: %v, %v", ls, err)
	}
}
