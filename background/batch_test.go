package background

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// TestImportBatches: an import interleaving users is committed as jobs of
// one scope each, full ones; importing the same turns again (and a turn
// twice in one import) stores each event once and fails no job.
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
				User: oneOff(i), Assistant: "Here is an answer about it.",
			})
		}
		// A client's retries inside one import: one lands in another job
		// than its first copy, one in the same job.
		turns = append(turns, turns[5], turns[len(turns)-1])
		if err := e.q.ImportTurns(ctx, turns); err != nil {
			t.Fatal(err)
		}
		e.wait()
		jobs := ingestJobs(t, e)
		// 100 turns of each user: two jobs per user (one import commit
		// splits a user, a job never spans two).
		if len(jobs) > users*2 {
			t.Errorf("%d ingest jobs for %d users of %d turns, want ≤ %d", len(jobs), users, per, users*2)
		}
		for _, j := range jobs {
			var seen memory.Scope
			for _, tn := range ingestTurnsOf(t, j) {
				if seen != (memory.Scope{}) && tn.Scope != seen {
					t.Fatalf("job %d mixes scopes %v and %v", j.ID, seen, tn.Scope)
				}
				seen = tn.Scope
			}
		}
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

func ingestJobs(t *testing.T, e *env) []*rivertype.JobRow {
	t.Helper()
	res, err := e.q.Client().JobList(context.Background(), river.NewJobListParams().Kinds(kindIngest).
		States(rivertype.JobStateCompleted).First(1000))
	if err != nil {
		t.Fatal(err)
	}
	return res.Jobs
}

func ingestTurnsOf(t *testing.T, j *rivertype.JobRow) []memory.Turn {
	t.Helper()
	var a IngestArgs
	if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
		t.Fatal(err)
	}
	return a.Turns
}

// TestUserTermsOverlap: the cluster check's cached overlap is userOverlap.
func TestUserTermsOverlap(t *testing.T) {
	var ms []*memory.Memory
	for i := range 60 {
		ms = append(ms, &memory.Memory{ID: fmt.Sprint(i), Text: (&Queue{}).eventText(&memory.Turn{User: oneOff(i * 7), Assistant: oneOff(i)})})
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

// TestIngestRetryLogsOnce: the turn log is written with the events, before
// the cluster checks that may fail the job; a retry logs only the turns
// the failed attempt did not (and stores no event twice).
func TestIngestRetryLogsOnce(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{insertOnly: true})
		ctx := context.Background()
		s := scope("retry")
		at := e.clock.Now()
		turn := func(i int) memory.Turn {
			return memory.Turn{
				RequestID: fmt.Sprintf("rt-%d", i), Scope: s, Time: at.Add(time.Duration(i/2) * time.Second),
				User: oneOff(i), Assistant: "Here is an answer about it.",
			}
		}
		w := &ingestWorker{q: e.q}
		job := func(attempt int, turns ...memory.Turn) *river.Job[IngestArgs] {
			return &river.Job[IngestArgs]{JobRow: &rivertype.JobRow{Attempt: attempt}, Args: IngestArgs{Scope: s, Turns: turns}}
		}
		if err := w.Work(ctx, job(1, turn(0), turn(1))); err != nil {
			t.Fatal(err)
		}
		// The retry carries the same turns; turn 2 shares turn 1's second,
		// turn 3 is new.
		if err := w.Work(ctx, job(2, turn(0), turn(1), turn(2), turn(3))); err != nil {
			t.Fatal(err)
		}
		page, err := e.st.Turns(ctx, s, memory.TurnFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tn := range page.Data {
			got = append(got, tn.RequestID)
		}
		if want := []string{"rt-0", "rt-1", "rt-2", "rt-3"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("turn log %v, want %v", got, want)
		}
		if evs := e.list(s, memory.StateAny, memory.TierEvent); len(evs) != 4 {
			t.Errorf("%d events, want 4", len(evs))
		}
	})
}

// TestEnqueueJoinsWaitingJob: a turn joins its scope's last job while that
// job waits in the queue, never another scope's, never a job a worker
// took, never beyond maxTurnsPerJob; each turn is committed when Enqueue
// returns either way.
func TestEnqueueJoinsWaitingJob(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) { testEnqueueJoinsWaitingJob(t, backend) })
	}
}

func testEnqueueJoinsWaitingJob(t *testing.T, backend string) {
	e := newEnv(t, backend, envOpts{insertOnly: true})
	ctx := context.Background()
	n := 0
	enqueue := func(user string) {
		t.Helper()
		n++
		if err := e.q.Enqueue(ctx, &memory.Turn{RequestID: fmt.Sprintf("j-%d", n), Scope: scope(user), User: oneOff(n), Assistant: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	waiting := func() map[string][]int {
		t.Helper()
		res, err := e.q.Client().JobList(ctx, river.NewJobListParams().Kinds(kindIngest).
			States(rivertype.JobStateAvailable, rivertype.JobStateRunning).First(100))
		if err != nil {
			t.Fatal(err)
		}
		jobs := map[string][]int{}
		for _, j := range res.Jobs {
			ts := ingestTurnsOf(t, j)
			for _, tn := range ts[1:] {
				if tn.Scope != ts[0].Scope {
					t.Fatalf("job %d mixes scopes %v and %v", j.ID, ts[0].Scope, tn.Scope)
				}
			}
			jobs[ts[0].Scope.User] = append(jobs[ts[0].Scope.User], len(ts))
		}
		return jobs
	}
	enqueue("a")
	enqueue("b")
	enqueue("a")
	enqueue("a")
	if got := fmt.Sprint(waiting()); got != "map[a:[3] b:[1]]" {
		t.Errorf("jobs after a b a a: %s, want a's three turns in one job", got)
	}
	// A worker takes a's job: the next turn of a makes a job of its own.
	take := `UPDATE river_job SET state = 'running', attempt = 1 WHERE kind = ? AND json_array_length(args, '$.turns') = 3`
	if backend == "postgres" {
		take = `UPDATE river_job SET state = 'running', attempt = 1 WHERE kind = $1 AND jsonb_array_length(args->'turns') = 3`
	}
	if _, err := e.river.ExecContext(ctx, take, kindIngest); err != nil {
		t.Fatal(err)
	}
	enqueue("a")
	enqueue("a")
	if got := fmt.Sprint(waiting()); got != "map[a:[3 2] b:[1]]" {
		t.Errorf("jobs after a's job started: %s, want a new job for the next two turns", got)
	}
	for range maxTurnsPerJob {
		enqueue("c")
	}
	enqueue("c")
	if got := waiting()["c"]; fmt.Sprint(got) != fmt.Sprint([]int{maxTurnsPerJob, 1}) {
		t.Errorf("c's jobs: %v, want one full job and one more", got)
	}
}
