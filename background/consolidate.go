package background

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/memproxy/memproxy/facts"
	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
)

type consolidateWorker struct {
	river.WorkerDefaults[ConsolidateArgs]
	q *Queue
}

func (w *consolidateWorker) Work(ctx context.Context, job *river.Job[ConsolidateArgs]) error {
	w.q.yield(ctx)
	h := w.q.pace.handle() // pace.go; held at most max_lag past the insert
	defer h.release()
	h.round(max(0, time.Since(job.CreatedAt)))
	h.step(ctx)
	start := time.Now()
	err := w.q.cons.consolidate(withPace(ctx, h), &job.Args)
	h.step(ctx)
	if !errors.As(err, new(*river.JobSnoozeError)) {
		w.q.met.jobLatency.WithLabelValues(kindConsolidate).Observe(time.Since(start).Seconds())
	}
	return err
}

// consolidate folds one cluster of events into an episodic summary and
// semantic facts. Events stay (marked consolidated) as the raw archive.
func (q *consolidator) consolidate(ctx context.Context, a *ConsolidateArgs) error {
	s := a.Scope
	// Read, never written back (the events are marked by id).
	evs, err := q.readMany(ctx, s, a.EventIDs)
	if err != nil {
		return fmt.Errorf("load cluster: %w", err)
	}
	live := evs[:0]
	for _, e := range evs {
		if e.ConsolidatedAt == nil && e.ValidTo == nil && e.ArchivedAt == nil {
			live = append(live, e)
		}
	}
	if len(live) < 2 {
		return nil // consolidated meanwhile, or forgotten
	}
	evs = live
	sort.Slice(evs, func(i, j int) bool { return evs[i].CreatedAt.Before(evs[j].CreatedAt) })

	var res *Consolidation
	if q.llm != nil {
		// The budget is wall-clock, even in replays: it protects a bill.
		if wait, ok := q.budget.take(time.Now()); !ok {
			return river.JobSnooze(wait)
		}
		known, err := q.knownFacts(ctx, s, evs)
		if err != nil {
			return err
		}
		res, err = q.askModel(ctx, evs, known)
		if err != nil {
			return err // River records it; events stay unconsolidated
		}
	} else {
		q.met.nWouldBe.Add(1)
		q.met.llmCalls.WithLabelValues("would_be").Inc()
		res = q.extractive(evs)
	}
	if err := q.applyConsolidation(ctx, s, a.ClusterKey, evs, res); err != nil {
		return err
	}
	q.met.nConsolidations.Add(1)
	return nil
}

func (q *consolidator) knownFacts(ctx context.Context, s memory.Scope, evs []*memory.Memory) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, e := range evs[len(evs)-min(len(evs), 3):] {
		cs, err := q.cfg.Store.VectorSearch(ctx, s, e.Embedding, memory.SearchOptions{
			Limit: 5, Tiers: []memory.Tier{memory.TierSemantic, memory.TierProfile}, At: e.CreatedAt, ReadOnly: true, // texts only
		})
		if err != nil {
			return nil, fmt.Errorf("known facts: %w", err)
		}
		for _, c := range cs {
			if !seen[c.Memory.ID] {
				seen[c.Memory.ID] = true
				out = append(out, c.Memory.Text)
			}
		}
	}
	return out, nil
}

