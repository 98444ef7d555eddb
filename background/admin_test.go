package background

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/proxy"
	"github.com/prometheus/client_golang/prometheus"
)

var _ proxy.TurnSink = (*Queue)(nil)

// TestDeleteUserJobs: forget-user removes the user's queued turns (in one
// namespace or all) and nobody else's.
func TestDeleteUserJobs(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{insertOnly: true})
		ctx := context.Background()
		for _, s := range []memory.Scope{scope("mia"), {User: "mia", Namespace: "work"}, scope("ned")} {
			for range 3 {
				if err := e.q.Enqueue(ctx, e.turn(s, "a secret plan for "+s.String(), "ok")); err != nil {
					t.Fatal(err)
				}
			}
		}
		deleted, running, err := e.q.DeleteUserJobs(ctx, "mia", "work")
		if err != nil || running != 0 || deleted == 0 {
			t.Fatalf("delete mia/work: %d deleted, %d running, %v", deleted, running, err)
		}
		if got := jobTexts(t, e); strings.Contains(got, "mia/work") || !strings.Contains(got, "mia/default") {
			t.Errorf("after deleting mia/work: %s", got)
		}
		if _, _, err := e.q.DeleteUserJobs(ctx, "mia", ""); err != nil {
			t.Fatal(err)
		}
		got := jobTexts(t, e)
		if strings.Contains(got, "mia/") || !strings.Contains(got, "ned/default") {
			t.Errorf("after deleting mia: %s", got)
		}
		st, err := e.q.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.SpooledTurns != 3 {
			t.Errorf("pending view shows %d spooled turns, want ned's 3: %+v", st.SpooledTurns, st)
		}
	})
}

// jobTexts is what the queue still holds of the test's scopes: their
// spooled turns' texts (peeked with an already expired lease).
func jobTexts(t *testing.T, e *env) string {
	t.Helper()
	var b strings.Builder
	for _, s := range []memory.Scope{scope("mia"), {User: "mia", Namespace: "work"}, scope("ned")} {
		ts, err := e.q.spool.ClaimTurns(context.Background(), s, "peek", -time.Second, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, tu := range ts {
			b.WriteString(tu.User + "\n")
		}
	}
	return b.String()
}

func TestMetricsRegister(t *testing.T) {
	reg := prometheus.NewRegistry()
	st := newEnv(t, "sqlite", envOpts{})
	q, err := New(Config{Store: st.st, Admin: st.st, Spool: st.spool, Embedder: st.emb, Driver: DriverSQLite, DB: st.river, Registry: reg, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	// A second queue in the same process shares the series.
	if _, err := New(Config{Store: st.st, Admin: st.st, Spool: st.spool, Embedder: st.emb, Driver: DriverSQLite, DB: st.river, Registry: reg, Logger: quiet()}); err != nil {
		t.Fatal(err)
	}
	q.met.nIngested.Add(10)
	q.met.nWouldBe.Add(1)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, mf := range mfs {
		found[mf.GetName()] = true
		if mf.GetName() == "memproxy_llm_calls_per_ingested_turn" {
			if v := mf.GetMetric()[0].GetGauge().GetValue(); v != 0.1 {
				t.Errorf("calls per turn %v, want 0.1", v)
			}
		}
	}
	for _, n := range []string{"memproxy_llm_calls_per_ingested_turn", "memproxy_queue_commit_seconds", "memproxy_memories_archived_total"} {
		if !found[n] {
			t.Errorf("metric %s not registered (have %v)", n, found)
		}
	}
}

// TestStopTwice: Stop drains, is safe to repeat, and a turn offered after
// it is refused rather than silently lost.
func TestStopTwice(t *testing.T) {
	e := newEnv(t, "sqlite", envOpts{})
	ctx := context.Background()
	if err := e.q.Enqueue(ctx, e.turn(scope("olga"), "I keep bees on the roof of our Zurich office", "Nice.")); err != nil {
		t.Fatal(err)
	}
	e.wait()
	for range 2 {
		if err := e.q.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.q.Enqueue(ctx, e.turn(scope("olga"), "late turn", "x")); !errors.Is(err, ErrStopped) {
		t.Errorf("Enqueue after Stop: %v, want ErrStopped", err)
	}
	if n := len(e.list(scope("olga"), memory.StateLive)); n != 1 {
		t.Errorf("%d memories, want 1", n)
	}
}

// TestWaitIngestedTimesOutCounting: with turns spooled and no worker to
// ingest them, a wait ends with its context and says how many wait.
func TestWaitIngestedTimesOutCounting(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{insertOnly: true})
		ctx := context.Background()
		for i := range 4 {
			if err := e.q.Enqueue(ctx, e.turn(scope("kai"), fmt.Sprintf("turn %d of a plan", i), "ok")); err != nil {
				t.Fatal(err)
			}
		}
		wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		err := e.q.WaitIngested(wctx)
		if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "(4 turns pending)") {
			t.Errorf("WaitIngested = %v, want the context's end and 4 turns pending", err)
		}
	})
}
