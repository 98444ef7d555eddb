package background

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// failingStore fails the Insert of the memories fail picks, as a crash
// or a lost connection between a decision's writes would.
type failingStore struct {
	testStore
	fail  func(m *memory.Memory) bool
	fails atomic.Int64
}

var errInjected = errors.New("injected failure")

func (f *failingStore) Insert(ctx context.Context, s memory.Scope, ms ...*memory.Memory) error {
	for _, m := range ms {
		if f.fail(m) {
			f.fails.Add(1)
			return errInjected
		}
	}
	return f.testStore.Insert(ctx, s, ms...)
}

func (f *failingStore) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	return f.testStore.(Batcher).Batch(ctx, fn)
}

// ingesterOn is the env's ingest path over another store.
func (e *env) ingesterOn(st memory.Store) *ingester {
	c := *e.q.core
	c.cfg.Store = st
	rec := &reconciler{core: &c}
	ses := &sessioner{core: &c, rec: rec}
	return &ingester{core: &c, rec: rec, clu: &clusterer{core: &c}, ses: ses, exp: &explicit{core: &c, rec: rec}}
}

func auditCounts(t *testing.T, st memory.Store, s memory.Scope) map[string]int {
	t.Helper()
	es, err := st.Audit(context.Background(), s, time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range es {
		n[e.Action+" "+e.MemoryID]++
	}
	return n
}

// TestApplyOneTransaction: a decision's supersede and insert (with their
// audit rows) commit together. A failure between them leaves the old
// fact live and nothing written; the retry supersedes and inserts once;
// running the same turn again writes nothing more: one live fact, no
// duplicate memory, audit or turn-log row. A restatement ingested twice
// reinforces once.
func TestApplyOneTransaction(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		ctx := context.Background()
		s := scope("tx")
		e.say(s, "I live in Berlin.")
		e.wait()
		old := e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)
		if len(old) != 1 {
			t.Fatalf("after the first statement: %s, want one live fact", texts(old))
		}
		before := auditCounts(t, e.st, s)

		move := e.turn(s, "I moved from Berlin to Lisbon.", "Noted.")
		move.ID = "spool-move"
		fs := &failingStore{testStore: e.st, fail: func(m *memory.Memory) bool { return m.Tier != memory.TierEvent }}
		bad := e.ingesterOn(fs)
		if done, err := bad.ingestTurns(ctx, s, []*memory.Turn{move}); !errors.Is(err, errInjected) || len(done) != 0 {
			t.Fatalf("ingest with a failing insert: done %v, err %v; want the injected failure", done, err)
		}
		if fs.fails.Load() == 0 {
			t.Fatal("the failure was never injected: no fact insert was attempted")
		}
		live := e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)
		if len(live) != 1 || live[0].ID != old[0].ID || live[0].SupersededBy != "" {
			t.Fatalf("after the failed decision: live %s, all %s; want the old fact alone, untouched", texts(live), texts(e.list(s, memory.StateAny)))
		}
		if got := auditCounts(t, e.st, s); !mapsEqual(got, before) {
			t.Fatalf("the failed decision left audit rows: %v, before %v", got, before)
		}

		for range 2 { // the retry, then the same turn once more
			if done, err := e.q.ing.ingestTurns(ctx, s, []*memory.Turn{move}); err != nil || len(done) != 1 {
				t.Fatalf("retry: done %v, err %v", done, err)
			}
		}
		live = e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)
		if len(live) != 1 || live[0].ID == old[0].ID {
			t.Fatalf("after the retries: live %s; want one new fact", texts(live))
		}
		sup := e.list(s, memory.StateSuperseded)
		if len(sup) != 1 || sup[0].ID != old[0].ID || sup[0].SupersededBy != live[0].ID {
			t.Fatalf("superseded %s; want the old fact, replaced by %s", texts(sup), live[0].ID)
		}
		after := auditCounts(t, e.st, s)
		if after["supersede "+old[0].ID] != 1 || after["insert "+live[0].ID] != 1 {
			t.Fatalf("audit %v: want one supersede of %s and one insert of %s", after, old[0].ID, live[0].ID)
		}
		for k, n := range after {
			if n > 1 && before[k] != n {
				t.Errorf("audit row %q written %d times", k, n)
			}
		}
		turns, err := e.st.Turns(ctx, s, memory.TurnFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tr := range turns.Data {
			if tr.RequestID == move.RequestID {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d turn-log rows for the move, want 1", n)
		}

		// A restatement, ingested twice (a retried job), reinforces once.
		again := e.turn(s, "I live in Lisbon.", "Noted.")
		again.ID = "spool-again"
		hits := live[0].Hits
		for range 2 {
			if _, err := e.q.ing.ingestTurns(ctx, s, []*memory.Turn{again}); err != nil {
				t.Fatal(err)
			}
		}
		now := e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)
		if len(now) != 1 || now[0].ID != live[0].ID || now[0].Hits != hits+1 {
			t.Fatalf("after the restatement twice: %s (%d live); want %s reinforced once (hits %d)", texts(now), len(now), live[0].ID, hits)
		}
		if got := auditCounts(t, e.st, s)["reinforce "+live[0].ID]; got != 1 {
			t.Errorf("%d reinforce audit rows, want 1", got)
		}
		if !slices.Contains(now[0].Provenance.RequestIDs, again.RequestID) {
			t.Errorf("provenance %v lacks the restatement %s", now[0].Provenance.RequestIDs, again.RequestID)
		}
	})
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestPoisonTurnParked: a turn whose event insert always fails (and so
// fails the shared write of its round) is retried a bounded number of
// times, then parked: counted, audited, kept in the turn log, and the
// scope's other turns, before and after it, are ingested.
func TestPoisonTurnParked(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		var fs *failingStore
		e := newEnv(t, backend, envOpts{
			maxAttempts: 4, lease: 2 * time.Second, sweep: 50 * time.Millisecond,
			wrap: func(st testStore) testStore {
				fs = &failingStore{testStore: st, fail: func(m *memory.Memory) bool {
					return m.Tier == memory.TierEvent && strings.Contains(m.Text, "POISON")
				}}
				return fs
			},
		})
		ctx := context.Background()
		s := scope("poison")
		good := []string{"We spent the weekend hiking near Sintra.", "My sister Ana visits in June.", "The garden tomatoes finally ripened."}
		e.say(s, good[0])
		poison := e.say(s, "POISON: this turn can never be written, whatever happens.")
		e.say(s, good[1])
		e.say(s, good[2])
		e.wait()
		if n := fs.fails.Load(); n < 2 {
			t.Errorf("the poison turn failed %d times; want it retried", n)
		}
		evs := e.list(s, memory.StateAny, memory.TierEvent)
		for _, g := range good {
			if !slices.ContainsFunc(evs, func(m *memory.Memory) bool { return strings.HasPrefix(m.Text, g) }) {
				t.Errorf("the scope's turn %q was not ingested (events %s)", g, texts(evs))
			}
		}
		st, err := e.q.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.ParkedTurns != 1 || st.SpooledTurns != 0 {
			t.Errorf("stats: %d parked, %d spooled; want 1 and 0", st.ParkedTurns, st.SpooledTurns)
		}
		es, err := e.st.Audit(ctx, s, time.Time{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		parked := 0
		for _, a := range es {
			if a.Action == "park" && strings.Contains(a.Detail, poison.RequestID) {
				parked++
			}
		}
		if parked != 1 {
			t.Errorf("%d park audit rows naming %s, want 1", parked, poison.RequestID)
		}
		turns, err := e.st.Turns(ctx, s, memory.TurnFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(turns.Data, func(tr *memory.Turn) bool { return tr.RequestID == poison.RequestID }) {
			t.Error("the parked turn is not in the turn log")
		}
		if len(turns.Data) != 4 {
			t.Errorf("%d turn-log rows, want 4 (no duplicates)", len(turns.Data))
		}
	})
}
