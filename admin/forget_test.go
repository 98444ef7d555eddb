package admin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/memory"
)

// TestForgetUser deletes a user whose content sits in every place memproxy
// keeps things: memories of each tier (seeded and made by the background),
// the turn log, the recall log, audit entries, gate state and River jobs
// (completed ones holding raw turns, and one still pending). Afterwards no
// row of any table holds that content, recall for the user finds nothing,
// other users are untouched and the deletion itself is audited.
func TestForgetUser(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		ctx := context.Background()
		now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		alice, bob := scope("alice"), scope("bob")
		secrets := []string{"Zebulon-the-dog", "Tromsø-harbour", "SECRET-MEM", "SECRET-TURN", "SECRET-AUDIT", "SECRET-QUEUED", "SECRET-WORK"}

		// Live traffic through a working queue: completed jobs and the
		// memories and turns ingest made from them.
		work := newQueue(t, st, false, clock)
		if err := work.ImportTurns(ctx, []*memory.Turn{
			{RequestID: "a1", Scope: alice, Time: now.Add(-time.Hour), User: "My dog is called Zebulon-the-dog and I live by Tromsø-harbour", Assistant: "Lovely."},
			{RequestID: "b1", Scope: bob, Time: now.Add(-time.Hour), User: "My cat is called Bob-cat-Felix", Assistant: "Nice."},
		}); err != nil {
			t.Fatal(err)
		}
		waitIdle(t, work)
		stopQueue(t, work)

		e := newEnv(t, st)
		for _, tier := range memory.Tiers {
			e.seed(alice, tier, string(tier)+" SECRET-MEM of alice")
		}
		e.seed(memory.Scope{User: "alice", Namespace: "work"}, memory.TierSemantic, "SECRET-WORK project")
		bobMem := e.seed(bob, memory.TierSemantic, "Bob plays chess")
		must(t, st.AppendTurn(ctx, &memory.Turn{RequestID: "a2", Scope: alice, Time: now, User: "SECRET-TURN text", Assistant: "ok"}))
		must(t, st.AppendAudit(ctx, &memory.AuditEntry{Scope: alice, Time: now, Actor: "background", Action: "insert", MemoryID: "x", After: "SECRET-AUDIT"}))
		must(t, st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "a2", Scope: alice, Time: now, Arm: "on", Status: "injected", GateReason: "cue"}))
		must(t, st.SetThreshold(ctx, alice, 0.42))

		// A turn still waiting in the queue.
		pending := newQueue(t, st, true, clock)
		must(t, pending.ImportTurns(ctx, []*memory.Turn{{RequestID: "a3", Scope: alice, Time: now, User: "SECRET-QUEUED note", Assistant: "ok"}}))

		tables := tablesOf(t, st)
		if !contains(tables, "river_job") {
			t.Fatalf("river_job not among the tables %v", tables)
		}
		// The check can fail: before the deletion every secret is found.
		for _, s := range secrets {
			if len(scanStore(t, st, tables, s)) == 0 {
				t.Fatalf("seeding did not store %q anywhere", s)
			}
		}

		e = newEnv(t, st, func(c *admin.Config) { c.Queue = pending })
		r := e.do("DELETE", "/admin/v1/users/alice", nil)
		want(t, r, http.StatusOK)
		var res struct {
			Deleted struct {
				Memories, Turns, Audit, Recall, Other, Jobs int
			}
		}
		r.json(t, &res)
		d := res.Deleted
		if d.Memories < 5 || d.Turns < 2 || d.Recall != 1 || d.Audit < 1 || d.Other != 1 || d.Jobs < 2 {
			t.Fatalf("counts %+v", d)
		}

		if hits := scanStore(t, st, tablesOf(t, st), secrets...); len(hits) > 0 {
			t.Fatalf("content of the deleted user remains:\n%s", strings.Join(hits, "\n"))
		}
		// Recall for the user finds nothing to inject.
		rec, err := memory.NewRecaller(memory.RecallerConfig{Search: st, Profiles: st, Embedder: testEmbedder{}, Now: clock})
		must(t, err)
		got, err := rec.Recall(ctx, alice, memory.Query{Text: "what is my dog called? Zebulon-the-dog", MinScore: 0})
		must(t, err)
		prof, err := rec.Profile(ctx, alice)
		must(t, err)
		if len(got.Selected) != 0 || len(got.Ranked) != 0 || len(prof) != 0 {
			t.Fatalf("recall after forget: %+v, profile %v", got.Ranked, prof)
		}
		if _, ok, _ := st.Threshold(ctx, alice); ok {
			t.Fatal("gate state survived")
		}
		// Bob is untouched: his memory, the memory ingest made from his
		// turn, and his turn-log row.
		if _, err := st.Get(ctx, bob, bobMem.ID); err != nil {
			t.Fatalf("bob's memory: %v", err)
		}
		if len(scanAll(t, st.DB(), []string{"memories"}, "Bob-cat-Felix")) == 0 || len(scanAll(t, st.DB(), []string{"turns"}, "Bob-cat-Felix")) == 0 {
			t.Fatal("bob's ingested memory or turn went with alice")
		}

		// Only the deletion's own audit record remains, without content.
		r = e.do("GET", "/admin/v1/audit?user=alice", nil)
		want(t, r, http.StatusOK)
		var a struct{ Data []memory.AuditEntry }
		r.json(t, &a)
		if len(a.Data) != 1 || a.Data[0].Action != "forget_user" || a.Data[0].Actor != "admin" {
			t.Fatalf("audit after forget: %+v", a.Data)
		}
		var counts map[string]int
		if err := json.Unmarshal([]byte(a.Data[0].Detail), &counts); err != nil || counts["memories"] != d.Memories {
			t.Fatalf("audit detail %q", a.Data[0].Detail)
		}

		wantBad(t, e.do("DELETE", "/admin/v1/users/x?namespace="+strings.Repeat("n", 300), nil), "namespace")
	})
}

// Deleting one namespace leaves the user's others.
func TestForgetNamespace(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		keep := e.seed(scope("alice"), memory.TierSemantic, "default namespace memory")
		e.seed(memory.Scope{User: "alice", Namespace: "work"}, memory.TierSemantic, "work memory")
		r := e.do("DELETE", "/admin/v1/users/alice?namespace=work", nil)
		want(t, r, http.StatusOK)
		if len(scanAll(t, st.DB(), []string{"memories"}, "work memory")) != 0 {
			t.Fatal("work memory remains")
		}
		if _, err := st.Get(context.Background(), scope("alice"), keep.ID); err != nil {
			t.Fatalf("default namespace memory: %v", err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
