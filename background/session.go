package background

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

type sessionWorker struct {
	river.WorkerDefaults[SessionArgs]
	q *Queue
}

func (w *sessionWorker) Work(ctx context.Context, job *river.Job[SessionArgs]) error {
	return w.q.ses.summarizeSession(ctx, &job.Args)
}

// scheduleSessions makes sure one summary job waits for each session of
// turns (a round's newest turn of each) to go idle. Unique per session
// among waiting jobs: later turns find it there.
//
// The insert is a River write (on SQLite a transaction on River's one
// connection) made for every round of a session's turns, and all but the
// first find the job already there. So the job's scheduled time is kept:
// a job scheduled to run later reads every event committed before it
// runs, the new turn's included (its event is written before this call),
// so until shortly before that time no insert is needed. FlushSessions
// and a user's job deletion forget what is kept. The sessions a round
// has jobs to insert for go in one transaction, in key order (turns is
// sorted): two replicas inserting the same sessions wait on each other in
// one order.
func (q *sessioner) scheduleSessions(ctx context.Context, turns []*memory.Turn) error {
	now := time.Now()
	var params []river.InsertManyParams
	var keys []sessionKey
	slices.SortFunc(turns, func(a, b *memory.Turn) int {
		return cmp.Or(strings.Compare(a.Scope.String(), b.Scope.String()), strings.Compare(a.Session, b.Session))
	})
	for _, t := range turns {
		k := sessionKey{scope: t.Scope, session: t.Session}
		if t.Session == "" || q.jobWaits(k, now) {
			continue
		}
		keys = append(keys, k)
		params = append(params, river.InsertManyParams{
			Args: SessionArgs{Scope: t.Scope, Session: t.Session, User: t.Scope.User, NS: t.Scope.Namespace, LastTurn: t.Time},
			InsertOpts: &river.InsertOpts{
				Queue:       queueMaintenance,
				ScheduledAt: now.Add(q.pol.Sessions.Idle.D()),
				Tags:        []string{scopeTag(t.Scope), userTag(t.Scope.User)},
				MaxAttempts: 5,
				UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
					rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
					rivertype.JobStateRetryable, rivertype.JobStateScheduled,
				}},
			},
		})
	}
	if len(params) == 0 {
		return nil
	}
	res, err := q.client.InsertMany(ctx, params)
	if err != nil {
		return fmt.Errorf("schedule session summaries: %w", err)
	}
	for i, r := range res {
		if r != nil && r.Job != nil && r.Job.State == rivertype.JobStateScheduled && i < len(keys) {
			q.noteWaiting(keys[i], r.Job.ScheduledAt, now)
		}
	}
	return nil
}

// sessionMargin is how long before a kept job's scheduled time a turn
// inserts again: a job about to run, or running, may not read the turn.
func (q *sessioner) sessionMargin() time.Duration {
	return min(time.Minute, q.pol.Sessions.Idle.D()/4)
}

// jobWaits reports whether a summary job of the session is known to be
// scheduled to run well after now.
func (q *sessioner) jobWaits(k sessionKey, now time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	at, ok := q.waiting[k]
	return ok && now.Add(q.sessionMargin()).Before(at)
}

// noteWaiting keeps the scheduled time of the session's waiting job,
// dropping the entries whose time has passed when the map grows.
func (q *sessioner) noteWaiting(k sessionKey, at, now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.waiting == nil {
		q.waiting = map[sessionKey]time.Time{}
	}
	if len(q.waiting) >= maxWaitingSessions {
		for k2, at2 := range q.waiting {
			if !now.Before(at2) {
				delete(q.waiting, k2)
			}
		}
		if len(q.waiting) >= maxWaitingSessions {
			clear(q.waiting)
		}
	}
	q.waiting[k] = at
}

// forgetWaiting drops what is known of waiting summary jobs (they were
// made to run now, or deleted).
func (q *sessioner) forgetWaiting() {
	q.mu.Lock()
	defer q.mu.Unlock()
	clear(q.waiting)
}

// maxWaitingSessions bounds the sessions whose waiting job is kept.
const maxWaitingSessions = 1 << 16

