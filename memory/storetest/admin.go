package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

func (s *suite) testUsers(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	p, err := st.Users(ctx, 0, "")
	must(t, err)
	if len(p.Data) != 0 || p.Next != "" {
		t.Fatalf("users of an empty store: %+v", p)
	}
	want := map[string][]string{}
	counts := map[string]int{}
	for i := range 13 {
		user := fmt.Sprintf("user-%02d", i)
		for j := range 1 + i%3 {
			ns := []string{"default", "work", "zeta"}[j]
			var ms []*memory.Memory
			for k := range 1 + j {
				ms = append(ms, newMem(fmt.Sprintf("%s %s %d", user, ns, k), memory.TierSemantic, nil))
			}
			insert(t, st, memory.Scope{User: user, Namespace: ns}, ms...)
			want[user] = append(want[user], ns)
			counts[user] += len(ms)
		}
	}
	var got []memory.UserInfo
	cursor := ""
	for range 20 {
		p, err := st.Users(ctx, 4, cursor)
		must(t, err)
		if len(p.Data) > 4 {
			t.Fatalf("page of %d users with limit 4", len(p.Data))
		}
		got = append(got, p.Data...)
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	if len(got) != 13 {
		t.Fatalf("paged %d users, want 13", len(got))
	}
	for i, u := range got {
		name := fmt.Sprintf("user-%02d", i)
		if u.User != name || !slices.Equal(u.Namespaces, want[name]) || u.Memories != counts[name] {
			t.Errorf("users[%d] = %+v, want %s %v %d", i, u, name, want[name], counts[name])
		}
	}
	p, err = st.Users(ctx, 0, "")
	must(t, err)
	if len(p.Data) != 13 {
		t.Errorf("default limit listed %d users", len(p.Data))
	}
}

func (s *suite) testScopes(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	insert(t, st, bob, newMem("b", memory.TierSemantic, nil))
	insert(t, st, aliceW, newMem("aw", memory.TierSemantic, nil))
	insert(t, st, alice, newMem("a1", memory.TierSemantic, nil), newMem("a2", memory.TierEvent, nil))
	must(t, st.AppendTurn(ctx, &memory.Turn{RequestID: "r", Scope: nobody, Time: t0, User: "no memories here"}))
	got, err := st.Scopes(ctx)
	must(t, err)
	if want := []memory.Scope{alice, aliceW, bob}; !slices.Equal(got, want) {
		t.Errorf("Scopes = %v, want %v", got, want)
	}
}

// fill writes one of everything for scope sc and returns the memory ids.
func fill(t *testing.T, st Backend, sc memory.Scope, tag string) []string {
	t.Helper()
	ctx := context.Background()
	a := newMem(tag+" likes sailing", memory.TierSemantic, unit(0, 0))
	a.Key = "hobby"
	b := newMem(tag+" went sailing", memory.TierEvent, unit(0, 0.1))
	insert(t, st, sc, a, b)
	must(t, st.Archive(ctx, sc, []string{b.ID}, t0))
	must(t, st.AppendTurn(ctx, &memory.Turn{RequestID: tag + "-turn", Scope: sc, Time: t0, User: "I like sailing", Assistant: "nice"}))
	must(t, st.AppendAudit(ctx, &memory.AuditEntry{Scope: sc, Time: t0, Actor: "background", Action: "insert", MemoryID: a.ID, After: a.Text}))
	must(t, st.AppendRecall(ctx, &memory.RecallRecord{RequestID: tag + "-req", Scope: sc, Time: t0, Arm: "on", Status: "injected", Injected: []string{a.ID}}))
	must(t, st.SetThreshold(ctx, sc, 0.5))
	return []string{a.ID, b.ID}
}

// present counts what remains of scope sc across every read.
func present(t *testing.T, st Backend, sc memory.Scope, tag string) (n int) {
	t.Helper()
	ctx := context.Background()
	p, err := st.List(ctx, sc, memory.ListFilter{})
	must(t, err)
	n += len(p.Data)
	vs, err := st.VectorSearch(ctx, sc, unit(0, 0), memory.SearchOptions{At: t0, IncludeDead: true})
	must(t, err)
	n += len(vs)
	ls, err := st.LexicalSearch(ctx, sc, "sailing", memory.SearchOptions{At: t0, IncludeDead: true})
	must(t, err)
	n += len(ls)
	h, err := st.History(ctx, sc, "hobby")
	must(t, err)
	n += len(h)
	tp, err := st.Turns(ctx, sc, memory.TurnFilter{})
	must(t, err)
	n += len(tp.Data)
	au, err := st.Audit(ctx, sc, time.Time{}, 0)
	must(t, err)
	n += len(au)
	if _, err := st.RecallByRequest(ctx, sc, tag+"-req"); err == nil {
		n++
	} else if !errors.Is(err, memory.ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := st.FindRecall(ctx, tag+"-req"); err == nil {
		n++
	}
	if _, ok, err := st.Threshold(ctx, sc); err != nil {
		t.Fatal(err)
	} else if ok {
		n++
	}
	return n
}

// full is what present counts for a scope filled by fill.
const full = 2 + 2 + 2 + 1 + 1 + 1 + 1 + 1 + 1

func (s *suite) testDeleteUser(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	carol := memory.Scope{User: "carol", Namespace: "default"}
	carolW := memory.Scope{User: "carol", Namespace: "work"}
	// A user whose name is a prefix of another's must not be caught.
	carolX := memory.Scope{User: "carol2", Namespace: "default"}
	scopes := map[memory.Scope]string{alice: "alice", aliceW: "alicew", bob: "bob", carol: "carol", carolW: "carolw", carolX: "carolx"}
	for sc, tag := range scopes {
		fill(t, st, sc, tag)
	}
	for sc, tag := range scopes {
		if n := present(t, st, sc, tag); n != full {
			t.Fatalf("%v before deletion: %d items, want %d", sc, n, full)
		}
	}

	counts, err := st.DeleteUser(ctx, "alice", "work")
	must(t, err)
	if counts.Memories != 2 || counts.Turns != 1 || counts.Audit != 1 || counts.Recall != 1 {
		t.Errorf("delete alice/work counts = %+v", counts)
	}
	if n := present(t, st, aliceW, "alicew"); n != 0 {
		t.Errorf("alice/work keeps %d items", n)
	}
	if n := present(t, st, alice, "alice"); n != full {
		t.Errorf("alice/default lost data: %d items", n)
	}

	counts, err = st.DeleteUser(ctx, "carol", "")
	must(t, err)
	if counts.Memories != 4 || counts.Turns != 2 || counts.Audit != 2 || counts.Recall != 2 {
		t.Errorf("delete carol counts = %+v", counts)
	}
	for _, sc := range []memory.Scope{carol, carolW} {
		if n := present(t, st, sc, scopes[sc]); n != 0 {
			t.Errorf("%v keeps %d items", sc, n)
		}
	}
	for _, sc := range []memory.Scope{alice, bob, carolX} {
		if n := present(t, st, sc, scopes[sc]); n != full {
			t.Errorf("%v lost data: %d items, want %d", sc, n, full)
		}
	}
	users, err := st.Users(ctx, 100, "")
	must(t, err)
	for _, u := range users.Data {
		if u.User == "carol" {
			t.Errorf("carol still listed: %+v", u)
		}
	}
	sc, err := st.Scopes(ctx)
	must(t, err)
	if want := []memory.Scope{alice, bob, carolX}; !slices.Equal(sc, want) {
		t.Errorf("scopes after deletions = %v, want %v", sc, want)
	}
	all, err := st.AuditAll(ctx, "carol", time.Time{}, 0)
	must(t, err)
	if len(all) != 0 {
		t.Errorf("carol's audit survives: %+v", all)
	}
	since, err := st.RecallSince(ctx, time.Time{})
	must(t, err)
	for _, r := range since {
		if r.Scope.User == "carol" || r.Scope == aliceW {
			t.Errorf("deleted recall row survives: %+v", r)
		}
	}
	counts, err = st.DeleteUser(ctx, "carol", "")
	must(t, err)
	if counts != (memory.DeleteCounts{}) {
		t.Errorf("deleting twice removed %+v", counts)
	}
	_, err = st.DeleteUser(ctx, "", "")
	wantErr(t, err, memory.ErrInvalidScope, "delete of an empty user")
}
