package background

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

func TestSessionSummary(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		ctx := context.Background()
		s := scope("jack")
		msgs := []string{
			"We need to migrate the billing database to Postgres 17 by December 15",
			"The migration window is Saturday 02:00-04:00 UTC with Priya on call",
			"Budget for the new cluster is 2,400 dollars per month",
			"ok",
			"Rollback plan: keep the old MySQL replica read-only for 14 days",
		}
		for _, m := range msgs {
			tu := e.turn(s, m, "Understood.")
			tu.Session = "sess-1"
			if err := e.q.Enqueue(ctx, tu); err != nil {
				t.Fatal(err)
			}
		}
		e.wait()
		// Not idle yet: flushing must not summarise.
		if err := e.q.FlushSessions(ctx); err != nil {
			t.Fatal(err)
		}
		e.wait()
		if eps := e.list(s, memory.StateLive, memory.TierEpisodic); len(eps) != 0 {
			t.Fatalf("summarised an active session: %s", texts(eps))
		}
		e.clock.Add(e.pol.Sessions.Idle.D() + time.Minute)
		if err := e.q.FlushSessions(ctx); err != nil {
			t.Fatal(err)
		}
		e.wait()
		eps := e.list(s, memory.StateLive, memory.TierEpisodic)
		if len(eps) != 1 {
			t.Fatalf("episodic %s, want one session summary", texts(eps))
		}
		sum := eps[0].Text
		points := strings.Count(sum, "\n- ")
		if points < 3 || points > 5 {
			t.Errorf("summary has %d points: %q", points, sum)
		}
		for _, want := range []string{"December 15", "2,400", "14 days"} {
			if !strings.Contains(sum, want) {
				t.Errorf("summary lost %q: %q", want, sum)
			}
		}
		if len(eps[0].Provenance.RequestIDs) != 4 || eps[0].Session != "sess-1" {
			t.Errorf("summary provenance %+v session %q", eps[0].Provenance, eps[0].Session)
		}
	})
}

func TestSessionSummaryModel(t *testing.T) {
	fake := fakeupstream.New()
	fake.Push(fakeupstream.Reply{Content: "Summary:\n" + `{"points":["Billing DB moves to Postgres 17 by December 15.","Window Saturday 02:00-04:00 UTC, Priya on call.","Cluster budget 2,400 USD/month."]}`})
	e := newEnv(t, "sqlite", envOpts{llm: fakeLLM(t, fake)})
	ctx := context.Background()
	s := scope("kate")
	for _, m := range []string{
		"We need to migrate the billing database to Postgres 17 by December 15",
		"The migration window is Saturday 02:00-04:00 UTC with Priya on call",
		"Budget for the new cluster is 2,400 dollars per month",
	} {
		tu := e.turn(s, m, "Understood.")
		tu.Session = "sess-m"
		if err := e.q.Enqueue(ctx, tu); err != nil {
			t.Fatal(err)
		}
	}
	e.wait()
	e.clock.Add(e.pol.Sessions.Idle.D() + time.Minute)
	if err := e.q.FlushSessions(ctx); err != nil {
		t.Fatal(err)
	}
	e.wait()
	eps := e.list(s, memory.StateLive, memory.TierEpisodic)
	if len(eps) != 1 || !strings.Contains(eps[0].Text, "- Window Saturday 02:00-04:00 UTC, Priya on call.") {
		t.Fatalf("episodic %s", texts(eps))
	}
	if e.q.LLMCalls() != 1 {
		t.Errorf("LLM calls %d, want 1", e.q.LLMCalls())
	}
}

// TestSessionJobKept: a session's later rounds find its waiting summary
// job without inserting again, and the summary still reads their turns,
// also after FlushSessions ran the job early (it forgets what was kept).
func TestSessionJobKept(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		ctx := context.Background()
		s := scope("lena")
		say := func(m string) {
			t.Helper()
			tu := e.turn(s, m, "Understood.")
			tu.Session = "sess-k"
			if err := e.q.Enqueue(ctx, tu); err != nil {
				t.Fatal(err)
			}
			e.wait()
		}
		k := sessionKey{scope: s, session: "sess-k"}
		say("We need to migrate the billing database to Postgres 17 by December 15")
		if !e.q.ses.jobWaits(k, time.Now()) {
			t.Fatal("the inserted summary job is not kept")
		}
		say("The migration window is Saturday 02:00-04:00 UTC with Priya on call")
		jobs, err := e.q.client.JobList(ctx, river.NewJobListParams().Kinds(kindSession).States(rivertype.JobStateScheduled))
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs.Jobs) != 1 {
			t.Fatalf("%d waiting session jobs, want 1", len(jobs.Jobs))
		}
		// Not idle: the job runs now and waits again.
		if err := e.q.FlushSessions(ctx); err != nil {
			t.Fatal(err)
		}
		e.wait()
		if e.q.ses.jobWaits(k, time.Now()) {
			t.Fatal("FlushSessions left a kept job")
		}
		say("Budget for the new cluster is 2,400 dollars per month")
		say("Rollback plan: keep the old MySQL replica read-only for 14 days")
		e.clock.Add(e.pol.Sessions.Idle.D() + time.Minute)
		if err := e.q.FlushSessions(ctx); err != nil {
			t.Fatal(err)
		}
		e.wait()
		eps := e.list(s, memory.StateLive, memory.TierEpisodic)
		if len(eps) != 1 {
			t.Fatalf("episodic %s, want one session summary", texts(eps))
		}
		if n := len(eps[0].Provenance.RequestIDs); n != 4 {
			t.Errorf("summary of %d turns, want 4: %q", n, eps[0].Text)
		}
	})
}

