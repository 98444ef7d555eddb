package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// SpoolOpener returns a fresh, isolated turn spool and arranges for it to
// be closed when t ends.
type SpoolOpener func(t *testing.T) memory.TurnSpool

// RunSpool runs the turn spool's conformance suite (memory.TurnSpool).
// Semantics it pins down beyond the interface comments: a negative lease
// is already expired; ClaimTurns returns a scope's turns oldest first
// (spool order); a completed turn is never claimed again and keeps its
// response-id link until pruned.
func RunSpool(t *testing.T, open SpoolOpener) {
	t.Run("ClaimOrder", func(t *testing.T) { testSpoolClaimOrder(t, open(t)) })
	t.Run("Leases", func(t *testing.T) { testSpoolLeases(t, open(t)) })
	t.Run("ConcurrentClaims", func(t *testing.T) { testSpoolConcurrent(t, open(t)) })
	t.Run("ResponseLink", func(t *testing.T) { testSpoolResponse(t, open(t)) })
	t.Run("RedactDelete", func(t *testing.T) { testSpoolRedactDelete(t, open(t)) })
	t.Run("HeldTurns", func(t *testing.T) { testHeldTurns(t, open(t)) })
	t.Run("HeldTurnsReleasedOnce", func(t *testing.T) { testHeldReleasedOnce(t, open(t)) })
}

func spoolTurn(s memory.Scope, i int) *memory.Turn {
	return &memory.Turn{RequestID: fmt.Sprintf("r%d", i), Scope: s, Session: "sess",
		Time: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC), User: fmt.Sprintf("user %d", i), Assistant: "ok"}
}

func spoolN(t *testing.T, p memory.TurnSpool, s memory.Scope, from, n int) []*memory.Turn {
	t.Helper()
	var ts []*memory.Turn
	for i := from; i < from+n; i++ {
		ts = append(ts, spoolTurn(s, i))
	}
	if err := p.SpoolTurns(context.Background(), ts); err != nil {
		t.Fatal(err)
	}
	return ts
}

