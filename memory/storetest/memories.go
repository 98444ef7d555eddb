package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// testOpen checks that an opened store is migrated and reports its
// dimension.
func (s *suite) testOpen(t *testing.T) {
	st := s.store(t)
	ctx := context.Background()
	insert(t, st, alice, newMem("in a fresh store", memory.TierSemantic, unit(0, 0)))
	p, err := st.List(ctx, alice, memory.ListFilter{})
	must(t, err)
	if len(p.Data) != 1 {
		t.Fatalf("a fresh store holds %d memories, want 1", len(p.Data))
	}
	if st.Dim() != Dim {
		t.Errorf("Dim() = %d, want %d", st.Dim(), Dim)
	}
}

func (s *suite) testInsert(t *testing.T) {
	ctx := context.Background()
	t.Run("roundtrip", func(t *testing.T) {
		st := s.store(t)
		m := &memory.Memory{
			ID:         "m-roundtrip",
			Tier:       memory.TierProfile,
			Text:       "The user prefers TypeScript over JavaScript.",
			Embedding:  []float32{0.5, -0.25, 0.125, 1e-7, -3, 0, 2.5, 1},
			Value:      0.9,
			Confidence: 0.75,
			Source:     memory.SourceExplicit,
			Provenance: memory.Provenance{RequestIDs: []string{"r1", "r2"}, TurnRefs: []string{"t1"}, MemoryIDs: []string{"e1"}},
			Key:        "user.language",
			Session:    "sess-1",
			NoDecay:    true,
			CreatedAt:  at(time.Microsecond),
			LastUsedAt: at(time.Hour),
			Hits:       3,
			ValidFrom:  at(-time.Hour),
			ExpiresAt:  ptr(at(48 * time.Hour)),
			API:        "responses",
		}
		insert(t, st, alice, m)
		got := get(t, st, alice, m.ID)
		want := *m
		want.Scope = alice
		if !sameMemory(got, &want) {
			t.Errorf("roundtrip:\n got %+v\nwant %+v", got, &want)
		}
		if got.CreatedAt.Location() != time.UTC {
			t.Errorf("CreatedAt location %v, want UTC", got.CreatedAt.Location())
		}
	})
	t.Run("defaults", func(t *testing.T) {
		st := s.store(t)
		before := time.Now().Add(-time.Second)
		m := &memory.Memory{Tier: memory.TierEvent, Text: "a raw turn", Source: memory.SourceEvent}
		insert(t, st, alice, m)
		if m.ID == "" {
			t.Fatal("Insert did not fill ID")
		}
		if m.Scope != alice {
			t.Errorf("Insert set scope %v, want %v", m.Scope, alice)
		}
		got := get(t, st, alice, m.ID)
		after := time.Now().Add(time.Second)
		if got.CreatedAt.Before(before) || got.CreatedAt.After(after) {
			t.Errorf("CreatedAt %v not now", got.CreatedAt)
		}
		if !got.LastUsedAt.Equal(got.CreatedAt) || !got.ValidFrom.Equal(got.CreatedAt) {
			t.Errorf("LastUsedAt %v, ValidFrom %v, want CreatedAt %v", got.LastUsedAt, got.ValidFrom, got.CreatedAt)
		}
		if got.Embedding != nil || got.ValidTo != nil || got.ExpiresAt != nil || got.ArchivedAt != nil || got.ConsolidatedAt != nil {
			t.Errorf("unset fields came back set: %+v", got)
		}
	})
	t.Run("batch", func(t *testing.T) {
		st := s.store(t)
		var ms []*memory.Memory
		for i := range 50 {
			ms = append(ms, newMem(fmt.Sprintf("memory number %d", i), memory.TierSemantic, unit(i, 0.1)))
		}
		insert(t, st, alice, ms...)
		got, err := st.GetMany(ctx, alice, memIDs(ms))
		must(t, err)
		if !slices.Equal(memIDs(got), memIDs(ms)) {
			t.Errorf("GetMany after batch insert returned %d of %d", len(got), len(ms))
		}
	})
	t.Run("duplicate id", func(t *testing.T) {
		st := s.store(t)
		insert(t, st, alice, &memory.Memory{ID: "dup", Tier: memory.TierEvent, Text: "one"})
		err := st.Insert(ctx, alice, &memory.Memory{ID: "new", Tier: memory.TierEvent, Text: "two"},
			&memory.Memory{ID: "dup", Tier: memory.TierEvent, Text: "three"})
		if err == nil {
			t.Fatal("inserting a duplicate id succeeded")
		}
		if _, err := st.Get(ctx, alice, "new"); !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("failed batch left a partial write (get new: %v)", err)
		}
		if m := get(t, st, alice, "dup"); m.Text != "one" {
			t.Errorf("duplicate overwrote the original: %q", m.Text)
		}
	})
}

