package background

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// WaitIdle blocks until no spooled turn is pending and no other job is
// available or running (scheduled and retrying jobs are not waited for),
// or ctx ends. Tests and the evaluation
// use it to know the background has caught up. A maintenance job
// (consolidation, decay, session summary) that a killed process was
// running counts as running until River's stuck-job rescuer retries it;
// WaitIngested does not wait for those.
func (q *Queue) WaitIdle(ctx context.Context) error { return q.waitIdle(ctx, true) }

// WaitIngested blocks until every accepted turn is ingested (no spooled
// turn is pending), or ctx ends: the promise a crash keeps (turns of a
// killed process are processed within a lease and a sweep of a restart,
// docs/ingest.md), whatever maintenance jobs it left running.
func (q *Queue) WaitIngested(ctx context.Context) error { return q.waitIdle(ctx, false) }

func (q *Queue) waitIdle(ctx context.Context, jobs bool) error {
	sub, cancel := q.subscribe()
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		counted := time.Now()
		// Ingest is idle when the spool has no pending turn (a drain job
		// completes its turns after its writes and the jobs it makes); a
		// drain job River still lists as running may belong to a process
		// that died, whose turns the sweep hands to a live worker.
		// Whether any is pending, not how many: a count reads every
		// pending row, and this runs every few milliseconds.
		pending, err := q.spool.AnyPending(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return q.notIdle(ctx, true)
			}
			return err
		}
		n := 0
		if !pending && jobs {
			if n, err = q.countKinds(ctx, []string{kindConsolidate, kindDecay, kindSession, kindIngest},
				rivertype.JobStateAvailable, rivertype.JobStateRunning); err != nil {
				return err
			}
		}
		if !pending && n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return q.notIdle(ctx, pending)
		case _, ok := <-sub:
			if !ok {
				sub = nil // the client stopped: the ticker alone wakes us
			}
			// Events come in bursts (a batch of completions), and a count
			// takes River's connection from the workers (on SQLite its
			// only one): count at most once per waitIdleGap, once for all
			// the events that came meanwhile.
			if err := sleepCtx(ctx, waitIdleGap-time.Since(counted)); err != nil {
				return fmt.Errorf("background: wait idle: %w", err)
			}
			sub = drain(sub)
		case <-tick.C:
		}
	}
}

// notIdle is waitIdle's error when ctx ended first: with how many turns
// are pending (counted briefly, past ctx's end), or that none is.
func (q *Queue) notIdle(ctx context.Context, pending bool) error {
	if !pending {
		return fmt.Errorf("background: wait idle: %w (no turn pending; jobs available or running)", ctx.Err())
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	n, _, err := q.spool.SpoolStats(cctx)
	if err != nil {
		return fmt.Errorf("background: wait idle: %w (turns pending)", ctx.Err())
	}
	return fmt.Errorf("background: wait idle: %w (%d turns pending)", ctx.Err(), n)
}

// waitIdleGap is the least time between two counts of WaitIdle.
const waitIdleGap = 10 * time.Millisecond

// sleepCtx waits d (nothing when d ≤ 0) or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// drain takes whatever events are already waiting on sub and returns sub,
// or nil once it is closed.
func drain(sub <-chan *river.Event) <-chan *river.Event {
	for sub != nil {
		select {
		case _, ok := <-sub:
			if !ok {
				return nil
			}
		default:
			return sub
		}
	}
	return nil
}

// Drain is WaitIdle: it exists under the name the server's shutdown uses.
func (q *Queue) Drain(ctx context.Context) error { return q.WaitIdle(ctx) }

// subscribe returns job events when the workers run (a faster wake-up than
// the ticker), or a nil channel.
func (q *Queue) subscribe() (<-chan *river.Event, func()) {
	if q.cfg.InsertOnly {
		return nil, func() {}
	}
	q.mu.Lock()
	started := q.started && !q.stopped
	q.mu.Unlock()
	if !started {
		return nil, func() {}
	}
	return q.client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobSnoozed, river.EventKindJobCancelled)
}

