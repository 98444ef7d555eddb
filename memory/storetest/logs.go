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

func (s *suite) testTurns(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	full := &memory.Turn{
		RequestID: "req-0", Scope: alice, Session: "s1", Time: at(-time.Minute + time.Microsecond),
		User: "记住：我喜欢乌龙茶", Assistant: "好的，我记住了。", FinishReason: "stop", Model: "gpt-x", Arm: "on",
		Refs: []string{"msg-1"}, Injected: []string{"m1", "m2"}, Intent: memory.IntentRemember,
	}
	must(t, st.AppendTurn(ctx, full))
	var want []string
	want = append(want, "req-0")
	for i := 1; i < 12; i++ {
		sess := "s1"
		if i%3 == 0 {
			sess = "s2"
		}
		// Equal times keep append order.
		must(t, st.AppendTurn(ctx, &memory.Turn{RequestID: fmt.Sprintf("req-%d", i), Scope: alice, Session: sess,
			Time: at(time.Duration(i/2) * time.Minute), User: fmt.Sprintf("question %d", i), Assistant: "answer"}))
		want = append(want, fmt.Sprintf("req-%d", i))
	}
	must(t, st.AppendTurn(ctx, &memory.Turn{RequestID: "bob-1", Scope: bob, Time: t0, User: "hi", Assistant: "hello"}))

	p, err := st.Turns(ctx, alice, memory.TurnFilter{})
	must(t, err)
	if got := turnIDs(p.Data); !slices.Equal(got, want) {
		t.Fatalf("turns = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(normTurn(p.Data[0]), normTurn(full)) {
		t.Errorf("turn roundtrip:\n got %+v\nwant %+v", p.Data[0], full)
	}
	var paged []string
	cursor := ""
	for range 10 {
		p, err := st.Turns(ctx, alice, memory.TurnFilter{Limit: 5, Cursor: cursor})
		must(t, err)
		paged = append(paged, turnIDs(p.Data)...)
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	if !slices.Equal(paged, want) {
		t.Errorf("paged turns = %v", paged)
	}
	p, err = st.Turns(ctx, alice, memory.TurnFilter{Session: "s2"})
	must(t, err)
	if got := turnIDs(p.Data); !slices.Equal(got, []string{"req-3", "req-6", "req-9"}) {
		t.Errorf("session s2 = %v", got)
	}
	p, err = st.Turns(ctx, alice, memory.TurnFilter{Since: at(4 * time.Minute)})
	must(t, err)
	if got := turnIDs(p.Data); !slices.Equal(got, []string{"req-8", "req-9", "req-10", "req-11"}) {
		t.Errorf("since 4m = %v", got)
	}
	p, err = st.Turns(ctx, alice, memory.TurnFilter{Session: "s1", Since: at(2 * time.Minute), Limit: 2})
	must(t, err)
	if got := turnIDs(p.Data); !slices.Equal(got, []string{"req-4", "req-5"}) || p.Next == "" {
		t.Errorf("filtered page = %v next %q", got, p.Next)
	}
	p, err = st.Turns(ctx, alice, memory.TurnFilter{Session: "s1", Since: at(2 * time.Minute), Limit: 2, Cursor: p.Next})
	must(t, err)
	if got := turnIDs(p.Data); !slices.Equal(got, []string{"req-7", "req-8"}) {
		t.Errorf("filtered second page = %v", got)
	}
	p, err = st.Turns(ctx, aliceW, memory.TurnFilter{})
	must(t, err)
	if len(p.Data) != 0 {
		t.Errorf("another namespace sees turns: %v", turnIDs(p.Data))
	}
	_, err = st.Turns(ctx, alice, memory.TurnFilter{Cursor: "garbage!"})
	wantErr(t, err, memory.ErrInvalid, "turns with a garbage cursor")
}

func turnIDs(ts []*memory.Turn) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.RequestID
	}
	return out
}

func normTurn(t *memory.Turn) memory.Turn {
	c := *t
	c.Time = c.Time.UTC()
	if len(c.Refs) == 0 {
		c.Refs = nil
	}
	if len(c.Injected) == 0 {
		c.Injected = nil
	}
	return c
}