func (s *suite) testBadInput(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	good := func() *memory.Memory { return newMem("a good memory", memory.TierSemantic, unit(0, 0)) }
	cases := []struct {
		name string
		m    *memory.Memory
		want error
	}{
		{"empty text", &memory.Memory{Tier: memory.TierEvent, Text: ""}, memory.ErrInvalid},
		{"blank text", &memory.Memory{Tier: memory.TierEvent, Text: " \n\t"}, memory.ErrInvalid},
		{"bad tier", &memory.Memory{Tier: "nonsense", Text: "x"}, memory.ErrInvalid},
		{"bad value", &memory.Memory{Tier: memory.TierEvent, Text: "x", Value: 2}, memory.ErrInvalid},
		{"short vector", &memory.Memory{Tier: memory.TierEvent, Text: "x", Embedding: make([]float32, Dim-1)}, memory.ErrDimension},
		{"long vector", &memory.Memory{Tier: memory.TierEvent, Text: "x", Embedding: make([]float32, Dim+1)}, memory.ErrDimension},
		{"foreign scope", &memory.Memory{Scope: bob, Tier: memory.TierEvent, Text: "x"}, memory.ErrInvalidScope},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := good()
			err := st.Insert(ctx, alice, g, c.m)
			wantErr(t, err, c.want, "insert")
			if g.ID != "" {
				if _, err := st.Get(ctx, alice, g.ID); !errors.Is(err, memory.ErrNotFound) {
					t.Errorf("the good memory of a failed batch was written (get: %v)", err)
				}
			}
		})
	}
	p, err := st.List(ctx, alice, memory.ListFilter{})
	must(t, err)
	if len(p.Data) != 0 {
		t.Fatalf("failed inserts left %d memories", len(p.Data))
	}

	t.Run("update", func(t *testing.T) {
		m := good()
		insert(t, st, alice, m)
		bad := *m
		bad.Text = ""
		wantErr(t, st.Update(ctx, alice, &bad), memory.ErrInvalid, "update empty text")
		bad = *m
		bad.Embedding = make([]float32, Dim+3)
		wantErr(t, st.Update(ctx, alice, &bad), memory.ErrDimension, "update wrong dimension")
		if got := get(t, st, alice, m.ID); got.Text != m.Text || len(got.Embedding) != Dim {
			t.Errorf("failed update changed the memory: %+v", got)
		}
	})
	t.Run("search", func(t *testing.T) {
		_, err := st.VectorSearch(ctx, alice, make([]float32, Dim+1), memory.SearchOptions{})
		wantErr(t, err, memory.ErrDimension, "vector search with wrong dimension")
	})
	t.Run("invalid scope", func(t *testing.T) {
		for _, sc := range invalid {
			what := fmt.Sprintf("scope %q", sc.String())
			wantErr(t, st.Insert(ctx, sc, good()), memory.ErrInvalidScope, what+" insert")
			_, err := st.Get(ctx, sc, "x")
			wantErr(t, err, memory.ErrInvalidScope, what+" get")
			_, err = st.GetMany(ctx, sc, []string{"x"})
			wantErr(t, err, memory.ErrInvalidScope, what+" get many")
			_, err = st.List(ctx, sc, memory.ListFilter{})
			wantErr(t, err, memory.ErrInvalidScope, what+" list")
			_, err = st.History(ctx, sc, "k")
			wantErr(t, err, memory.ErrInvalidScope, what+" history")
			_, err = st.VectorSearch(ctx, sc, unit(0, 0), memory.SearchOptions{})
			wantErr(t, err, memory.ErrInvalidScope, what+" vector search")
			_, err = st.LexicalSearch(ctx, sc, "memory", memory.SearchOptions{})
			wantErr(t, err, memory.ErrInvalidScope, what+" lexical search")
			wantErr(t, st.Delete(ctx, sc, "x"), memory.ErrInvalidScope, what+" delete")
			wantErr(t, st.Touch(ctx, sc, []string{"x"}, t0), memory.ErrInvalidScope, what+" touch")
			wantErr(t, st.Archive(ctx, sc, []string{"x"}, t0), memory.ErrInvalidScope, what+" archive")
			wantErr(t, st.Supersede(ctx, sc, "x", "y", t0), memory.ErrInvalidScope, what+" supersede")
			_, err = st.Purge(ctx, sc, t0)
			wantErr(t, err, memory.ErrInvalidScope, what+" purge")
			wantErr(t, st.AppendTurn(ctx, &memory.Turn{RequestID: "r", Scope: sc, Time: t0, User: "hi"}), memory.ErrInvalidScope, what+" append turn")
			_, err = st.Turns(ctx, sc, memory.TurnFilter{})
			wantErr(t, err, memory.ErrInvalidScope, what+" turns")
			wantErr(t, st.AppendAudit(ctx, &memory.AuditEntry{Scope: sc, Time: t0, Actor: "admin", Action: "insert"}), memory.ErrInvalidScope, what+" append audit")
			wantErr(t, st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "r", Scope: sc, Time: t0}), memory.ErrInvalidScope, what+" append recall")
			wantErr(t, st.SetThreshold(ctx, sc, 0.5), memory.ErrInvalidScope, what+" set threshold")
			_, _, err = st.Threshold(ctx, sc)
			wantErr(t, err, memory.ErrInvalidScope, what+" threshold")
		}
	})
}