// countKinds reports whether a job of kinds is in one of states: 1 if
// one is, else 0.
//
// One state a query, ordered by scheduled_at: River then writes `state =
// ?`, which its fetch index (state, queue, priority, scheduled_at, id)
// answers from the few rows in that state. A list of states ordered by id
// (River's default) made SQLite walk the table in id order, every job
// kept since the retention period began (decay.job_retention), to find
// none: 15 ms with 30,000 completed jobs, every few milliseconds while a
// wait for an idle queue polled.
func (q *Queue) countKinds(ctx context.Context, kinds []string, states ...rivertype.JobState) (int, error) {
	n := 0
	for _, st := range states {
		res, err := q.client.JobList(ctx, river.NewJobListParams().Kinds(kinds...).States(st).
			OrderBy(river.JobListOrderByScheduledAt, river.SortOrderAsc).First(1))
		if err != nil {
			return 0, fmt.Errorf("background: list jobs: %w", err)
		}
		n += len(res.Jobs)
		if n > 0 {
			break
		}
	}
	return n, nil
}

// Stats is the admin queue view.
type Stats struct {
	Available int `json:"available"`
	Running   int `json:"running"`
	Scheduled int `json:"scheduled"`
	Retryable int `json:"retryable"`
	Discarded int `json:"discarded"`
	// SpooledTurns are captured turns not yet ingested; LeasedTurns of
	// them are being ingested now.
	SpooledTurns int         `json:"spooled_turns"`
	LeasedTurns  int         `json:"leased_turns"`
	Failed       []FailedJob `json:"failed"`
	// LLMCalls, WouldBeLLMCalls and IngestedTurns are this process's
	// counters since start.
	LLMCalls        int64 `json:"llm_calls"`
	WouldBeLLMCalls int64 `json:"would_be_llm_calls"`
	IngestedTurns   int64 `json:"ingested_turns"`
	// ParkedTurns are turns this process parked since start: they failed
	// Config.MaxTurnAttempts times and were set aside (each logged and in
	// the scope's audit log as "park", its text in the turn log).
	ParkedTurns int64 `json:"parked_turns"`
}

// FailedJob is a job that errored (retrying or given up), with its errors.
type FailedJob struct {
	ID      int64     `json:"id"`
	Kind    string    `json:"kind"`
	State   string    `json:"state"`
	Attempt int       `json:"attempt"`
	Errors  []string  `json:"errors"`
	At      time.Time `json:"at"`
}

// pendingLimit bounds the rows each state count reads.
const pendingLimit = 10000

// Pending reports queue depth by state and the failing jobs.
func (q *Queue) Pending(ctx context.Context) (Stats, error) {
	st := Stats{LLMCalls: q.LLMCalls(), WouldBeLLMCalls: q.WouldBeLLMCalls(), IngestedTurns: q.IngestedTurns(), ParkedTurns: q.met.nParked.Load()}
	var err error
	if st.SpooledTurns, st.LeasedTurns, err = q.spool.SpoolStats(ctx); err != nil {
		return st, fmt.Errorf("background: pending: %w", err)
	}
	for _, c := range []struct {
		state rivertype.JobState
		dst   *int
	}{
		{rivertype.JobStateAvailable, &st.Available}, {rivertype.JobStateRunning, &st.Running},
		{rivertype.JobStateScheduled, &st.Scheduled}, {rivertype.JobStateRetryable, &st.Retryable},
		{rivertype.JobStateDiscarded, &st.Discarded},
	} {
		res, err := q.client.JobList(ctx, river.NewJobListParams().States(c.state).First(pendingLimit))
		if err != nil {
			return st, fmt.Errorf("background: pending: %w", err)
		}
		*c.dst = len(res.Jobs)
		q.met.queueDepth.WithLabelValues(string(c.state)).Set(float64(len(res.Jobs)))
		if c.state != rivertype.JobStateRetryable && c.state != rivertype.JobStateDiscarded {
			continue
		}
		for _, j := range res.Jobs {
			fj := FailedJob{ID: j.ID, Kind: j.Kind, State: string(j.State), Attempt: j.Attempt, At: j.CreatedAt}
			for _, e := range j.Errors {
				fj.Errors = append(fj.Errors, e.Error)
			}
			st.Failed = append(st.Failed, fj)
		}
	}
	return st, nil
}