func (s *suite) testAudit(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	var entries []*memory.AuditEntry
	for i := range 8 {
		e := &memory.AuditEntry{Scope: alice, Time: at(time.Duration(i) * time.Minute), Actor: "background",
			Action: "insert", MemoryID: fmt.Sprintf("m%d", i), After: `{"text":"fact"}`, Detail: "from ingest"}
		must(t, st.AppendAudit(ctx, e))
		if e.ID <= 0 {
			t.Fatalf("AppendAudit did not set the id: %d", e.ID)
		}
		if i > 0 && e.ID <= entries[i-1].ID {
			t.Errorf("audit ids not increasing: %d after %d", e.ID, entries[i-1].ID)
		}
		entries = append(entries, e)
	}
	must(t, st.AppendAudit(ctx, &memory.AuditEntry{Scope: bob, Time: t0, Actor: "admin", Action: "delete", Before: "x"}))
	noTime := &memory.AuditEntry{Scope: aliceW, Actor: "admin", Action: "update"}
	must(t, st.AppendAudit(ctx, noTime))
	if noTime.Time.IsZero() {
		t.Error("AppendAudit did not fill the time")
	}

	got, err := st.Audit(ctx, alice, time.Time{}, 0)
	must(t, err)
	if len(got) != len(entries) {
		t.Fatalf("audit returned %d, want %d", len(got), len(entries))
	}
	for i, e := range got {
		w := *entries[i]
		if e.ID != w.ID || e.Scope != alice || !e.Time.Equal(w.Time) || e.Actor != w.Actor || e.Action != w.Action ||
			e.MemoryID != w.MemoryID || e.After != w.After || e.Detail != w.Detail || e.Before != "" {
			t.Errorf("audit[%d] = %+v, want %+v", i, e, w)
		}
	}
	got, err = st.Audit(ctx, alice, at(5*time.Minute), 2)
	must(t, err)
	if len(got) != 2 || got[0].MemoryID != "m5" || got[1].MemoryID != "m6" {
		t.Errorf("audit since 5m limit 2 = %+v", got)
	}
	got, err = st.Audit(ctx, nobody, time.Time{}, 0)
	must(t, err)
	if len(got) != 0 {
		t.Errorf("empty scope audit = %+v", got)
	}
	all, err := st.AuditAll(ctx, "", time.Time{}, 0)
	must(t, err)
	if len(all) != len(entries)+2 {
		t.Errorf("AuditAll returned %d, want %d", len(all), len(entries)+2)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Time.Before(all[i-1].Time) {
			t.Errorf("AuditAll not oldest first at %d", i)
		}
	}
	all, err = st.AuditAll(ctx, "alice", time.Time{}, 0)
	must(t, err)
	if len(all) != len(entries)+1 {
		t.Errorf("AuditAll(alice) returned %d, want %d", len(all), len(entries)+1)
	}
	for _, e := range all {
		if e.Scope.User != "alice" {
			t.Errorf("AuditAll(alice) returned %+v", e)
		}
	}
	all, err = st.AuditAll(ctx, "", at(7*time.Minute), 0)
	must(t, err)
	if len(all) != 2 { // m7 and the one stamped now
		t.Errorf("AuditAll since 7m returned %d", len(all))
	}
}

func (s *suite) testRecall(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := &memory.RecallRecord{
		RequestID: "req-1", Scope: alice, Session: "s", Time: at(time.Minute), Arm: "on", Status: "injected",
		GateReason: "cue: remember", Injected: []string{"m2", "m1"},
		Candidates: []memory.RankedCandidate{
			{ID: "m2", Tier: memory.TierSemantic, Score: 0.9, Sim: 0.8, Retention: 1, Freq: 0.2, Value: 0.5, Rank: 1, Refs: []string{"t1"}, Injected: true},
			{ID: "m3", Tier: memory.TierEvent, Score: 0.1, Rank: 3, Filtered: "below min_score"},
		},
		InjectedTokens: 42, OverheadMs: 1.25,
	}
	must(t, st.AppendRecall(ctx, r))
	must(t, st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "req-2", Scope: bob, Time: at(2 * time.Minute), Arm: "off", Status: "off"}))
	must(t, st.AppendRecall(ctx, &memory.RecallRecord{RequestID: "req-3", Scope: aliceW, Time: at(3 * time.Minute), Arm: "on", Status: "skipped", GateReason: "noise"}))

	got, err := st.RecallByRequest(ctx, alice, "req-1")
	must(t, err)
	if !reflect.DeepEqual(normRecall(got), normRecall(r)) {
		t.Errorf("recall roundtrip:\n got %+v\nwant %+v", got, r)
	}
	_, err = st.RecallByRequest(ctx, bob, "req-1")
	wantErr(t, err, memory.ErrNotFound, "recall from another scope")
	_, err = st.RecallByRequest(ctx, alice, "missing")
	wantErr(t, err, memory.ErrNotFound, "missing recall")

	must(t, st.SetFeedback(ctx, alice, "req-1", 0.75))
	got, err = st.RecallByRequest(ctx, alice, "req-1")
	must(t, err)
	if got.Feedback == nil || *got.Feedback != 0.75 {
		t.Errorf("feedback = %v", got.Feedback)
	}
	wantErr(t, st.SetFeedback(ctx, bob, "req-1", 0), memory.ErrNotFound, "feedback from another scope")
	wantErr(t, st.SetFeedback(ctx, alice, "missing", 1), memory.ErrNotFound, "feedback for a missing request")

	found, err := st.FindRecall(ctx, "req-3")
	must(t, err)
	if found.Scope != aliceW || found.GateReason != "noise" {
		t.Errorf("FindRecall = %+v", found)
	}
	_, err = st.FindRecall(ctx, "missing")
	wantErr(t, err, memory.ErrNotFound, "FindRecall of a missing request")

	since, err := st.RecallSince(ctx, at(2*time.Minute))
	must(t, err)
	var rids []string
	for _, r := range since {
		rids = append(rids, r.RequestID)
	}
	if !slices.Equal(rids, []string{"req-2", "req-3"}) {
		t.Errorf("RecallSince = %v", rids)
	}
}

