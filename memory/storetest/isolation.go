package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// testIsolation runs random operations across many scopes against a model
// of what each scope holds, and checks that no read returns another scope's
// data, no write reaches across scopes, and a user deletion removes that
// user entirely and nothing else.
func (s *suite) testIsolation(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))

	users := []string{"u1", "u10", "u2", "U1", "用户一", "u1/default"}
	nss := []string{"default", "work", "default/x"}
	var scopes []memory.Scope
	for _, u := range users {
		for _, ns := range nss {
			scopes = append(scopes, memory.Scope{User: u, Namespace: ns})
		}
	}
	type rec struct {
		scope    memory.Scope
		hits     int
		archived bool
		dead     bool // superseded
	}
	model := map[string]*rec{} // every live id in the store
	byScope := func(sc memory.Scope) []string {
		var out []string
		for id, r := range model {
			if r.scope == sc {
				out = append(out, id)
			}
		}
		slices.Sort(out)
		return out
	}
	anyID := func() string {
		if len(model) == 0 {
			return "none"
		}
		keys := make([]string, 0, len(model))
		for id := range model {
			keys = append(keys, id)
		}
		slices.Sort(keys)
		return keys[rng.IntN(len(keys))]
	}
	foreignOf := func(sc memory.Scope) string {
		for range 20 {
			id := anyID()
			if r, ok := model[id]; ok && r.scope != sc {
				return id
			}
		}
		return "none"
	}
	ownOf := func(sc memory.Scope) string {
		own := byScope(sc)
		if len(own) == 0 {
			return ""
		}
		return own[rng.IntN(len(own))]
	}
	words := []string{"sailing", "tea", "coffee", "Paris", "project", "deadline", "乌龙茶", "上海", "猫"}
	vec := func() []float32 {
		v := make([]float32, Dim)
		v[rng.IntN(Dim)] = 1
		v[rng.IntN(Dim)] += 0.5
		return v
	}
	check := func(sc memory.Scope, what string, got []*memory.Memory) {
		t.Helper()
		for _, m := range got {
			if m.Scope != sc {
				t.Fatalf("%s in %v returned %s of scope %v", what, sc, m.ID, m.Scope)
			}
			if r, ok := model[m.ID]; !ok || r.scope != sc {
				t.Fatalf("%s in %v returned %s, which the scope does not hold", what, sc, m.ID)
			}
		}
	}
	cands := func(cs []memory.Candidate) []*memory.Memory {
		out := make([]*memory.Memory, len(cs))
		for i, c := range cs {
			out[i] = c.Memory
		}
		return out
	}
	now := t0
	for step := range 1500 {
		sc := scopes[rng.IntN(len(scopes))]
		now = now.Add(time.Second)
		switch op := rng.IntN(15); op {
		case 0, 1, 2:
			var ms []*memory.Memory
			for range 1 + rng.IntN(3) {
				m := newMem(fmt.Sprintf("%s %s %s step %d", words[rng.IntN(len(words))], words[rng.IntN(len(words))], sc.User, step), memory.TierSemantic, vec())
				m.Key = "shared.key"
				m.CreatedAt = now
				ms = append(ms, m)
			}
			insert(t, st, sc, ms...)
			for _, m := range ms {
				model[m.ID] = &rec{scope: sc}
			}
		case 3:
			id := foreignOf(sc)
			m := newMem("hijacked "+words[0], memory.TierSemantic, vec())
			m.ID = id
			if err := st.Update(ctx, sc, m); !errors.Is(err, memory.ErrNotFound) {
				t.Fatalf("step %d: update of foreign %s from %v: %v", step, id, sc, err)
			}
			if err := st.Delete(ctx, sc, id); !errors.Is(err, memory.ErrNotFound) {
				t.Fatalf("step %d: delete of foreign %s from %v: %v", step, id, sc, err)
			}
			if err := st.Supersede(ctx, sc, id, "x", now); !errors.Is(err, memory.ErrNotFound) {
				t.Fatalf("step %d: supersede of foreign %s from %v: %v", step, id, sc, err)
			}
			if _, err := st.Get(ctx, sc, id); !errors.Is(err, memory.ErrNotFound) {
				t.Fatalf("step %d: get of foreign %s from %v: %v", step, id, sc, err)
			}
		case 4:
			if id := ownOf(sc); id != "" {
				m := get(t, st, sc, id)
				m.Text = "updated " + words[rng.IntN(len(words))]
				m.Embedding = vec()
				must(t, st.Update(ctx, sc, m))
			}
		case 5:
			if id := ownOf(sc); id != "" && rng.IntN(3) == 0 {
				must(t, st.Delete(ctx, sc, id))
				delete(model, id)
			}
		case 6:
			old, nw := ownOf(sc), ownOf(sc)
			if old != "" && old != nw && !model[old].dead {
				must(t, st.Supersede(ctx, sc, old, nw, now))
				model[old].dead = true
			}
		case 7:
			batch := []string{foreignOf(sc), foreignOf(sc)}
			if id := ownOf(sc); id != "" {
				batch = append(batch, id)
			}
			must(t, st.Touch(ctx, sc, batch, now))
			for _, id := range batch {
				if r, ok := model[id]; ok && r.scope == sc {
					r.hits++
				}
			}
		case 8:
			batch := []string{foreignOf(sc)}
			if id := ownOf(sc); id != "" {
				batch = append(batch, id)
			}
			if rng.IntN(2) == 0 {
				must(t, st.Archive(ctx, sc, batch, now))
			} else {
				must(t, st.Restore(ctx, sc, batch))
			}
			// The model reads back the archive state of own ids.
			for _, id := range batch {
				if r, ok := model[id]; ok && r.scope == sc {
					r.archived = get(t, st, sc, id).ArchivedAt != nil
				}
			}
		case 9:
			vs, err := st.VectorSearch(ctx, sc, vec(), memory.SearchOptions{At: now, IncludeDead: true, Limit: 1000})
			must(t, err)
			check(sc, "vector search", cands(vs))
			if len(vs) != len(byScope(sc)) {
				t.Fatalf("step %d: vector search in %v found %d, scope holds %d", step, sc, len(vs), len(byScope(sc)))
			}
			vs, err = st.VectorSearch(ctx, sc, vec(), memory.SearchOptions{At: now, Limit: 1000})
			must(t, err)
			check(sc, "live vector search", cands(vs))
			for _, c := range vs {
				if r := model[c.Memory.ID]; r.archived || r.dead {
					t.Fatalf("step %d: live vector search returned dead %s", step, c.Memory.ID)
				}
			}
		case 10:
			ls, err := st.LexicalSearch(ctx, sc, words[rng.IntN(len(words))]+" "+words[rng.IntN(len(words))], memory.SearchOptions{At: now, IncludeDead: true, Limit: 1000})
			must(t, err)
			check(sc, "lexical search", cands(ls))
		case 11:
			p, err := st.List(ctx, sc, memory.ListFilter{Limit: 1000})
			must(t, err)
			check(sc, "list", p.Data)
			if len(p.Data) != len(byScope(sc)) {
				t.Fatalf("step %d: list of %v has %d, scope holds %d", step, sc, len(p.Data), len(byScope(sc)))
			}
			h, err := st.History(ctx, sc, "shared.key")
			must(t, err)
			check(sc, "history", h)
		case 12:
			want := byScope(sc)
			probe := append(slices.Clone(want), foreignOf(sc), foreignOf(sc))
			got, err := st.GetMany(ctx, sc, probe)
			must(t, err)
			check(sc, "get many", got)
			if len(got) != len(want) {
				t.Fatalf("step %d: get many in %v returned %d of %d", step, sc, len(got), len(want))
			}
			for _, m := range got {
				if m.Hits != model[m.ID].hits {
					t.Fatalf("step %d: %s has %d hits, model says %d", step, m.ID, m.Hits, model[m.ID].hits)
				}
			}
		case 13:
			tag := fmt.Sprintf("%s|%s|%d", sc.User, sc.Namespace, step)
			must(t, st.AppendTurn(ctx, &memory.Turn{RequestID: tag, Scope: sc, Time: now, User: tag, Assistant: "ok"}))
			must(t, st.AppendAudit(ctx, &memory.AuditEntry{Scope: sc, Time: now, Actor: "background", Action: "insert", Detail: tag}))
			must(t, st.AppendRecall(ctx, &memory.RecallRecord{RequestID: tag, Scope: sc, Time: now, Arm: "on", Status: "skipped", GateReason: tag}))
			must(t, st.SetThreshold(ctx, sc, float64(step)))
		case 14:
			want := fmt.Sprintf("%s|%s|", sc.User, sc.Namespace)
			tp, err := st.Turns(ctx, sc, memory.TurnFilter{Limit: 1000})
			must(t, err)
			for _, tr := range tp.Data {
				if tr.Scope != sc || !hasPrefix(tr.User, want) {
					t.Fatalf("step %d: turns of %v returned %+v", step, sc, tr)
				}
			}
			au, err := st.Audit(ctx, sc, time.Time{}, 1000)
			must(t, err)
			for _, e := range au {
				if e.Scope != sc || !hasPrefix(e.Detail, want) {
					t.Fatalf("step %d: audit of %v returned %+v", step, sc, e)
				}
			}
			if len(tp.Data) != len(au) {
				t.Fatalf("step %d: %v has %d turns but %d audit entries", step, sc, len(tp.Data), len(au))
			}
			for _, tr := range tp.Data {
				r, err := st.RecallByRequest(ctx, sc, tr.RequestID)
				must(t, err)
				if r.Scope != sc || r.GateReason != tr.RequestID {
					t.Fatalf("step %d: recall of %v returned %+v", step, sc, r)
				}
			}
		}
	}

	// Delete one user; everything of theirs goes, everyone else is intact.
	victim := users[rng.IntN(len(users))]
	t.Logf("deleting user %q", victim)
	_, err := st.DeleteUser(ctx, victim, "")
	must(t, err)
	for _, sc := range scopes {
		p, err := st.List(ctx, sc, memory.ListFilter{Limit: 1000})
		must(t, err)
		tp, err := st.Turns(ctx, sc, memory.TurnFilter{Limit: 1000})
		must(t, err)
		au, err := st.Audit(ctx, sc, time.Time{}, 1000)
		must(t, err)
		vs, err := st.VectorSearch(ctx, sc, vec(), memory.SearchOptions{At: now, IncludeDead: true, Limit: 1000})
		must(t, err)
		_, hasGate, err := st.Threshold(ctx, sc)
		must(t, err)
		if sc.User == victim {
			if len(p.Data)+len(tp.Data)+len(au)+len(vs) != 0 || hasGate {
				t.Errorf("deleted %v keeps %d memories, %d turns, %d audit, %d vectors, gate %v", sc, len(p.Data), len(tp.Data), len(au), len(vs), hasGate)
			}
			continue
		}
		check(sc, "list after deletion", p.Data)
		if len(p.Data) != len(byScope(sc)) || len(vs) != len(byScope(sc)) {
			t.Errorf("%v lost memories in another user's deletion: %d listed, %d found, want %d", sc, len(p.Data), len(vs), len(byScope(sc)))
		}
		if len(tp.Data) != len(au) {
			t.Errorf("%v: %d turns but %d audit entries after another user's deletion", sc, len(tp.Data), len(au))
		}
	}
	all, err := st.AuditAll(ctx, victim, time.Time{}, 0)
	must(t, err)
	if len(all) != 0 {
		t.Errorf("audit of deleted user survives: %d entries", len(all))
	}
	rs, err := st.RecallSince(ctx, time.Time{})
	must(t, err)
	for _, r := range rs {
		if r.Scope.User == victim {
			t.Fatalf("recall row of deleted user survives: %+v", r)
		}
	}
	us, err := st.Users(ctx, 1000, "")
	must(t, err)
	for _, u := range us.Data {
		if u.User == victim {
			t.Errorf("deleted user still listed: %+v", u)
		}
	}
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