func spoolIDs(ts []*memory.Turn) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func testSpoolClaimOrder(t *testing.T, p memory.TurnSpool) {
	ctx := context.Background()
	s := memory.Scope{User: "u1", Namespace: "default"}
	in := spoolN(t, p, s, 0, 5)
	for _, tu := range in {
		if tu.ID == "" {
			t.Fatal("SpoolTurns set no ID")
		}
	}
	if err := p.SpoolTurns(ctx, []*memory.Turn{{Scope: memory.Scope{User: ""}}}); err == nil {
		t.Error("a turn without a scope was spooled")
	}
	got, err := p.ClaimTurns(ctx, s, "w1", time.Minute, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := spoolIDs(in[:3]); !slices.Equal(spoolIDs(got), want) {
		t.Fatalf("claimed %v, want %v", spoolIDs(got), want)
	}
	if got[0].User != "user 0" || got[0].Scope != s || !got[0].Time.Equal(in[0].Time) || got[0].RequestID != "r0" {
		t.Errorf("claimed turn %+v, want %+v", got[0], in[0])
	}
	// The same owner gets the rest; others wait for its lease.
	if o, err := p.ClaimTurns(ctx, s, "w2", time.Minute, 10); err != nil || len(o) != 0 {
		t.Fatalf("another owner claimed %d turns (err %v) under a live lease", len(o), err)
	}
	rest, err := p.ClaimTurns(ctx, s, "w1", time.Minute, 10)
	if err != nil || !slices.Equal(spoolIDs(rest), spoolIDs(in[3:])) {
		t.Fatalf("rest = %v (err %v), want %v", spoolIDs(rest), err, spoolIDs(in[3:]))
	}
	pending, leased, err := p.SpoolStats(ctx)
	if err != nil || pending != 5 || leased != 5 {
		t.Fatalf("stats = %d pending, %d leased (err %v); want 5, 5", pending, leased, err)
	}
	if some, err := p.AnyPending(ctx); err != nil || !some {
		t.Fatalf("AnyPending with 5 pending = %v (err %v)", some, err)
	}
	if n, err := p.CompleteTurns(ctx, s, "w2", spoolIDs(in)); err != nil || n != 0 {
		t.Fatalf("a non-owner completed %d turns (err %v)", n, err)
	}
	if n, err := p.CompleteTurns(ctx, s, "w1", spoolIDs(in)); err != nil || n != 5 {
		t.Fatalf("completed %d (err %v), want 5", n, err)
	}
	if n, err := p.CompleteTurns(ctx, s, "w1", spoolIDs(in)); err != nil || n != 0 {
		t.Fatalf("completed %d again (err %v)", n, err)
	}
	if o, err := p.ClaimTurns(ctx, s, "w2", -time.Second, 10); err != nil || len(o) != 0 {
		t.Fatalf("claimed %d completed turns (err %v)", len(o), err)
	}
	if pending, _, _ := p.SpoolStats(ctx); pending != 0 {
		t.Errorf("%d pending after completion", pending)
	}
	if some, err := p.AnyPending(ctx); err != nil || some {
		t.Errorf("AnyPending after completion = %v (err %v)", some, err)
	}
}

func testSpoolLeases(t *testing.T, p memory.TurnSpool) {
	ctx := context.Background()
	a := memory.Scope{User: "ua", Namespace: "default"}
	b := memory.Scope{User: "ub", Namespace: "default"}
	in := spoolN(t, p, a, 0, 3)
	spoolN(t, p, b, 10, 1)
	scopes, err := p.PendingScopes(ctx, 0)
	if err != nil || len(scopes) != 2 {
		t.Fatalf("pending scopes %v (err %v), want both", scopes, err)
	}
	// A dead worker's lease (already expired: negative) is taken over.
	dead, err := p.ClaimTurns(ctx, a, "dead", -time.Second, 2)
	if err != nil || len(dead) != 2 {
		t.Fatalf("claimed %d (err %v)", len(dead), err)
	}
	if scopes, _ := p.PendingScopes(ctx, 0); len(scopes) != 2 {
		t.Errorf("scopes with expired leases are pending: got %v", scopes)
	}
	live, err := p.ClaimTurns(ctx, a, "live", time.Minute, 10)
	if err != nil || !slices.Equal(spoolIDs(live), spoolIDs(in)) {
		t.Fatalf("takeover claimed %v (err %v), want %v", spoolIDs(live), err, spoolIDs(in))
	}
	// Attempts counts the claims: the dead worker's two turns are on their
	// second, the third on its first.
	if got := []int{live[0].Attempts, live[1].Attempts, live[2].Attempts}; !slices.Equal(got, []int{2, 2, 1}) {
		t.Errorf("attempts after a takeover %v, want [2 2 1]", got)
	}
	if n, _ := p.CompleteTurns(ctx, a, "dead", spoolIDs(in)); n != 0 {
		t.Errorf("the dead owner completed %d turns it lost", n)
	}
	if n, _ := p.RenewTurns(ctx, a, "dead", time.Minute); n != 0 {
		t.Errorf("the dead owner renewed %d leases it lost", n)
	}
	if n, err := p.RenewTurns(ctx, a, "live", time.Minute); err != nil || n != 3 {
		t.Errorf("renewed %d (err %v), want 3", n, err)
	}
	scopes, _ = p.PendingScopes(ctx, 0)
	if len(scopes) != 1 || scopes[0] != b {
		t.Errorf("pending scopes = %v, want only %v (a's turns are under a live lease)", scopes, b)
	}
	// A released turn is claimable at once by anyone.
	if err := p.ReleaseTurns(ctx, a, "live", spoolIDs(in)); err != nil {
		t.Fatal(err)
	}
	again, err := p.ClaimTurns(ctx, a, "other", time.Minute, 10)
	if err != nil || len(again) != 3 {
		t.Fatalf("claimed %d released turns (err %v)", len(again), err)
	}
	// Another scope is not held up by a's lease.
	if o, err := p.ClaimTurns(ctx, b, "w", time.Minute, 10); err != nil || len(o) != 1 {
		t.Errorf("scope b claimed %d (err %v)", len(o), err)
	}
}

func testSpoolConcurrent(t *testing.T, p memory.TurnSpool) {
	ctx := context.Background()
	s := memory.Scope{User: "uc", Namespace: "default"}
	in := spoolN(t, p, s, 0, 40)
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			owner := fmt.Sprintf("w%d", w)
			for {
				got, err := p.ClaimTurns(ctx, s, owner, time.Minute, 3)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					if pending, _, _ := p.SpoolStats(ctx); pending == 0 {
						return
					}
					continue
				}
				mu.Lock()
				for _, g := range got {
					seen[g.ID]++
				}
				mu.Unlock()
				if n, err := p.CompleteTurns(ctx, s, owner, spoolIDs(got)); err != nil || n != len(got) {
					t.Errorf("completed %d of %d (err %v)", n, len(got), err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, tu := range in {
		if seen[tu.ID] != 1 {
			t.Errorf("turn %s claimed %d times", tu.ID, seen[tu.ID])
		}
	}
}

func testSpoolResponse(t *testing.T, p memory.TurnSpool) {
	ctx := context.Background()
	s := memory.Scope{User: "ur", Namespace: "default"}
	other := memory.Scope{User: "ur", Namespace: "work"}
	tu := spoolTurn(s, 1)
	tu.ResponseID, tu.Session = "resp_123", "chat-7"
	if err := p.SpoolTurns(ctx, []*memory.Turn{tu}); err != nil {
		t.Fatal(err)
	}
	if sess, ok, err := p.SessionByResponse(ctx, s, "resp_123"); err != nil || !ok || sess != "chat-7" {
		t.Fatalf("SessionByResponse = %q, %v, %v", sess, ok, err)
	}
	if _, ok, err := p.SessionByResponse(ctx, other, "resp_123"); err != nil || ok {
		t.Errorf("another scope found the response (ok %v, err %v)", ok, err)
	}
	if _, ok, _ := p.SessionByResponse(ctx, s, "resp_nope"); ok {
		t.Error("an unknown response was found")
	}
	if _, _, err := p.SessionByResponse(ctx, memory.Scope{}, "resp_123"); err == nil {
		t.Error("no error for an empty scope")
	}
	// The link outlives completion (the text does not) until pruned.
	got, _ := p.ClaimTurns(ctx, s, "w", time.Minute, 1)
	if n, _ := p.CompleteTurns(ctx, s, "w", spoolIDs(got)); n != 1 {
		t.Fatal("not completed")
	}
	if sess, ok, _ := p.SessionByResponse(ctx, s, "resp_123"); !ok || sess != "chat-7" {
		t.Errorf("after completion: %q, %v", sess, ok)
	}
	if n, err := p.PruneSpool(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("pruned %d (err %v)", n, err)
	}
	if _, ok, _ := p.SessionByResponse(ctx, s, "resp_123"); ok {
		t.Error("a pruned turn's response was found")
	}
}

func testSpoolRedactDelete(t *testing.T, p memory.TurnSpool) {
	ctx := context.Background()
	s := memory.Scope{User: "ux", Namespace: "default"}
	o := memory.Scope{User: "uy", Namespace: "default"}
	tu := spoolTurn(s, 1)
	tu.User = "my passport number is X1234567, remember it"
	ot := spoolTurn(o, 2)
	ot.User = "X1234567 is my locker code"
	if err := p.SpoolTurns(ctx, []*memory.Turn{tu, ot}); err != nil {
		t.Fatal(err)
	}
	if n, err := p.RedactSpooled(ctx, s, []string{"X1234567"}, "[forgotten]"); err != nil || n != 1 {
		t.Fatalf("redacted %d (err %v), want 1", n, err)
	}
	got, _ := p.ClaimTurns(ctx, s, "w", time.Minute, 10)
	if len(got) != 1 || got[0].User != "my passport number is [forgotten], remember it" {
		t.Fatalf("after redaction: %+v", got)
	}
	og, _ := p.ClaimTurns(ctx, o, "w", time.Minute, 10)
	if len(og) != 1 || og[0].User != ot.User {
		t.Errorf("another scope's turn changed: %+v", og)
	}
	if n, err := p.DeleteSpoolUser(ctx, "ux", ""); err != nil || n != 1 {
		t.Fatalf("deleted %d (err %v)", n, err)
	}
	if pending, _, _ := p.SpoolStats(ctx); pending != 1 {
		t.Errorf("%d pending after deleting ux, want 1", pending)
	}
}

// testTurnLogKeyed: a turn appended twice under one ID (a retried ingest)
// is logged once; turns without an ID are logged each time.
func (s *suite) testTurnLogKeyed(t *testing.T) {
	st := s.open(t, Dim)
	ctx := context.Background()
	sc := memory.Scope{User: "tk", Namespace: "default"}
	tu := spoolTurn(sc, 1)
	tu.ID = "turn-key-1"
	for range 2 {
		c := *tu
		if err := st.AppendTurn(ctx, &c); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		c := *tu
		c.ID = ""
		if err := st.AppendTurn(ctx, &c); err != nil {
			t.Fatal(err)
		}
	}
	page, err := st.Turns(ctx, sc, memory.TurnFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 3 {
		t.Errorf("%d turn-log rows, want 3 (one keyed, two unkeyed)", len(page.Data))
	}
}

// testErase: EraseTurns and EraseAudit remove the text of the named turns
// and memories' audit entries, in the scope only, and keep the rows.
func (s *suite) testErase(t *testing.T) {
	st := s.open(t, Dim)
	es, ok := st.(memory.Erasing)
	if !ok {
		t.Fatal("the store hands out no memory.Eraser")
	}
	er := es.Eraser()
	ctx := context.Background()
	a := memory.Scope{User: "ea", Namespace: "default"}
	b := memory.Scope{User: "eb", Namespace: "default"}
	for _, sc := range []memory.Scope{a, b} {
		for i, txt := range []string{"my passport number is X1234567", "I like tea"} {
			tu := spoolTurn(sc, i)
			tu.User, tu.Assistant = txt, "Noted: "+txt
			if err := st.AppendTurn(ctx, tu); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.AppendAudit(ctx, &memory.AuditEntry{Scope: sc, Actor: "background", Action: "insert", MemoryID: "m1", After: "passport X1234567"}); err != nil {
			t.Fatal(err)
		}
		if err := st.AppendAudit(ctx, &memory.AuditEntry{Scope: sc, Actor: "background", Action: "insert", MemoryID: "m2", After: "likes tea"}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := er.EraseTurns(ctx, a, []string{"r0", ""}); err != nil || n != 1 {
		t.Fatalf("erased %d turns (err %v), want 1", n, err)
	}
	if n, err := er.EraseAudit(ctx, a, []string{"m1"}); err != nil || n != 1 {
		t.Fatalf("erased %d audit entries (err %v), want 1", n, err)
	}
	for _, sc := range []memory.Scope{a, b} {
		page, err := st.Turns(ctx, sc, memory.TurnFilter{})
		if err != nil || len(page.Data) != 2 {
			t.Fatalf("%v: %d turns (err %v)", sc, len(page.Data), err)
		}
		erased := sc == a
		for _, tu := range page.Data {
			has := strings.Contains(tu.User+tu.Assistant, "X1234567")
			if tu.RequestID == "r0" && has == erased {
				t.Errorf("%v: turn r0 = %q / %q (erased: %v)", sc, tu.User, tu.Assistant, erased)
			}
			if tu.RequestID == "r1" && !strings.Contains(tu.User, "tea") {
				t.Errorf("%v: turn r1 lost its text: %q", sc, tu.User)
			}
		}
		au, err := st.Audit(ctx, sc, time.Time{}, 0)
		if err != nil || len(au) != 2 {
			t.Fatalf("%v: %d audit entries (err %v)", sc, len(au), err)
		}
		for _, e := range au {
			if e.MemoryID == "m1" && (e.After == "") != erased {
				t.Errorf("%v: m1's after-image %q (erased: %v)", sc, e.After, erased)
			}
			if e.MemoryID == "m2" && e.After != "likes tea" {
				t.Errorf("%v: m2's after-image %q", sc, e.After)
			}
			if e.Actor == "" || e.Time.IsZero() {
				t.Errorf("the entry lost who or when: %+v", e)
			}
		}
	}
}