// DeleteUserJobs removes a user's queued jobs and spooled turns (every
// namespace when ns is ""), for forget-user: raw turns waiting in the
// queue go too. Running jobs cannot be deleted; their count is returned
// so the caller can retry after WaitIdle.
func (q *Queue) DeleteUserJobs(ctx context.Context, user, ns string) (deleted, running int, err error) {
	n, err := q.spool.DeleteSpoolUser(ctx, user, ns)
	if err != nil {
		return 0, 0, fmt.Errorf("background: delete user jobs: %w", err)
	}
	deleted, running, err = q.deleteUserJobs(ctx, user, ns)
	return deleted + n, running, err
}

func (q *Queue) deleteUserJobs(ctx context.Context, user, ns string) (deleted, running int, err error) {
	// The user's session jobs go with the rest (and one noted while they
	// are deleted is forgotten after).
	q.ses.forgetWaiting()
	defer q.ses.forgetWaiting()
	tag := userTag(user)
	if ns != "" {
		tag = scopeTag(memory.Scope{User: user, Namespace: ns})
	}
	for {
		res, err := q.client.JobList(ctx, river.NewJobListParams().TagsAny(tag).First(1000).States(
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateScheduled,
			rivertype.JobStateRetryable, rivertype.JobStateCompleted, rivertype.JobStateCancelled,
			rivertype.JobStateDiscarded, rivertype.JobStateRunning))
		if err != nil {
			return deleted, running, fmt.Errorf("background: delete user jobs: %w", err)
		}
		var ids []int64
		running = 0
		for _, j := range res.Jobs {
			if j.State == rivertype.JobStateRunning {
				running++
				continue
			}
			ids = append(ids, j.ID)
		}
		if len(ids) == 0 {
			return deleted, running, nil
		}
		dr, err := q.client.JobDeleteMany(ctx, river.NewJobDeleteManyParams().IDs(ids...))
		if err != nil {
			return deleted, running, fmt.Errorf("background: delete user jobs: %w", err)
		}
		deleted += len(dr.Jobs)
		if len(dr.Jobs) == 0 {
			return deleted, running, nil
		}
	}
}

// FlushSessions makes every waiting session-summary job run now; each
// still checks idleness against the queue clock. Replays call it after
// moving their clock.
func (q *Queue) FlushSessions(ctx context.Context) error {
	// The jobs run now: later turns insert new ones (and one noted while
	// they are retried is forgotten after).
	q.ses.forgetWaiting()
	defer q.ses.forgetWaiting()
	res, err := q.client.JobList(ctx, river.NewJobListParams().Kinds(kindSession).States(rivertype.JobStateScheduled).First(pendingLimit))
	if err != nil {
		return fmt.Errorf("background: flush sessions: %w", err)
	}
	for _, j := range res.Jobs {
		if _, err := q.client.JobRetry(ctx, j.ID); err != nil && !errors.Is(err, river.ErrNotFound) {
			return fmt.Errorf("background: flush sessions: %w", err)
		}
	}
	return nil
}

// DecayRuns is how many periodic decay jobs this queue ran.
func (q *Queue) DecayRuns() int64 { return q.decay.runs.Load() }

// errorHandler logs job failures and counts them by kind: a failing job is
// visible in logs, metrics and the admin queue view.
type errorHandler struct{ q *Queue }

func (h *errorHandler) HandleError(ctx context.Context, job *rivertype.JobRow, err error) *river.ErrorHandlerResult {
	h.q.met.jobErrors.WithLabelValues(job.Kind).Inc()
	h.q.met.nJobErrors.Add(1)
	h.q.log.ErrorContext(ctx, "background job failed", "kind", job.Kind, "id", job.ID, "attempt", job.Attempt, "err", err)
	return nil
}

func (h *errorHandler) HandlePanic(ctx context.Context, job *rivertype.JobRow, v any, trace string) *river.ErrorHandlerResult {
	h.q.met.jobErrors.WithLabelValues(job.Kind).Inc()
	h.q.met.nJobErrors.Add(1)
	h.q.log.ErrorContext(ctx, "background job panicked", "kind", job.Kind, "id", job.ID, "panic", v)
	return nil
}
