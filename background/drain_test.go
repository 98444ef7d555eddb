package background

import (
	"context"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
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