func (s *suite) testUpdate(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	m := newMem("The user lives in Lyon.", memory.TierSemantic, unit(0, 0))
	m.Key = "user.city"
	insert(t, st, alice, m)

	u := get(t, st, alice, m.ID)
	u.Text = "The user lives in Paris."
	u.Embedding = unit(3, 0)
	u.Tier = memory.TierProfile
	u.Value = 1
	u.Confidence = 0.5
	u.Key = "user.city.v2"
	u.Session = "s2"
	u.NoDecay = true
	u.Hits = 7
	u.LastUsedAt = at(time.Hour)
	u.ExpiresAt = ptr(at(24 * time.Hour))
	u.Provenance = memory.Provenance{RequestIDs: []string{"rq"}}
	u.CreatedAt = at(99 * time.Hour) // created_at is immutable
	must(t, st.Update(ctx, alice, u))
	got := get(t, st, alice, m.ID)
	u.CreatedAt = t0
	if !sameMemory(got, u) {
		t.Errorf("after update:\n got %+v\nwant %+v", got, u)
	}
	lex, err := st.LexicalSearch(ctx, alice, "Paris", memory.SearchOptions{At: t0})
	must(t, err)
	if len(lex) != 1 || lex[0].Memory.ID != m.ID {
		t.Errorf("lexical search for the new text: %v", ids(lex))
	}
	lex, err = st.LexicalSearch(ctx, alice, "Lyon", memory.SearchOptions{At: t0})
	must(t, err)
	if len(lex) != 0 {
		t.Errorf("lexical search still finds the old text: %v", ids(lex))
	}

	missing := newMem("ghost", memory.TierSemantic, nil)
	missing.ID = "missing"
	wantErr(t, st.Update(ctx, alice, missing), memory.ErrNotFound, "update of a missing id")
	foreign := get(t, st, alice, m.ID)
	foreign.Text = "overwritten from another scope"
	foreign.Scope = bob
	wantErr(t, st.Update(ctx, bob, foreign), memory.ErrNotFound, "update from another scope")
	if got := get(t, st, alice, m.ID); got.Text != u.Text {
		t.Errorf("another scope changed the memory: %q", got.Text)
	}
}