// TestSessionJobsOfARound: turns of several sessions ingested together
// get one waiting summary job each, each kept, and turns after them
// insert none.
func TestSessionJobsOfARound(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		ctx := context.Background()
		s := scope("mara")
		sessions := []string{"sess-c", "sess-a", "sess-b", "sess-a"}
		for i, sess := range sessions {
			tu := e.turn(s, fmt.Sprintf("Note %d: the quarterly report for project %s is due on Friday", i, sess), "Noted.")
			tu.Session = sess
			if err := e.q.Enqueue(ctx, tu); err != nil {
				t.Fatal(err)
			}
		}
		e.wait()
		waiting := func() []string {
			t.Helper()
			jobs, err := e.q.client.JobList(ctx, river.NewJobListParams().Kinds(kindSession).States(rivertype.JobStateScheduled))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, j := range jobs.Jobs {
				var a SessionArgs
				if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
					t.Fatal(err)
				}
				got = append(got, a.Session)
			}
			slices.Sort(got)
			return got
		}
		if got := waiting(); !slices.Equal(got, []string{"sess-a", "sess-b", "sess-c"}) {
			t.Fatalf("waiting session jobs %v, want one each for sess-a, sess-b, sess-c", got)
		}
		for _, sess := range []string{"sess-a", "sess-b", "sess-c"} {
			if !e.q.ses.jobWaits(sessionKey{scope: s, session: sess}, time.Now()) {
				t.Errorf("the job of %s is not kept", sess)
			}
		}
		tu := e.turn(s, "Note 5: the quarterly report for project sess-b moved to Monday", "Noted.")
		tu.Session = "sess-b"
		if err := e.q.Enqueue(ctx, tu); err != nil {
			t.Fatal(err)
		}
		e.wait()
		if got := waiting(); len(got) != 3 {
			t.Errorf("after a later turn: waiting jobs %v, want the same three", got)
		}
	})
}

// TestSessionSummaryNewest: a session of more events than one summary
// reads is summarised from its newest maxSessionEvents.
func TestSessionSummaryNewest(t *testing.T) {
	e := newEnv(t, "sqlite", envOpts{})
	ctx := context.Background()
	s := scope("marathon")
	var turns []*memory.Turn
	for i := range maxSessionEvents + 40 {
		tu := e.turn(s, fmt.Sprintf("Step %d of the plan: order %d crates of part %d for the Lisbon depot", i, i+3, 1000+i), "Understood.")
		tu.Session = "long"
		turns = append(turns, tu)
	}
	if err := e.q.ImportTurns(ctx, turns); err != nil {
		t.Fatal(err)
	}
	e.wait()
	evs := e.list(s, memory.StateLive, memory.TierEvent)
	if len(evs) <= maxSessionEvents {
		t.Fatalf("%d events, want more than %d", len(evs), maxSessionEvents)
	}
	e.clock.Add(e.pol.Sessions.Idle.D() + time.Minute)
	if err := e.q.FlushSessions(ctx); err != nil {
		t.Fatal(err)
	}
	e.wait()
	var sums []*memory.Memory
	for _, m := range e.list(s, memory.StateLive, memory.TierEpisodic) {
		if strings.HasPrefix(m.Text, "Session summary") { // the others consolidate the steps
			sums = append(sums, m)
		}
	}
	if len(sums) != 1 {
		t.Fatalf("session summaries %s, want one", texts(sums))
	}
	ids := sums[0].Provenance.MemoryIDs
	if len(ids) != maxSessionEvents {
		t.Fatalf("the summary read %d events, want %d", len(ids), maxSessionEvents)
	}
	newest, oldest := evs[0], evs[len(evs)-1] // listed newest first
	if !slices.Contains(ids, newest.ID) || slices.Contains(ids, oldest.ID) {
		t.Errorf("the summary read the wrong events: newest in %v, oldest in %v", slices.Contains(ids, newest.ID), slices.Contains(ids, oldest.ID))
	}
}