// summarizeSession writes one episodic memory with 3-5 key points once
// the session has been idle for sessions.idle (by the queue clock); if it
// is still active the job waits again.
func (q *sessioner) summarizeSession(ctx context.Context, a *SessionArgs) error {
	s := a.Scope
	evs, err := q.sessionEvents(ctx, s, a.Session)
	if err != nil {
		return err
	}
	if len(evs) == 0 {
		return nil
	}
	last := evs[len(evs)-1].CreatedAt
	if idle := q.pol.Sessions.Idle.D(); q.now().Sub(last) < idle {
		return river.JobSnooze(idle - q.now().Sub(last))
	}
	if len(evs) < q.pol.Sessions.MinTurns {
		return nil
	}
	id := stableID(s.String(), a.Session, last.UTC().Format(time.RFC3339Nano), "session")
	if _, err := q.cfg.Store.Get(ctx, s, id); err == nil {
		return nil
	}
	points, err := q.sessionPoints(ctx, evs)
	if err != nil {
		return err
	}
	text := "Session summary (" + evs[0].CreatedAt.UTC().Format("2006-01-02") + "):\n- " + strings.Join(points, "\n- ")
	var prov memory.Provenance
	var reqs, refs []string
	for _, e := range evs {
		reqs = append(reqs, e.Provenance.RequestIDs...)
		refs = append(refs, e.Provenance.TurnRefs...)
		prov.MemoryIDs = append(prov.MemoryIDs, e.ID)
	}
	prov.RequestIDs, prov.TurnRefs = union(nil, reqs...), union(nil, refs...)
	v, err := q.cfg.Embedder.Embed(ctx, []string{text})
	if err != nil {
		return fmt.Errorf("embed summary: %w", err)
	}
	m := &memory.Memory{
		ID: id, Scope: s, Tier: memory.TierEpisodic, Text: text, Embedding: v[0],
		Value: 0.5, Confidence: 0.7, Source: memory.SourceConsolidated, Session: a.Session,
		API: sharedAPI(evs), Provenance: prov, CreatedAt: last, LastUsedAt: last, ValidFrom: last,
	}
	return q.rec.insert(ctx, s, m, "background")
}

// maxSessionEvents bounds what one summary reads: a session's newest
// events. An app that keeps one session for weeks (a fixed session
// header, a conversation resent from the same first messages) would
// otherwise have each summary read thousands, and ask the consolidation
// model with a prompt past any context window.
const maxSessionEvents = 200

// sessionEvents lists the session's newest events (at most
// maxSessionEvents), oldest first.
func (q *sessioner) sessionEvents(ctx context.Context, s memory.Scope, session string) ([]*memory.Memory, error) {
	p, err := q.cfg.Store.List(ctx, s, memory.ListFilter{Session: session, Tiers: []memory.Tier{memory.TierEvent}, Limit: maxSessionEvents})
	if err != nil {
		return nil, fmt.Errorf("session events: %w", err)
	}
	out := p.Data
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// keyPoints picks the 3-5 most informative user statements, in order,
// preferring those with concrete parameters (numbers, names).
func (q *sessioner) keyPoints(evs []*memory.Memory) []string {
	type pt struct {
		i    int
		text string
		v    float64
	}
	var pts []pt
	seen := map[string]bool{}
	for i, e := range evs {
		u := strings.TrimSpace(userPart(e.Text))
		k := normText(u)
		if u == "" || seen[k] {
			continue
		}
		seen[k] = true
		pts = append(pts, pt{i, truncate(u, 200), Informativeness(u)})
	}
	sort.SliceStable(pts, func(a, b int) bool { return pts[a].v > pts[b].v })
	n := min(5, len(pts))
	pts = pts[:n]
	sort.Slice(pts, func(a, b int) bool { return pts[a].i < pts[b].i })
	out := make([]string, n)
	for i, p := range pts {
		out[i] = p.text
	}
	return out
}

// sessionPrompt asks the model for the key points of one conversation.
const sessionPrompt = `Summarise this conversation between a user and an assistant as 3 to 5
key points worth remembering about the user and what was decided. Keep
concrete parameters: dates, people, places, amounts, versions, states.
Return ONLY a JSON object: {"points": ["...", "..."]}

Conversation (oldest first):
%s`

// sessionPoints asks the consolidation model when one is configured (same
// budget, call counter and retries as consolidation) and otherwise, or
// when the budget is spent, picks the key points extractively.
func (q *sessioner) sessionPoints(ctx context.Context, evs []*memory.Memory) ([]string, error) {
	if q.llm == nil {
		return q.keyPoints(evs), nil
	}
	if wait, ok := q.budget.take(time.Now()); !ok {
		return nil, river.JobSnooze(wait)
	}
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("[" + e.CreatedAt.UTC().Format("2006-01-02 15:04") + "] User: " + truncate(e.Text, 600) + "\n")
	}
	prompt := fmt.Sprintf(sessionPrompt, b.String())
	var lastErr error
	for attempt := 0; attempt <= q.pol.Consolidation.Retries; attempt++ {
		q.met.nLLM.Add(1)
		q.met.llmCalls.WithLabelValues("session").Inc()
		ans, err := q.llm.Complete(ctx, prompt)
		if err != nil {
			lastErr = err
			continue
		}
		pts, err := parsePoints(ans)
		if err == nil {
			return pts, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("session summary: %w", lastErr)
}

// parsePoints reads {"points": [...]} (tolerating prose around it) and
// keeps 1-5 non-empty points.
func parsePoints(ans string) ([]string, error) {
	obj, ok := findJSONObject(ans)
	if !ok {
		return nil, fmt.Errorf("%w: no JSON object", errBadAnswer)
	}
	var v struct {
		Points []string `json:"points"`
	}
	if err := json.Unmarshal([]byte(obj), &v); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadAnswer, err)
	}
	pts := cleanList(v.Points)
	if len(pts) == 0 {
		return nil, fmt.Errorf("%w: no points", errBadAnswer)
	}
	return pts[:min(len(pts), 5)], nil
}