// testRecalls: AppendRecalls writes many requests' rows as AppendRecall
// writes each (the statement sizes it splits 85 rows into included), a
// request's later row read back as the one of that request, and an
// invalid record in the list writes none of them.
func (s *suite) testRecalls(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	w, ok := st.(interface {
		AppendRecalls(ctx context.Context, rs []*memory.RecallRecord) error
	})
	if !ok {
		t.Fatal("the store has no AppendRecalls")
	}
	var rs []*memory.RecallRecord
	for i := range 85 {
		sc := alice
		if i%3 == 0 {
			sc = bob
		}
		rs = append(rs, &memory.RecallRecord{RequestID: fmt.Sprint("many-", i), Scope: sc, Time: at(time.Duration(i) * time.Second),
			Arm: "on", Status: "skipped", GateReason: fmt.Sprint("reason-", i)})
	}
	rs = append(rs, &memory.RecallRecord{RequestID: "many-5", Scope: alice, Time: at(time.Hour), Arm: "on", Status: "injected", GateReason: "again"})
	must(t, w.AppendRecalls(ctx, rs))
	for i := range 85 {
		sc, want := alice, fmt.Sprint("reason-", i)
		if i%3 == 0 {
			sc = bob
		}
		got, err := st.RecallByRequest(ctx, sc, fmt.Sprint("many-", i))
		must(t, err)
		if i == 5 {
			want = "again" // the request's later row
		}
		if got.GateReason != want || got.Scope != sc {
			t.Errorf("many-%d read back as %+v", i, got)
		}
	}
	bad := []*memory.RecallRecord{{RequestID: "ok-1", Scope: alice, Time: at(0)}, {RequestID: "bad", Scope: memory.Scope{}}}
	if err := w.AppendRecalls(ctx, bad); !errors.Is(err, memory.ErrInvalidScope) {
		t.Errorf("a list with an invalid scope: %v", err)
	}
	_, err := st.RecallByRequest(ctx, alice, "ok-1")
	wantErr(t, err, memory.ErrNotFound, "a row of a refused list")
}

func normRecall(r *memory.RecallRecord) memory.RecallRecord {
	c := *r
	c.Time = c.Time.UTC()
	if len(c.Injected) == 0 {
		c.Injected = nil
	}
	if len(c.Candidates) == 0 {
		c.Candidates = nil
	}
	return c
}

func (s *suite) testGate(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	_, ok, err := st.Threshold(ctx, alice)
	must(t, err)
	if ok {
		t.Error("threshold present before any was set")
	}
	must(t, st.SetThreshold(ctx, alice, 0.42))
	must(t, st.SetThreshold(ctx, alice, 0.37))
	must(t, st.SetThreshold(ctx, bob, 0.9))
	v, ok, err := st.Threshold(ctx, alice)
	must(t, err)
	if !ok || v != 0.37 {
		t.Errorf("threshold = %v %v, want 0.37", v, ok)
	}
	if _, ok, err := st.Threshold(ctx, aliceW); err != nil || ok {
		t.Errorf("another namespace has a threshold: %v %v", ok, err)
	}
	v, _, err = st.Threshold(ctx, bob)
	must(t, err)
	if v != 0.9 {
		t.Errorf("bob's threshold = %v", v)
	}
}

func (s *suite) testMeta(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	if _, ok, err := st.Meta(ctx, "test.salt"); err != nil || ok {
		t.Fatalf("meta before set: %v %v", ok, err)
	}
	v, err := st.SetMetaIfAbsent(ctx, "test.salt", "first")
	must(t, err)
	if v != "first" {
		t.Errorf("SetMetaIfAbsent = %q", v)
	}
	v, err = st.SetMetaIfAbsent(ctx, "test.salt", "second")
	must(t, err)
	if v != "first" {
		t.Errorf("SetMetaIfAbsent overwrote: %q", v)
	}
	v, ok, err := st.Meta(ctx, "test.salt")
	must(t, err)
	if !ok || v != "first" {
		t.Errorf("Meta = %q %v", v, ok)
	}
	// Concurrent first writers agree on one value.
	results := make(chan string, 8)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			v, err := st.SetMetaIfAbsent(ctx, "test.race", fmt.Sprint(i))
			if err != nil {
				errs <- err
				return
			}
			results <- v
		}()
	}
	var first string
	for range 8 {
		select {
		case err := <-errs:
			t.Fatal(err)
		case v := <-results:
			if first == "" {
				first = v
			} else if v != first {
				t.Errorf("concurrent SetMetaIfAbsent disagree: %q vs %q", v, first)
			}
		}
	}
}
