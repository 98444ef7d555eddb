package background

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// TestLegacyIngestJob: an ingest job queued by an older version (its turns
// in the job's arguments) is moved to the spool and ingested once, with
// one turn-log row each, even when River runs it again.
func TestLegacyIngestJob(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		ctx := context.Background()
		s := scope("legacy")
		args := IngestArgs{Scope: s, Turns: []memory.Turn{
			*e.turn(s, "We are planning the Zephyr launch for spring.", "Sounds good."),
			*e.turn(s, "The Orion budget review moved to Thursday.", "Noted."),
		}}
		res, err := e.q.Client().Insert(ctx, args, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.wait()
		// River retrying the same job spools nothing twice.
		w := &legacyIngestWorker{q: e.q}
		if err := w.Work(ctx, &river.Job[IngestArgs]{JobRow: res.Job, Args: args}); err != nil {
			t.Fatal(err)
		}
		e.wait()
		page, err := e.st.Turns(ctx, s, memory.TurnFilter{})
		if err != nil || len(page.Data) != 2 {
			t.Errorf("%d turn-log rows (err %v), want 2", len(page.Data), err)
		}
		evs := e.list(s, memory.StateAny, memory.TierEvent)
		seen := map[string]int{}
		for _, m := range evs {
			for _, r := range m.Provenance.RequestIDs {
				seen[r]++
			}
		}
		for _, tu := range args.Turns {
			if seen[tu.RequestID] != 1 {
				t.Errorf("turn %s in %d events", tu.RequestID, seen[tu.RequestID])
			}
		}
	})
}

// TestCommitsWhileDrainingInsertNoJob: turns captured while a worker here
// drains their scope insert no job of their own; the worker claims them
// before it ends, and every one is ingested.
func TestCommitsWhileDrainingInsertNoJob(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		s := scope("draining")
		held, release := holdClaim(e, func(n int) bool { return n > 0 })
		e.say(s, "I adopted a greyhound called Pixel last spring.")
		held(t, "the first turn was never claimed")
		more := []string{
			"My sister Ana is visiting from Porto in June.",
			"We are repainting the kitchen a pale green this weekend.",
			"I started running three mornings a week before work.",
			"Our team moved the Orion review to Thursday.",
		}
		for _, x := range more {
			e.say(s, x)
		}
		release()
		e.wait()
		ctx := context.Background()
		page, err := e.st.Turns(ctx, s, memory.TurnFilter{})
		if err != nil || len(page.Data) != 1+len(more) {
			t.Fatalf("%d turn-log rows (err %v), want %d", len(page.Data), err, 1+len(more))
		}
		res, err := e.q.Client().JobList(ctx, river.NewJobListParams().Kinds(kindDrain).First(100).States(
			rivertype.JobStateAvailable, rivertype.JobStateRunning, rivertype.JobStateCompleted,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled, rivertype.JobStateDiscarded))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Jobs) != 1 {
			t.Errorf("%d drain jobs for turns captured while the scope's worker ran, want 1", len(res.Jobs))
		}
	})
}

// TestJobForDrainingScopeNotLost: a Drain job for a scope a worker here is
// draining (inserted by another replica, whose capture this process never
// saw) ends at once, and the running worker claims that replica's turns
// before it ends, even when its last claim, which found nothing, began
// before they were spooled: they do not wait for the sweeper.
func TestJobForDrainingScopeNotLost(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{sweep: time.Hour})
		ctx := context.Background()
		spool := e.spool
		if spool == nil {
			spool = e.st.(interface{ Spool() memory.TurnSpool }).Spool()
		}
		s := scope("replicas")
		// Held at the claim after the first turn's round, which found
		// nothing.
		held, release := holdClaim(e, func(n int) bool { return n == 0 })
		e.say(s, "I adopted a greyhound called Pixel last spring.")
		held(t, "the worker never came back empty")
		// Another replica's capture: spooled, and its job inserted,
		// without this process's dispatcher hearing of it.
		other := e.turn(s, "My sister Ana is visiting from Porto in June.", "Noted.")
		if err := spool.SpoolTurns(ctx, []*memory.Turn{other}); err != nil {
			t.Fatal(err)
		}
		events, cancel := e.q.Client().Subscribe(river.EventKindJobCompleted)
		defer cancel()
		res, err := e.q.Client().Insert(ctx, DrainArgs{Scope: s}, nil)
		if err != nil {
			t.Fatal(err)
		}
	wait:
		for {
			select {
			case ev := <-events:
				if ev.Job != nil && ev.Job.ID == res.Job.ID {
					break wait
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the other replica's job never ran")
			}
		}
		release()
		wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
		defer wcancel()
		if err := e.q.WaitIngested(wctx); err != nil {
			t.Fatalf("the other replica's turn waits for the sweeper: %v", err)
		}
		page, err := e.st.Turns(ctx, s, memory.TurnFilter{})
		if err != nil || len(page.Data) != 2 {
			t.Fatalf("%d turn-log rows (err %v), want 2", len(page.Data), err)
		}
	})
}

// holdClaim holds e's Drain worker after the first claim of n turns for
// which at reports true, until release is called; held waits until the
// worker is held (failing with why after 30 s).
func holdClaim(e *env, at func(n int) bool) (held func(t *testing.T, why string), release func()) {
	h, hold := make(chan struct{}), make(chan struct{})
	var once sync.Once
	e.q.onClaim = func(n int) {
		if at(n) {
			once.Do(func() { close(h); <-hold })
		}
	}
	held = func(t *testing.T, why string) {
		t.Helper()
		select {
		case <-h:
		case <-time.After(30 * time.Second):
			t.Fatal(why)
		}
	}
	return held, func() { close(hold) }
}
