package background

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
)

type ingestWorker struct {
	river.WorkerDefaults[IngestArgs]
	q *Queue
}

// Work ingests the job's turns in order. A turn that fails is requeued
// alone (the others are done); when every turn fails the job fails and
// River retries it.
func (w *ingestWorker) Work(ctx context.Context, job *river.Job[IngestArgs]) error {
	start := time.Now()
	defer func() { w.q.met.jobLatency.WithLabelValues(kindIngest).Observe(time.Since(start).Seconds()) }()
	var failed []memory.Turn
	var firstErr error
	for i := range job.Args.Turns {
		t := job.Args.Turns[i]
		if err := w.q.ingest(ctx, &t); err != nil {
			failed = append(failed, job.Args.Turns[i])
			firstErr = cmp.Or(firstErr, err)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	if len(failed) == len(job.Args.Turns) {
		return firstErr
	}
	w.q.log.WarnContext(ctx, "ingest: requeueing failed turns", "failed", len(failed), "of", len(job.Args.Turns), "err", firstErr)
	s := job.Args.Scope
	_, err := w.q.client.Insert(ctx, IngestArgs{Scope: s, Turns: failed}, &river.InsertOpts{
		Queue: queueIngest, Tags: []string{scopeTag(s), userTag(s.User)},
	})
	if err != nil {
		return errors.Join(firstErr, fmt.Errorf("requeue failed turns: %w", err))
	}
	return nil
}

// ingest processes one turn. Every write uses ids derived from the request
// id, so a retried or rescued job rewrites, never duplicates.
func (q *Queue) ingest(ctx context.Context, t *memory.Turn) error {
	t.User = StripFence(t.User)
	t.Assistant = StripFence(t.Assistant)
	if t.Time.IsZero() {
		t.Time = q.now()
	}
	if err := q.ingestTurn(ctx, t); err != nil {
		return err
	}
	// The turn is logged last, once everything it caused is written: a
	// retry after a failure above redoes idempotent writes and still logs
	// the turn once.
	if q.pol.Ingest.TurnLog {
		if err := q.cfg.Store.AppendTurn(ctx, t); err != nil {
			return fmt.Errorf("append turn: %w", err)
		}
	}
	q.met.ingested.Inc()
	q.met.nIngested.Add(1)
	return nil
}

func (q *Queue) ingestTurn(ctx context.Context, t *memory.Turn) error {
	s := t.Scope
	if len(t.Injected) > 0 {
		if err := q.usageFeedback(ctx, t); err != nil {
			return fmt.Errorf("usage feedback: %w", err)
		}
	}

	intent := t.Intent
	if intent == memory.IntentNone {
		intent = q.gate.Intent(t.User)
	}
	switch intent {
	case memory.IntentRemember:
		return q.explicitRemember(ctx, t)
	case memory.IntentForget:
		return q.explicitForget(ctx, t)
	}
	// A bare greeting is not noise for the request gate (it skips recall
	// for its own reason) but carries nothing worth keeping either.
	if class, noise := q.gate.Classify(t.User); noise || class == gate.ClassGreeting || strings.TrimSpace(t.User) == "" {
		q.met.dropped.WithLabelValues(cmpStr(class, "empty")).Inc()
		return nil
	}
	if err := q.scheduleSession(ctx, t); err != nil {
		return err
	}

	facts := ExtractFacts(t.User, q.pol.Reconcile.ChangeCues)
	for i, f := range facts {
		m := q.factMemory(t, f, memory.SourceExtracted, stableID(t.RequestID, "fact", fmt.Sprint(i)))
		if _, err := q.reconcile(ctx, s, m, &f, "background"); err != nil {
			return fmt.Errorf("reconcile fact: %w", err)
		}
	}
	if len(facts) > 0 && factsCoverMessage(t.User, facts) {
		return nil
	}
	return q.storeEvent(ctx, t)
}

func cmpStr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// factsCoverMessage reports whether the facts say all the message says:
// a one-sentence statement needs no event beside its fact.
func factsCoverMessage(text string, facts []Fact) bool {
	return len(splitSentences(text)) <= len(facts)
}

func (q *Queue) factMemory(t *memory.Turn, f Fact, src memory.Source, id string) *memory.Memory {
	return &memory.Memory{
		ID:         id,
		Scope:      t.Scope,
		Tier:       memory.TierSemantic,
		Text:       f.Text,
		Value:      0.6,
		Confidence: 0.7,
		Source:     src,
		Key:        f.Key,
		Session:    t.Session,
		Provenance: memory.Provenance{RequestIDs: union(nil, t.RequestID), TurnRefs: union(nil, t.Refs...)},
		CreatedAt:  t.Time,
		LastUsedAt: t.Time,
		ValidFrom:  t.Time,
	}
}

// eventText is how a turn reads as an event memory.
func eventText(t *memory.Turn) string {
	u := strings.TrimSpace(t.User)
	a := strings.TrimSpace(t.Assistant)
	if a == "" {
		return u
	}
	return u + "\nAssistant: " + truncate(a, 400)
}

func (q *Queue) storeEvent(ctx context.Context, t *memory.Turn) error {
	id := stableID(t.RequestID, "event")
	if t.RequestID == "" {
		id = memory.NewID()
	} else if _, err := q.cfg.Store.Get(ctx, t.Scope, id); err == nil {
		return nil // already ingested by an earlier attempt
	} else if !errors.Is(err, memory.ErrNotFound) {
		return fmt.Errorf("get event: %w", err)
	}
	vecs, err := q.cfg.Embedder.Embed(ctx, []string{t.User})
	if err != nil {
		return fmt.Errorf("embed event: %w", err)
	}
	m := &memory.Memory{
		ID:         id,
		Scope:      t.Scope,
		Tier:       memory.TierEvent,
		Text:       eventText(t),
		Embedding:  vecs[0],
		Value:      Informativeness(t.User),
		Confidence: 1,
		Source:     memory.SourceEvent,
		Session:    t.Session,
		Provenance: memory.Provenance{RequestIDs: union(nil, t.RequestID), TurnRefs: union(nil, t.Refs...)},
		CreatedAt:  t.Time,
		LastUsedAt: t.Time,
		ValidFrom:  t.Time,
	}
	if err := q.cfg.Store.Insert(ctx, t.Scope, m); err != nil {
		return fmt.Errorf("insert event: %w", err)
	}
	q.met.memories.WithLabelValues(string(memory.TierEvent)).Inc()
	return q.maybeCluster(ctx, m)
}

// isLocalEmbedder: the local hashed embedder has its own calibrated
// thresholds (its similarities run lower than a semantic model's).
func (q *Queue) isLocalEmbedder() bool {
	return strings.HasPrefix(q.cfg.Embedder.Model(), "local")
}

func (q *Queue) clusterThreshold() float64 {
	if q.isLocalEmbedder() {
		return q.pol.Consolidation.LocalClusterThreshold
	}
	return q.pol.Consolidation.ClusterThreshold
}

// maybeCluster enqueues one Consolidate job when the new event has enough
// unconsolidated siblings. The cluster key is the oldest member, so every
// member of one cluster names the same job (River unique).
func (q *Queue) maybeCluster(ctx context.Context, ev *memory.Memory) error {
	need := q.pol.Consolidation.ClusterMin - 1
	cands, err := q.cfg.Store.VectorSearch(ctx, ev.Scope, ev.Embedding, memory.SearchOptions{
		// A few more than needed leave room for the cohesion check; every
		// candidate costs a row decode.
		Limit: need + 6, Tiers: []memory.Tier{memory.TierEvent}, ExcludeConsolidated: true, At: ev.CreatedAt,
	})
	if err != nil {
		return fmt.Errorf("cluster search: %w", err)
	}
	th := q.clusterThreshold()
	members := []*memory.Memory{ev}
	// A cluster must be cohesive: each member close to every other one,
	// not a chain of events that each share one word with the new one.
	for _, c := range cands {
		if c.Memory.ID == ev.ID || c.Score < th || c.Memory.ConsolidatedAt != nil {
			continue
		}
		if !slices.ContainsFunc(members[1:], func(m *memory.Memory) bool { return cosine(m.Embedding, c.Memory.Embedding) < th }) {
			members = append(members, c.Memory)
		}
	}
	if len(members)-1 < need {
		return nil
	}
	sort.Slice(members, func(i, j int) bool {
		if !members[i].CreatedAt.Equal(members[j].CreatedAt) {
			return members[i].CreatedAt.Before(members[j].CreatedAt)
		}
		return members[i].ID < members[j].ID
	})
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = m.ID
	}
	args := ConsolidateArgs{Scope: ev.Scope, ClusterKey: ev.Scope.String() + "/" + ids[0], EventIDs: ids}
	_, err = q.client.Insert(ctx, args, &river.InsertOpts{
		Queue:       queueConsolidate,
		Tags:        []string{scopeTag(ev.Scope), userTag(ev.Scope.User)},
		MaxAttempts: 5,
		UniqueOpts:  river.UniqueOpts{ByArgs: true},
	})
	if err != nil {
		return fmt.Errorf("enqueue consolidate: %w", err)
	}
	return nil
}

// usageFeedback reinforces injected memories the reply used and counts a
// miss for the others by moving the scope's adaptive gate threshold.
func (q *Queue) usageFeedback(ctx context.Context, t *memory.Turn) error {
	ms, err := q.cfg.Store.GetMany(ctx, t.Scope, t.Injected)
	if err != nil {
		return err
	}
	var used []string
	misses := 0
	var replyVec []float32
	for _, m := range ms {
		u := coverage(m.Text, t.Assistant) >= q.pol.Ingest.UsedThreshold
		if !u && len(m.Embedding) > 0 && t.Assistant != "" {
			if replyVec == nil {
				v, err := q.cfg.Embedder.Embed(ctx, []string{t.Assistant})
				if err != nil {
					return err
				}
				replyVec = v[0]
			}
			u = cosine(m.Embedding, replyVec) >= max(q.pol.Ingest.UsedThreshold, q.reconcileDup())
		}
		if u {
			used = append(used, m.ID)
		} else {
			misses++
		}
	}
	if len(used) > 0 {
		if err := q.cfg.Store.Touch(ctx, t.Scope, used, t.Time); err != nil {
			return err
		}
		q.met.reinforced.Add(float64(len(used)))
	}
	a := q.pol.Gate.Adaptive
	if !a.Enabled || len(ms) == 0 {
		return nil
	}
	th, ok, err := q.cfg.Store.Threshold(ctx, t.Scope)
	if err != nil {
		return err
	}
	if !ok {
		th = q.pol.Gate.MinScore
	}
	nt := gate.Adaptive{}.Next(th, len(used), misses, a)
	if nt == th {
		return nil
	}
	return q.cfg.Store.SetThreshold(ctx, t.Scope, nt)
}
