package storetest

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// testClosed: after Close every call, scoped or operator-wide, fails with
// an error that wraps memory.ErrClosed and names what was asked, and a
// second Close is harmless.
func (s *suite) testClosed(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	must(t, st.Close())
	must(t, st.Close())
	vec := make([]float32, Dim)
	vec[0] = 1
	calls := map[string]func() error{
		"Insert":          func() error { return st.Insert(ctx, alice, newMem("x", memory.TierEvent, nil)) },
		"Get":             func() error { _, err := st.Get(ctx, alice, "x"); return err },
		"List":            func() error { _, err := st.List(ctx, alice, memory.ListFilter{}); return err },
		"VectorSearch":    func() error { _, err := st.VectorSearch(ctx, alice, vec, memory.SearchOptions{}); return err },
		"LexicalSearch":   func() error { _, err := st.LexicalSearch(ctx, alice, "tea", memory.SearchOptions{}); return err },
		"Touch":           func() error { return st.Touch(ctx, alice, []string{"x"}, time.Now()) },
		"AppendAudit":     func() error { return st.AppendAudit(ctx, &memory.AuditEntry{Scope: alice, Action: "x"}) },
		"Users":           func() error { _, err := st.Users(ctx, 10, ""); return err },
		"Scopes":          func() error { _, err := st.Scopes(ctx); return err },
		"DeleteUser":      func() error { _, err := st.DeleteUser(ctx, "alice", ""); return err },
		"AuditAll":        func() error { _, err := st.AuditAll(ctx, "", time.Time{}, 10); return err },
		"RecallSince":     func() error { _, err := st.RecallSince(ctx, time.Time{}); return err },
		"FindRecall":      func() error { _, err := st.FindRecall(ctx, "r"); return err },
		"Meta":            func() error { _, _, err := st.Meta(ctx, "k"); return err },
		"SetMetaIfAbsent": func() error { _, err := st.SetMetaIfAbsent(ctx, "k", "v"); return err },
	}
	for name, call := range calls {
		err := call()
		if !errors.Is(err, memory.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		} else if err.Error() == memory.ErrClosed.Error() {
			t.Errorf("%s after Close: a bare %q, want what was asked named", name, err)
		}
	}
	if ks, ok := st.(interface{ Keys() memory.KeyStore }); ok {
		if _, err := ks.Keys().ListKeys(ctx); !errors.Is(err, memory.ErrClosed) {
			t.Errorf("ListKeys after Close: %v, want ErrClosed", err)
		}
	}
}

// testZeroQuery: a query vector without direction (zero, or not finite)
// finds nothing, without an error, in VectorSearch and HybridSearch alike.
func (s *suite) testZeroQuery(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	v := make([]float32, Dim)
	v[0] = 1
	insert(t, st, alice, newMem("tea with lemon", memory.TierSemantic, v))
	nan := make([]float32, Dim)
	nan[0] = float32(math.NaN())
	for _, q := range [][]float32{make([]float32, Dim), nan} {
		cs, err := st.VectorSearch(ctx, alice, q, memory.SearchOptions{At: t0})
		if err != nil || len(cs) != 0 {
			t.Errorf("vector search for %v: %v, %v; want nothing", q, ids(cs), err)
		}
		bv, bt, err := st.HybridSearch(ctx, alice, q, "tea", memory.SearchOptions{At: t0})
		if err != nil || len(bv) != 0 || len(bt) != 1 {
			t.Errorf("hybrid search for %v: %v / %v, %v; want no vector candidates, the lexical one", q, ids(bv), ids(bt), err)
		}
	}
}
