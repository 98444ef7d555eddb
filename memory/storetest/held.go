package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// testHeldTurns pins memory.HeldTurns: a held turn is invisible to
// everything that reads pending turns, found by its scope and response id
// alone, redacted by explicit forget, and once released it is an ordinary
// pending turn with its reply.
func testHeldTurns(t *testing.T, p memory.TurnSpool) {
	ctx := context.Background()
	s := memory.Scope{User: "uh", Namespace: "default"}
	other := memory.Scope{User: "uh", Namespace: "work"}
	if err := p.HoldTurn(ctx, &memory.Turn{RequestID: "r0", Scope: s, User: "no response id"}); err == nil {
		t.Error("a turn without a response id was held")
	}
	tu := spoolTurn(s, 1)
	tu.API, tu.ResponseID, tu.Assistant, tu.User = "responses", "resp_bg", "", "my passport is X123"
	if err := p.HoldTurn(ctx, tu); err != nil {
		t.Fatal(err)
	}
	if tu.ID == "" {
		t.Fatal("HoldTurn did not set the turn's ID")
	}
	if got, err := p.ClaimTurns(ctx, s, "w", time.Minute, 10); err != nil || len(got) != 0 {
		t.Fatalf("claimed a held turn: %d (err %v)", len(got), err)
	}
	if pending, _, err := p.SpoolStats(ctx); err != nil || pending != 0 {
		t.Errorf("a held turn counts as pending: %d (err %v)", pending, err)
	}
	if sc, err := p.PendingScopes(ctx, 10); err != nil || len(sc) != 0 {
		t.Errorf("a held turn's scope is pending: %v (err %v)", sc, err)
	}
	if _, ok, err := p.HeldTurn(ctx, other, "resp_bg"); err != nil || ok {
		t.Errorf("another scope found the held turn (ok %v, err %v)", ok, err)
	}
	if _, _, err := p.HeldTurn(ctx, memory.Scope{}, "resp_bg"); err == nil {
		t.Error("no error for an empty scope")
	}
	if _, ok, _ := p.HeldTurn(ctx, s, "resp_nope"); ok {
		t.Error("an unknown response id was found")
	}
	// A request chained to the background response stays in its session.
	if sess, ok, err := p.SessionByResponse(ctx, s, "resp_bg"); err != nil || !ok || sess != tu.Session {
		t.Errorf("SessionByResponse of a held turn = %q, %v, %v", sess, ok, err)
	}
	if n, err := p.RedactSpooled(ctx, s, []string{"X123"}, "[forgotten]"); err != nil || n != 1 {
		t.Errorf("redacted %d held turns (err %v)", n, err)
	}
	h, ok, err := p.HeldTurn(ctx, s, "resp_bg")
	if err != nil || !ok {
		t.Fatalf("HeldTurn = %v, %v", ok, err)
	}
	if h.ID != tu.ID || h.API != "responses" || h.User != "my passport is [forgotten]" || h.Session != tu.Session || !h.Time.Equal(tu.Time) {
		t.Errorf("held turn read back as %+v", h)
	}

	h.Assistant, h.FinishReason = "Noted.", "completed"
	if ok, err := p.ReleaseTurn(ctx, h); err != nil || !ok {
		t.Fatalf("ReleaseTurn = %v, %v", ok, err)
	}
	if ok, err := p.ReleaseTurn(ctx, h); err != nil || ok {
		t.Errorf("released twice (ok %v, err %v)", ok, err)
	}
	if _, ok, _ := p.HeldTurn(ctx, s, "resp_bg"); ok {
		t.Error("a released turn is still held")
	}
	if pending, _, _ := p.SpoolStats(ctx); pending != 1 {
		t.Errorf("after release %d pending, want 1", pending)
	}
	got, err := p.ClaimTurns(ctx, s, "w", time.Minute, 10)
	if err != nil || len(got) != 1 {
		t.Fatalf("claimed %d released turns (err %v)", len(got), err)
	}
	if g := got[0]; g.ID != tu.ID || g.Assistant != "Noted." || g.FinishReason != "completed" || g.ResponseID != "resp_bg" {
		t.Errorf("claimed %+v", g)
	}

	// One never released goes with the pruned turns and with its user.
	for i, rid := range []string{"resp_old", "resp_gone"} {
		o := spoolTurn(s, 10+i)
		o.ResponseID = rid
		if err := p.HoldTurn(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.PruneSpool(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := p.HeldTurn(ctx, s, "resp_old"); ok {
		t.Error("a pruned held turn was found")
	}
	gone := spoolTurn(other, 20)
	gone.ResponseID = "resp_gone"
	if err := p.HoldTurn(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if _, err := p.DeleteSpoolUser(ctx, other.User, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := p.HeldTurn(ctx, other, "resp_gone"); ok {
		t.Error("a deleted user's held turn was found")
	}
}

// testHeldReleasedOnce: replicas fetching one completed response at once
// release its held turn once.
func testHeldReleasedOnce(t *testing.T, p memory.TurnSpool) {
	ctx := context.Background()
	s := memory.Scope{User: "uo", Namespace: "default"}
	tu := spoolTurn(s, 1)
	tu.ResponseID = "resp_once"
	if err := p.HoldTurn(ctx, tu); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	released := 0
	var held []*memory.Turn
	for range n {
		h, ok, err := p.HeldTurn(ctx, s, "resp_once")
		if err != nil || !ok {
			t.Fatalf("HeldTurn = %v, %v", ok, err)
		}
		held = append(held, h)
	}
	for _, h := range held {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Assistant = "reply"
			ok, err := p.ReleaseTurn(ctx, h)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				released++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if released != 1 {
		t.Errorf("released %d times, want once", released)
	}
	if got, _ := p.ClaimTurns(ctx, s, "w", time.Minute, 10); len(got) != 1 {
		t.Errorf("claimed %d turns, want 1", len(got))
	}
}
