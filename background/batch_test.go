package background

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// TestImportBatches: importing the same turns again (and a turn twice in
// one import) stores each event once and fails no job.
func TestImportBatches(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		ctx := context.Background()
		const users, per = 3, 100
		var turns []*memory.Turn
		for i := range users * per {
			turns = append(turns, &memory.Turn{
				RequestID: fmt.Sprintf("imp-%d", i), Scope: scope(fmt.Sprintf("imp%d", i%users)),
				Time: e.clock.Now().Add(time.Duration(i) * time.Minute),
				User: oneOff(i), Assistant: oneOffReply(i),
			})
		}
		// A client's retries inside one import: one lands in another job
		// than its first copy, one in the same job.
		turns = append(turns, turns[5], turns[len(turns)-1])
		if err := e.q.ImportTurns(ctx, turns); err != nil {
			t.Fatal(err)
		}
		e.wait()
		if err := e.q.ImportTurns(ctx, turns[:per]); err != nil {
			t.Fatal(err)
		}
		e.wait()
		for u := range users {
			s := scope(fmt.Sprintf("imp%d", u))
			evs := e.list(s, memory.StateAny, memory.TierEvent)
			ids := map[string]int{}
			for _, m := range evs {
				for _, r := range m.Provenance.RequestIDs {
					ids[r]++
				}
			}
			if len(ids) != per {
				t.Errorf("%s: events of %d turns, want %d", s, len(ids), per)
			}
			for r, n := range ids {
				if n != 1 {
					t.Errorf("%s: turn %s in %d events", s, r, n)
				}
			}
		}
		res, err := e.q.Client().JobList(ctx, river.NewJobListParams().States(rivertype.JobStateRetryable, rivertype.JobStateDiscarded))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Jobs) > 0 {
			t.Errorf("%d failed jobs, first: %v", len(res.Jobs), res.Jobs[0].Errors)
		}
	})
}

// TestUserTermsOverlap: the cluster check's cached overlap is userOverlap.
func TestUserTermsOverlap(t *testing.T) {
	var ms []*memory.Memory
	for i := range 60 {
		ms = append(ms, &memory.Memory{ID: fmt.Sprint(i), Text: (&ingester{core: &core{}}).eventText(&memory.Turn{User: oneOff(i * 7), Assistant: oneOff(i)})})
	}
	ms = append(ms, &memory.Memory{ID: "empty", Text: "\nAssistant: hi"}, &memory.Memory{ID: "zh", Text: "我住在上海，我喜欢上海的咖啡"},
		&memory.Memory{ID: "zh2", Text: "我搬到北京了\nAssistant: 上海"})
	terms := userTerms{}
	for _, a := range ms {
		for _, b := range ms {
			if got, want := terms.overlap(a, b), userOverlap(a, b); got != want {
				t.Fatalf("overlap(%q, %q) = %v, want %v", a.Text, b.Text, got, want)
			}
		}
	}
}