// askModel makes one call, and retries a bad answer up to policy retries.
func (q *consolidator) askModel(ctx context.Context, evs []*memory.Memory, known []string) (*Consolidation, error) {
	turns := make([]string, len(evs))
	for i, e := range evs {
		turns[i] = "[" + e.CreatedAt.UTC().Format("2006-01-02 15:04") + "] User: " + e.Text
	}
	prompt := buildPrompt(turns, known)
	var lastErr error
	for attempt := 0; attempt <= q.pol.Consolidation.Retries; attempt++ {
		q.met.nLLM.Add(1)
		q.met.llmCalls.WithLabelValues("consolidate").Inc()
		ans, err := q.llm.Complete(ctx, prompt)
		if err != nil {
			lastErr = fmt.Errorf("consolidation model: %w", err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		res, err := ParseConsolidation(ans)
		if err == nil {
			return res, nil
		}
		lastErr = err
		q.log.WarnContext(ctx, "consolidation answer rejected", "attempt", attempt+1, "err", err)
	}
	return nil, fmt.Errorf("consolidate: %w", lastErr)
}

// extractive is the offline consolidator: the cluster's most central event
// is the episodic memory; facts come from the extraction patterns, read
// from the events ingest did not read (imported ones).
func (q *consolidator) extractive(evs []*memory.Memory) *Consolidation {
	best, bestSum := 0, -1.0
	for i, a := range evs {
		sum := 0.0
		for j, b := range evs {
			if i != j {
				sum += memory.Cosine(a.Embedding, b.Embedding)
			}
		}
		if sum > bestSum {
			best, bestSum = i, sum
		}
	}
	c := &Consolidation{Episodic: userPart(evs[best].Text)}
	seen := map[string]bool{}
	for _, e := range evs {
		if e.Source == memory.SourceEvent {
			// An ingested turn's facts were read when it came in, dated by
			// its own time and with its context, and reconciled with what
			// came after. Read again here, without either, they could
			// only restate those facts (a no-op reinforce) or get them
			// wrong: a relative date read against today, a value a later
			// turn superseded stated again.
			continue
		}
		for _, f := range ExtractFacts(userPart(e.Text), q.pol.Reconcile.ChangeCues) {
			if !seen[f.Text] {
				seen[f.Text] = true
				c.Semantic = append(c.Semantic, f.Text)
			}
		}
	}
	return c
}

// userPart is the user text of an event memory (memory.EventUser).
func userPart(eventText string) string { return memory.EventUser(eventText) }

func (q *consolidator) applyConsolidation(ctx context.Context, s memory.Scope, key string, evs []*memory.Memory, res *Consolidation) error {
	at := evs[len(evs)-1].CreatedAt
	var prov memory.Provenance
	for _, e := range evs {
		prov.RequestIDs = union(prov.RequestIDs, e.Provenance.RequestIDs...)
		prov.TurnRefs = union(prov.TurnRefs, e.Provenance.TurnRefs...)
		prov.MemoryIDs = append(prov.MemoryIDs, e.ID)
	}
	ep := &memory.Memory{
		ID: stableID(key, "episodic"), Scope: s, Tier: memory.TierEpisodic, Text: res.Episodic,
		Value: 0.6, Confidence: 0.8, Source: memory.SourceConsolidated, Provenance: prov,
		Session: evs[len(evs)-1].Session, API: sharedAPI(evs), CreatedAt: at, LastUsedAt: at, ValidFrom: at,
	}
	newEp := false
	if _, err := q.cfg.Store.Get(ctx, s, ep.ID); errors.Is(err, memory.ErrNotFound) {
		v, err := q.cfg.Embedder.Embed(ctx, []string{ep.Text})
		if err != nil {
			return fmt.Errorf("embed episodic: %w", err)
		}
		ep.Embedding = v[0]
		newEp = true
	} else if err != nil {
		return err
	}
	var firstFact *memory.Memory
	// The model's triples first: each is a fact of its slot. A sentence of
	// "semantic" keyed to a slot a triple filled is left out (the triple
	// says it; the sentence's crude keying could only disagree).
	tripleKeys := map[string]bool{}
	for i, tr := range res.Triples {
		f, ok := facts.FromTriple(tr, at)
		if !ok {
			q.log.WarnContext(ctx, "consolidation triple rejected", "attribute", tr.Attribute)
			continue
		}
		tier := memory.TierSemantic
		if factsIsProfile(f) {
			tier = memory.TierProfile
		}
		m := &memory.Memory{
			ID: stableID(key, "triple", fmt.Sprint(i)), Scope: s, Tier: tier, Text: f.Text,
			Value: 0.6, Confidence: 0.8, Source: memory.SourceConsolidated, Provenance: prov, Key: f.Key(),
			API: sharedAPI(evs), CreatedAt: at, LastUsedAt: at, ValidFrom: at,
		}
		if _, err := q.rec.reconcile(ctx, s, m, &f, "background"); err != nil {
			return fmt.Errorf("reconcile consolidated triple: %w", err)
		}
		tripleKeys[f.Key()] = true
		if firstFact == nil {
			firstFact = m
		}
	}
	for i, text := range res.Semantic {
		m := &memory.Memory{
			ID: stableID(key, "fact", fmt.Sprint(i)), Scope: s, Tier: memory.TierSemantic, Text: text,
			Value: 0.6, Confidence: 0.8, Source: memory.SourceConsolidated, Provenance: prov,
			API: sharedAPI(evs), CreatedAt: at, LastUsedAt: at, ValidFrom: at,
		}
		var fp *Fact
		if fs := ExtractFacts(firstPerson(text), q.pol.Reconcile.ChangeCues); len(fs) == 1 {
			fp = &fs[0]
			m.Key = fp.Key()
		}
		if m.Key != "" && tripleKeys[m.Key] {
			continue
		}
		if _, err := q.rec.reconcile(ctx, s, m, fp, "background"); err != nil {
			return fmt.Errorf("reconcile consolidated fact: %w", err)
		}
		if firstFact == nil {
			firstFact = m
		}
	}
	if len(res.Contradicts) > 0 {
		by := firstFact
		if by == nil {
			by = ep
		}
		if err := q.applyContradicts(ctx, s, res.Contradicts, by); err != nil {
			return err
		}
	}
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	// The summary and its events marked consolidated commit together: a
	// retry after a failure finds neither or both (the facts before are
	// each applied in a transaction of their own, under stable ids).
	err := q.together(ctx, func(ctx context.Context) error {
		if newEp {
			if err := q.rec.insertAudited(ctx, s, ep, "background"); err != nil {
				return err
			}
		}
		if err := q.cfg.Store.MarkConsolidated(ctx, s, ids, q.now()); err != nil {
			return fmt.Errorf("mark consolidated: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if newEp {
		q.met.memories.WithLabelValues(string(ep.Tier)).Inc()
	}
	return nil
}

// applyContradicts supersedes the known facts the model named: exact text,
// or the best lexical match sharing most words either way (models
// paraphrase the facts they were shown).
func (q *consolidator) applyContradicts(ctx context.Context, s memory.Scope, texts []string, by *memory.Memory) error {
	for _, t := range texts {
		cs, err := q.cfg.Store.LexicalSearch(ctx, s, t, memory.SearchOptions{
			Limit: 5, Tiers: []memory.Tier{memory.TierSemantic, memory.TierProfile}, At: by.CreatedAt,
		})
		if err != nil {
			return fmt.Errorf("contradicts search: %w", err)
		}
		for _, c := range cs {
			if c.Memory.ID == by.ID || c.Memory.SupersededBy != "" || c.Memory.ValidTo != nil {
				continue
			}
			if normText(c.Memory.Text) == normText(t) || max(coverage(t, c.Memory.Text), coverage(c.Memory.Text, t)) >= 0.8 {
				if err := q.rec.supersede(ctx, s, c.Memory, by, "background"); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// firstPerson turns a model's third-person fact back into the first person
// so the extraction patterns can key it ("The user lives in X" → "I live
// in X"). Crude on purpose: a miss only costs the key.
func firstPerson(s string) string {
	r := strings.NewReplacer(
		"The user's ", "My ", "the user's ", "my ", "The user ", "I ", "the user ", "I ",
		"用户的", "我的", "用户", "我",
	)
	s = r.Replace(s)
	for _, p := range [][2]string{{"I lives", "I live"}, {"I works", "I work"}, {"I uses", "I use"}, {"I likes", "I like"}, {"I is", "I am"}, {"I has", "I have"}, {"I prefers", "I prefer"}, {"I loves", "I love"}} {
		s = strings.Replace(s, p[0], p[1], 1)
	}
	return s
}

// sharedAPI is the API the memories all came through, "" when they differ.
func sharedAPI(ms []*memory.Memory) string {
	if len(ms) == 0 {
		return ""
	}
	for _, m := range ms[1:] {
		if m.API != ms[0].API {
			return ""
		}
	}
	return ms[0].API
}