func (s *suite) testGetMany(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	a := newMem("first", memory.TierSemantic, nil)
	b := newMem("second", memory.TierSemantic, nil)
	c := newMem("third", memory.TierSemantic, nil)
	insert(t, st, alice, a, b, c)
	other := newMem("bob's", memory.TierSemantic, nil)
	insert(t, st, bob, other)
	got, err := st.GetMany(ctx, alice, []string{c.ID, "missing", a.ID, other.ID, b.ID})
	must(t, err)
	if want := []string{c.ID, a.ID, b.ID}; !slices.Equal(memIDs(got), want) {
		t.Errorf("GetMany = %v, want %v", memIDs(got), want)
	}
	got, err = st.GetMany(ctx, alice, nil)
	must(t, err)
	if len(got) != 0 {
		t.Errorf("GetMany(nil) = %v", memIDs(got))
	}
	_, err = st.Get(ctx, alice, other.ID)
	wantErr(t, err, memory.ErrNotFound, "get another scope's id")
	_, err = st.Get(ctx, aliceW, a.ID)
	wantErr(t, err, memory.ErrNotFound, "get from another namespace")
}

func (s *suite) testDelete(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	a := newMem("delete me: orange marmalade", memory.TierSemantic, unit(1, 0))
	b := newMem("keep me", memory.TierSemantic, unit(2, 0))
	insert(t, st, alice, a, b)
	// Warm any search cache before deleting.
	_, err := st.VectorSearch(ctx, alice, unit(1, 0), memory.SearchOptions{At: t0})
	must(t, err)
	wantErr(t, st.Delete(ctx, bob, a.ID), memory.ErrNotFound, "delete from another scope")
	must(t, st.Delete(ctx, alice, a.ID))
	_, err = st.Get(ctx, alice, a.ID)
	wantErr(t, err, memory.ErrNotFound, "get after delete")
	wantErr(t, st.Delete(ctx, alice, a.ID), memory.ErrNotFound, "delete twice")
	vs, err := st.VectorSearch(ctx, alice, unit(1, 0), memory.SearchOptions{At: t0})
	must(t, err)
	if slices.Contains(ids(vs), a.ID) {
		t.Error("vector search returns a deleted memory")
	}
	ls, err := st.LexicalSearch(ctx, alice, "marmalade", memory.SearchOptions{At: t0})
	must(t, err)
	if len(ls) != 0 {
		t.Errorf("lexical search returns a deleted memory: %v", ids(ls))
	}
	get(t, st, alice, b.ID)
}

// sameMemory compares memories field by field, times with Equal.
func sameMemory(a, b *memory.Memory) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	if !timeEq(x.CreatedAt, y.CreatedAt) || !timeEq(x.LastUsedAt, y.LastUsedAt) || !timeEq(x.ValidFrom, y.ValidFrom) ||
		!ptrTimeEq(x.ValidTo, y.ValidTo) || !ptrTimeEq(x.ExpiresAt, y.ExpiresAt) ||
		!ptrTimeEq(x.ArchivedAt, y.ArchivedAt) || !ptrTimeEq(x.ConsolidatedAt, y.ConsolidatedAt) {
		return false
	}
	x.CreatedAt, x.LastUsedAt, x.ValidFrom = time.Time{}, time.Time{}, time.Time{}
	y.CreatedAt, y.LastUsedAt, y.ValidFrom = time.Time{}, time.Time{}, time.Time{}
	x.ValidTo, x.ExpiresAt, x.ArchivedAt, x.ConsolidatedAt = nil, nil, nil, nil
	y.ValidTo, y.ExpiresAt, y.ArchivedAt, y.ConsolidatedAt = nil, nil, nil, nil
	if len(x.Embedding) == 0 && len(y.Embedding) == 0 {
		x.Embedding, y.Embedding = nil, nil
	}
	normProv(&x.Provenance)
	normProv(&y.Provenance)
	return reflect.DeepEqual(x, y)
}

func normProv(p *memory.Provenance) {
	if len(p.RequestIDs) == 0 {
		p.RequestIDs = nil
	}
	if len(p.TurnRefs) == 0 {
		p.TurnRefs = nil
	}
	if len(p.MemoryIDs) == 0 {
		p.MemoryIDs = nil
	}
}