// TestIngestRetryLogsOnce: a worker that wrote a round's memories and
// turn-log rows and died before completing its turns (its lease expired)
// leaves them to the next worker, which ingests them again without a
// duplicate event or turn-log row; one drain job takes every pending turn
// of the scope, in rounds.
func TestIngestRetryLogsOnce(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{insertOnly: true})
		ctx := context.Background()
		s := scope("retry")
		at := e.clock.Now()
		n := maxTurnsPerJob*2 + 5
		var turns []*memory.Turn
		for i := range n {
			tu := &memory.Turn{Scope: s, Time: at.Add(time.Duration(i/2) * time.Second), User: oneOff(i), Assistant: oneOffReply(i)}
			if i%2 == 0 {
				tu.RequestID = fmt.Sprintf("rt-%d", i) // imports may have none
			}
			turns = append(turns, tu)
		}
		if err := e.q.ImportTurns(ctx, turns); err != nil {
			t.Fatal(err)
		}
		if pending, _, err := e.q.spool.SpoolStats(ctx); err != nil || pending != n {
			t.Fatalf("%d spooled (err %v), want %d committed when ImportTurns returned", pending, err, n)
		}
		// The dead worker: claimed with a lease that has run out, wrote.
		dead, err := e.q.spool.ClaimTurns(ctx, s, "dead", -time.Second, 10)
		if err != nil || len(dead) != 10 {
			t.Fatalf("claimed %d (err %v)", len(dead), err)
		}
		if done, err := e.q.ing.ingestTurns(ctx, s, dead); err != nil || len(done) != 10 {
			t.Fatalf("ingested %d (err %v)", len(done), err)
		}
		w := &drainWorker{q: e.q}
		if err := w.Work(ctx, &river.Job[DrainArgs]{JobRow: &rivertype.JobRow{ID: 1, Attempt: 1}, Args: DrainArgs{Scope: s}}); err != nil {
			t.Fatal(err)
		}
		if pending, _, _ := e.q.spool.SpoolStats(ctx); pending != 0 {
			t.Errorf("%d turns left after one drain job", pending)
		}
		var got []*memory.Turn
		f := memory.TurnFilter{Limit: 100}
		for {
			page, err := e.st.Turns(ctx, s, f)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, page.Data...)
			if page.Next == "" {
				break
			}
			f.Cursor = page.Next
		}
		if len(got) != n {
			t.Errorf("%d turn-log rows for %d turns", len(got), n)
		}
		if evs := e.list(s, memory.StateAny, memory.TierEvent); len(evs) != n {
			t.Errorf("%d events for %d turns", len(evs), n)
		}
	})
}

// TestDispatcherDedup: a scope gets one job while this process's job for
// it waits; while a worker here drains it, commits mark it dirty instead
// of inserting jobs, and the worker claims again before it ends.
func TestDispatcherDedup(t *testing.T) {
	d := newDispatcher(nil)
	a, b := scope("a"), scope("b")
	d.notify([]memory.Scope{a, b, a})
	d.mu.Lock()
	for s := range d.due {
		d.queued[s] = true
	}
	clear(d.due)
	d.mu.Unlock()
	d.notify([]memory.Scope{a})
	if len(d.due) != 0 {
		t.Errorf("a scope with a waiting job is due again: %v", d.due)
	}
	if !d.started(a) {
		t.Fatal("the first worker of a scope was turned away")
	}
	d.claiming(a)
	if d.started(a) {
		t.Error("a second worker here drains a scope already drained here")
	}
	if d.idle(a) {
		t.Error("the worker ended though a job for its scope came (from another replica, say) since its claim began")
	}
	d.claiming(a)
	d.notify([]memory.Scope{a, b})
	if d.due[a] || len(d.due) != 0 || !d.dirty[a] {
		t.Errorf("due = %v, dirty = %v: want a dirty, nothing due (b's job waits)", d.due, d.dirty)
	}
	if d.idle(a) {
		t.Error("the worker ended with a commit since its claim began")
	}
	d.claiming(a)
	if !d.idle(a) {
		t.Error("the worker did not end on an empty claim with nothing committed since")
	}
	d.notify([]memory.Scope{a})
	if !d.due[a] {
		t.Errorf("a commit after the worker ended is not due: %v", d.due)
	}

	// A worker that stops otherwise (a failure, a hand-over) leaves what
	// was committed meanwhile due; a queued job's scope whose worker runs
	// is marked dirty (that job will end at once).
	clear(d.due)
	c := scope("c")
	d.started(c)
	d.claiming(c)
	d.mu.Lock()
	d.queued[c] = true
	d.mu.Unlock()
	d.notify([]memory.Scope{c})
	if !d.dirty[c] || d.due[c] {
		t.Errorf("queued and running: dirty = %v, due = %v; want dirty", d.dirty, d.due)
	}
	d.mu.Lock()
	delete(d.queued, c)
	d.mu.Unlock()
	d.stopped(c)
	if !d.due[c] || d.running[c] || d.dirty[c] {
		t.Errorf("after stopped: due = %v, running = %v, dirty = %v", d.due, d.running, d.dirty)
	}
	if !d.started(c) {
		t.Error("a scope whose worker stopped cannot be drained again")
	}
}
