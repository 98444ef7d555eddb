package background

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memproxy/memproxy/facts"
	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/text"
	"github.com/riverqueue/river"
)

// ingestTurns ingests one claimed round of a scope's spooled turns, in
// order, and returns the ids of those done. Events of the round are
// embedded in one call and written, with the turn log, in one group
// commit shared with the rounds running alongside; the cluster checks and
// session schedules follow. A turn that fails is left out (its lease is
// given back by the caller); when every turn fails, or the shared write
// fails, none is done. Every write is idempotent, so a turn ingested
// again after a crash writes nothing twice: memory ids derive from the
// request id (or the turn id), and turn-log rows are keyed by the turn id.
//
// A turn handed out more than Config.MaxTurnAttempts times is parked (see
// park) and counts as done; one handed out more than twice (it failed, or
// its worker died, with it) is ingested in a round of its own, so a turn
// that keeps failing never takes the shared write of the others with it.
func (q *ingester) ingestTurns(ctx context.Context, s memory.Scope, turns []*memory.Turn) ([]string, error) {
	start := time.Now()
	defer func() { q.met.jobLatency.WithLabelValues(kindIngest).Observe(time.Since(start).Seconds()) }()
	var ids []string
	var firstErr error
	failed := 0
	retried := func(t *memory.Turn) bool { return t.Attempts > 2 }
	for len(turns) > 0 {
		if turns[0].Attempts > q.maxTurnAttempts() {
			if err := q.park(ctx, s, turns[0]); err != nil {
				return ids, err
			}
			ids = append(ids, turns[0].ID)
			turns = turns[1:]
			continue
		}
		// A forget is ingested after what came before it is written: the
		// events and turn-log rows it must erase exist by then.
		n := 1
		for !retried(turns[0]) && n < len(turns) && !q.isForget(turns[n]) && !retried(turns[n]) {
			n++
		}
		done, nf, err := q.ingestRound(ctx, s, turns[:n])
		if err != nil && len(done) == 0 && nf == 0 {
			if !retried(turns[0]) {
				// The shared write failed: nothing of this part is done.
				return ids, err
			}
			// A retried turn failed alone: the turns after it go on.
			nf = 1
		}
		ids = append(ids, done...)
		failed += nf
		firstErr = cmp.Or(firstErr, err)
		turns = turns[n:]
	}
	if failed > 0 {
		q.log.WarnContext(ctx, "ingest: turns failed, to be retried", "failed", failed, "err", firstErr)
		return ids, firstErr
	}
	return ids, nil
}

// park sets aside a turn that failed too often: its turn-log row (when
// the turn log is on) and an audit row ("park", naming the turn) are
// written, the caller completes it like an ingested one, and the metric
// and an error log tell the operator. Its memories are not made; the
// turn log keeps its text for an operator (or reextract) to look at.
func (q *ingester) park(ctx context.Context, s memory.Scope, t *memory.Turn) error {
	tl := *t
	if tl.Time.IsZero() {
		tl.Time = q.now()
	}
	err := q.together(ctx, func(ctx context.Context) error {
		if q.pol.Ingest.TurnLog {
			if err := q.cfg.Store.AppendTurn(ctx, &tl); err != nil {
				return fmt.Errorf("append parked turn: %w", err)
			}
		}
		return q.audit(ctx, s, "background", "park", "", "", "",
			fmt.Sprintf("turn %s (request %s) parked after %d attempts", t.ID, t.RequestID, t.Attempts-1))
	})
	if err != nil {
		return fmt.Errorf("park turn: %w", err)
	}
	q.met.parked.Inc()
	q.met.nParked.Add(1)
	q.log.ErrorContext(ctx, "ingest: turn parked after repeated failures", "turn", t.ID, "request_id", t.RequestID, "attempts", t.Attempts-1)
	return nil
}

func (q *ingester) isForget(t *memory.Turn) bool {
	if t.Intent != memory.IntentNone {
		return t.Intent == memory.IntentForget
	}
	return q.gate.Intent(t.User) == memory.IntentForget
}

// ingestRound ingests turns with one shared write; it returns the ids
// done and how many turns failed on their own.
func (q *ingester) ingestRound(ctx context.Context, s memory.Scope, turns []*memory.Turn) ([]string, int, error) {
	b := &ingestBatch{sessions: map[string]*memory.Turn{}}
	var err error
	if b.uses, err = q.usageFeedback(ctx, s, turns); err != nil {
		// Nothing of the round is written yet: it is retried whole.
		return nil, 0, fmt.Errorf("usage feedback: %w", err)
	}
	var done []memory.Turn
	var firstErr error
	failed := 0
	for _, src := range turns {
		pace(ctx)
		t := *src
		if t.RequestID == "" && t.ID != "" {
			// A stable key for the turn's memories: an import without
			// request ids is ingested idempotently too.
			t.RequestID = "turn-" + t.ID
		}
		if err := q.ingestTurn(ctx, &t, b); err != nil {
			failed++
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		done = append(done, t)
	}
	if len(done) == 0 && firstErr != nil {
		return nil, failed, firstErr
	}
	var log []memory.Turn
	if q.pol.Ingest.TurnLog {
		log = done
	}
	if err := q.flushEvents(ctx, s, b, log); err != nil {
		return nil, 0, err
	}
	if err := q.ses.scheduleSessions(ctx, slices.Collect(maps.Values(b.sessions))); err != nil {
		return nil, 0, err
	}
	q.met.ingested.Add(float64(len(done)))
	q.met.nIngested.Add(int64(len(done)))
	ids := make([]string, len(done))
	for i := range done {
		ids[i] = done[i].ID
	}
	return ids, failed, firstErr
}

// ingestBatch collects what one job writes together.
type ingestBatch struct {
	events   []*memory.Memory
	sessions map[string]*memory.Turn // newest turn per session
	// uses are the injected memories the round's replies used: touched
	// with the round's other writes, so a round retried after a failure
	// does not count them twice.
	uses memory.Uses
}

// ingestTurn handles one turn: feedback, explicit instructions, noise,
// facts (written at once), and leaves its event in b.
func (q *ingester) ingestTurn(ctx context.Context, t *memory.Turn, b *ingestBatch) error {
	t.User = StripFence(t.User)
	t.Assistant = StripFence(t.Assistant)
	t.Context = StripFence(t.Context)
	if t.Time.IsZero() {
		t.Time = q.now()
	}
	s := t.Scope
	intent := t.Intent
	if intent == memory.IntentNone {
		intent = q.gate.Intent(t.User)
	}
	switch intent {
	case memory.IntentRemember:
		defer q.invalidate(s)
		return q.exp.explicitRemember(ctx, t)
	case memory.IntentForget:
		defer q.invalidate(s)
		defer q.forgotten(s)
		return q.exp.explicitForget(ctx, t)
	}
	// A bare greeting is not noise for the request gate (it skips recall
	// for its own reason) but carries nothing worth keeping either —
	// unless the reply does: "Hey! How have you been?" answered by "Swamped:
	// the kids, and I start the new job Monday" is worth an event.
	// A chat round without user text is a tool result fed back: nothing
	// was said, no event. An imported turn without user text is history
	// the operator handed over (the other party's words) and is kept when
	// informative.
	empty := strings.TrimSpace(t.User) == ""
	if empty && t.Arm != importArm {
		q.met.dropped.WithLabelValues("empty").Inc()
		return nil
	}
	if class, noise := q.gate.Classify(t.User); (noise || class == gate.ClassGreeting || empty) &&
		Informativeness(t.Assistant) < keepReplyValue {
		q.met.dropped.WithLabelValues(cmpStr(class, "empty")).Inc()
		return nil
	}
	if t.Session != "" {
		b.sessions[t.Session] = t
	}
	found := q.turnFacts(t)
	ms := make([]*memory.Memory, len(found))
	texts := make([]string, len(found))
	for i, f := range found {
		ms[i] = q.factMemory(t, f, memory.SourceExtracted, stableID(t.RequestID, "fact", fmt.Sprint(i)))
		texts[i] = ms[i].Text
	}
	if len(texts) > 1 {
		// The turn's facts in one embedder call (reconcile embeds a fact
		// it is handed without a vector, one call each).
		vecs, err := q.cfg.Embedder.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("reconcile fact: embed fact: %w", err)
		}
		for i, m := range ms {
			m.Embedding = vecs[i]
		}
	}
	for i := range found {
		m, f := ms[i], found[i]
		fp := &f
		if m.Tier == memory.TierProfile {
			defer q.invalidate(s) // the request path caches the profile
		}
		if _, err := q.rec.reconcile(ctx, s, m, fp, "background"); err != nil {
			return fmt.Errorf("reconcile fact: %w", err)
		}
	}
	if c, ok := facts.ExtractCorrection(t.User); ok {
		if err := q.rec.correct(ctx, t, c); err != nil {
			return fmt.Errorf("correction: %w", err)
		}
	} else if v, ok := facts.ExtractCorrectionNew(t.User); ok && len(found) == 0 {
		if err := q.rec.correctLatest(ctx, t, v); err != nil {
			return fmt.Errorf("correction: %w", err)
		}
	}
	if len(found) > 0 && !slices.ContainsFunc(found, func(f Fact) bool { return f.Note && !f.Restates }) && factsCoverMessage(t.User, found) {
		return nil
	}
	// A turn that only asks states nothing: it may still be kept as an
	// event for its reply, but never starts or joins a cluster.
	if ev := q.turnEvent(t, len(found)); ev != nil {
		b.events = append(b.events, ev)
	}
	return nil
}

// importArm marks turns that came in through the admin turn import.
const importArm = "import"

// keepReplyValue is the Informativeness a reply needs for a turn whose
// user message is noise, a greeting or empty to be kept as an event.
const keepReplyValue = 0.3

func cmpStr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// factsCoverMessage reports whether the facts say all the message says:
// a one-sentence statement needs no event beside its fact. A fact that
// only names a person ("The user has a sister named Jo.") says who, not
// what the sentence says of them: it stands for a sentence only when the
// sentence says little else (half its content words are in the fact), so
// "Yesterday I went hiking at Mount Tam with my sister Jo" keeps its
// event, and "I have a sister named Jo" needs none.
func factsCoverMessage(text string, found []Fact) bool {
	sents := splitSentences(text)
	n := 0
	for _, f := range found {
		if !f.Note && facts.IsPerson(f.Attribute) && !slices.ContainsFunc(sents, func(s string) bool {
			return coverage(s, f.Text) >= 0.5
		}) {
			continue
		}
		n++
	}
	return len(sents) <= n
}

func (q *core) factMemory(t *memory.Turn, f Fact, src memory.Source, id string) *memory.Memory {
	tier := memory.TierSemantic
	if !f.Note && factsIsProfile(f) {
		tier = memory.TierProfile // identity and standing constraints: every request
	}
	key := ""
	if !f.Note {
		key = f.Key()
	}
	var expires *time.Time
	if !f.Expires.IsZero() {
		e := f.Expires // a temporary state ("in Tokyo this week")
		expires = &e
	}
	return &memory.Memory{
		ID:         id,
		Scope:      t.Scope,
		Tier:       tier,
		Text:       f.Text,
		ExpiresAt:  expires,
		Context:    f.Context,
		Value:      0.6,
		Confidence: 0.7,
		Source:     src,
		Key:        key,
		Session:    t.Session,
		API:        t.API,
		Provenance: memory.Provenance{RequestIDs: union(nil, t.RequestID), TurnRefs: union(nil, t.Refs...)},
		CreatedAt:  t.Time,
		LastUsedAt: t.Time,
		ValidFrom:  f.ValidFrom,
	}
}

// eventText is how a turn reads as an event memory: relative dates are
// written out against the turn's own time ("yesterday (9 Mar 2026)"), so
// the event still says when things happened when read later.
func (q *ingester) eventText(t *memory.Turn) string {
	u := text.AnnotateDates(strings.TrimSpace(t.User), t.Time, q.loc())
	// Only the reply's first eventReplyRunes are kept: its dates are
	// read in them and a margin for a date that begins inside them (an
	// annotation only inserts text), not in a long answer's whole text.
	a := eventReply(strings.TrimSpace(t.Assistant), t.Time, q.loc())
	if a == "" {
		return u
	}
	return u + "\nAssistant: " + a
}

// eventReply is the part of a reply an event keeps, its dates annotated:
// truncate(text.AnnotateDates(a), eventReplyRunes), reading only as much
// of a as that needs.
func eventReply(a string, at time.Time, loc *time.Location) string {
	return truncate(text.AnnotateDates(runePrefix(a, eventReplyRunes+replyDateMargin), at, loc), eventReplyRunes)
}

// eventReplyRunes is how much of a reply an event keeps; replyDateMargin
// is how far past it a relative date that begins inside it, and the words
// read after it ("the 14th of May"), may reach.
const (
	eventReplyRunes = 400
	replyDateMargin = 100
)

// runePrefix is s's first n runes (s when shorter).
func runePrefix(s string, n int) string {
	if len(s) <= n { // n runes take at least n bytes
		return s
	}
	k := 0
	for i := range s {
		if k == n {
			return s[:i]
		}
		k++
	}
	return s
}

// eventContext is what an event is found by besides its text: the day it
// happened ("8 May 2023", so "what did I do in May" finds it) and the
// exchange it answered (the turn's Context), whose words a short reply
// ("yes, last weekend") lacks.
func eventContext(t *memory.Turn) string {
	d := t.Time.UTC().Format("2 January 2006")
	if c := strings.TrimSpace(t.Context); c != "" {
		return d + "\n" + c
	}
	return d
}

func (q *ingester) eventMemory(t *memory.Turn) *memory.Memory {
	id := stableID(t.RequestID, "event")
	if t.RequestID == "" {
		id = memory.NewID()
	}
	return &memory.Memory{
		ID:      id,
		Scope:   t.Scope,
		Tier:    memory.TierEvent,
		Text:    q.eventText(t),
		Context: eventContext(t),
		// Valued by the whole turn: an informative reply (or an imported
		// assistant-only turn) is not chatter for decay to archive.
		Value:      Informativeness(t.User + "\n" + t.Assistant),
		Confidence: 1,
		Source:     memory.SourceEvent,
		Session:    t.Session,
		API:        t.API,
		Provenance: memory.Provenance{RequestIDs: union(nil, t.RequestID), TurnRefs: union(nil, t.Refs...)},
		CreatedAt:  t.Time,
		LastUsedAt: t.Time,
		ValidFrom:  t.Time,
	}
}

// flushEvents embeds the batch's events in one call, writes them and the
// turns to log in one group commit, then checks the new events for
// repeated patterns.
func (q *ingester) flushEvents(ctx context.Context, s memory.Scope, b *ingestBatch, log []memory.Turn) error {
	// A request id twice in one job (a client's retry) is one event.
	seen := make(map[string]bool, len(b.events))
	evs := make([]*memory.Memory, 0, len(b.events))
	for _, m := range b.events {
		if !seen[m.ID] {
			seen[m.ID] = true
			evs = append(evs, m)
		}
	}
	if len(evs) == 0 && len(log) == 0 && b.uses.Empty() {
		return nil
	}
	var near map[string][]memory.Candidate
	if len(evs) > 0 {
		pace(ctx)
		texts := make([]string, len(evs))
		for i, m := range evs {
			// The whole event, reply included: it says as much as the
			// user's words (LoCoMo dev, end to end: R@5 0.468 → 0.563
			// against the user text alone). Not the context: consecutive
			// turns share it, so their vectors drew together and
			// consolidation folded neighbours into clusters (LLM calls per
			// turn 0.078 → 0.145, R@5 0.506); lexical search has it.
			texts[i] = embedText(m.Text)
		}
		vecs, err := q.cfg.Embedder.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed events: %w", err)
		}
		for i, m := range evs {
			m.Embedding = vecs[i]
		}
		if evs, near, err = q.dedupEvents(ctx, s, evs); err != nil {
			return err
		}
	}
	// One hand-over to the group writer per job: each is a wait for a
	// commit shared with the other running jobs.
	err := q.writer.write(ctx, len(evs)+len(log), func(ctx context.Context) error {
		var err error
		if evs, err = q.insertNew(ctx, s, evs); err != nil {
			return err
		}
		if err := q.appendTurns(ctx, log); err != nil {
			return err
		}
		return q.touchUses(ctx, s, &b.uses)
	})
	unpaced(ctx) // the wait for the shared commit is not this job's work
	if err != nil || len(evs) == 0 {
		return err
	}
	q.met.memories.WithLabelValues(string(memory.TierEvent)).Add(float64(len(evs)))
	return q.clu.clusterBatchNear(ctx, evs, near)
}

// turnsAppender is a store that writes many turn-log rows in one
// statement (PostgreSQL: one joined call of the group commit for a
// round's turns instead of one a turn).
type turnsAppender interface {
	AppendTurns(ctx context.Context, ts []*memory.Turn) error
}

// appendTurns writes the turns to the turn log, in one call when the
// store can.
func (q *ingester) appendTurns(ctx context.Context, log []memory.Turn) error {
	if len(log) == 0 {
		return nil
	}
	if a, ok := q.cfg.Store.(turnsAppender); ok {
		ts := make([]*memory.Turn, len(log))
		for i := range log {
			ts[i] = &log[i]
		}
		if err := a.AppendTurns(ctx, ts); err != nil {
			return fmt.Errorf("append turns: %w", err)
		}
		return nil
	}
	for i := range log {
		if err := q.cfg.Store.AppendTurn(ctx, &log[i]); err != nil {
			return fmt.Errorf("append turn: %w", err)
		}
	}
	return nil
}

// insertNew writes the events in one transaction and returns them. The
// first attempt writes without reading: the events are new unless a retry
// (after a crash or a failed step) or a re-import wrote some before. When
// the insert fails, the events already stored are left out and the rest
// written; the result then holds only those.
func (q *ingester) insertNew(ctx context.Context, s memory.Scope, evs []*memory.Memory) ([]*memory.Memory, error) {
	if len(evs) == 0 {
		return nil, nil
	}
	err := q.cfg.Store.Insert(ctx, s, evs...)
	if err == nil {
		return evs, nil
	}
	ids := make([]string, len(evs))
	for i, m := range evs {
		ids[i] = m.ID
	}
	have, gerr := q.cfg.Store.GetMany(ctx, s, ids)
	if gerr != nil {
		return nil, errors.Join(fmt.Errorf("insert events: %w", err), fmt.Errorf("get events: %w", gerr))
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("insert events: %w", err)
	}
	exists := make(map[string]bool, len(have))
	for _, m := range have {
		exists[m.ID] = true
	}
	var fresh []*memory.Memory
	for _, m := range evs {
		if !exists[m.ID] {
			fresh = append(fresh, m)
		}
	}
	if len(fresh) == 0 {
		return nil, nil
	}
	if err := q.cfg.Store.Insert(ctx, s, fresh...); err != nil {
		return nil, fmt.Errorf("insert events: %w", err)
	}
	return fresh, nil
}

// clusterBatch checks each new event for a repeated pattern and enqueues
// the clusters found in one insert. Two events of the batch naming the
// same cluster (its oldest member) enqueue it once, as River's uniqueness
// would have kept only the first anyway.
func (q *clusterer) clusterBatch(ctx context.Context, evs []*memory.Memory) error {
	return q.clusterBatchNear(ctx, evs, nil)
}

// clusterBatchNear is clusterBatch with each event's neighbours found
// before the batch was written (near, by event id; see dedupEvents): the
// batch's own events are added to them, which is what a search after the
// write would have returned, without a second search per event (on
// PostgreSQL each is a round trip). An event without an entry is searched.
func (q *clusterer) clusterBatchNear(ctx context.Context, evs []*memory.Memory, near map[string][]memory.Candidate) error {
	var params []river.InsertManyParams
	seen := map[string]bool{}
	terms := userTerms{}
	for _, m := range evs {
		if terms.onlyAsks(m) {
			continue // questions are not a topic to consolidate
		}
		pace(ctx)
		var cands []memory.Candidate
		if n, ok := near[m.ID]; ok {
			cands = withSiblings(m, n, evs, q.clusterLimit())
		}
		args, ok, err := q.clusterOf(ctx, m, terms, cands)
		if err != nil {
			return err
		}
		if !ok || seen[args.ClusterKey] {
			continue
		}
		seen[args.ClusterKey] = true
		params = append(params, river.InsertManyParams{Args: args, InsertOpts: consolidateOpts(args.Scope)})
	}
	if len(params) == 0 {
		return nil
	}
	if _, err := q.client.InsertMany(ctx, params); err != nil {
		return fmt.Errorf("enqueue consolidate: %w", err)
	}
	return nil
}

// consolidateOpts are a Consolidate job's insert options: unique by
// cluster key, tagged for a user's deletion.
func consolidateOpts(s memory.Scope) *river.InsertOpts {
	return &river.InsertOpts{
		Queue:       queueConsolidate,
		Tags:        []string{scopeTag(s), userTag(s.User)},
		MaxAttempts: 5,
		UniqueOpts:  river.UniqueOpts{ByArgs: true},
	}
}

// isLocalEmbedder: the local hashed embedder has its own calibrated
// thresholds (its similarities run lower than a semantic model's).
func (q *core) isLocalEmbedder() bool {
	return strings.HasPrefix(q.cfg.Embedder.Model(), "local")
}

func (q *core) clusterThreshold() float64 {
	if q.isLocalEmbedder() {
		return q.pol.Consolidation.LocalClusterThreshold
	}
	return q.pol.Consolidation.ClusterThreshold
}

// embedText is what an event's vector is made from: the user's message and
// the reply, without the "Assistant:" label every event carries (with the
// local embedder the shared label alone lifted unrelated events' cosine
// from 0.08 to 0.24).
func embedText(eventText string) string {
	u, a, ok := strings.Cut(eventText, "\nAssistant: ")
	if !ok {
		return eventText
	}
	return u + "\n" + a
}

// minUserOverlap is the share of content terms two events' user messages
// must have in common (the larger of the two directions) to join one
// cluster.
const minUserOverlap = 1.0 / 3

// userOverlap is the larger share of one event's user-message content
// terms found in the other's.
func userOverlap(a, b *memory.Memory) float64 {
	ua, ub := userPart(a.Text), userPart(b.Text)
	return max(coverage(ua, ub), coverage(ub, ua))
}

// userTerms caches the content terms of events' user messages for the
// cluster checks of one batch, where the same siblings come back for
// event after event (an event's text never changes: ids key it).
type userTerms map[string]*termSet

type termSet struct {
	list []string
	set  map[string]bool
	asks int8 // text.OnlyAsks of the user's part: 0 not read yet, 1 no, 2 yes
}

// onlyAsks is text.OnlyAsks(userPart(m.Text)), read once per memory: a
// round's events share many neighbours.
func (u userTerms) onlyAsks(m *memory.Memory) bool {
	ts := u.of(m)
	if ts.asks == 0 {
		ts.asks = 1
		if text.OnlyAsks(userPart(m.Text)) {
			ts.asks = 2
		}
	}
	return ts.asks == 2
}

func (u userTerms) of(m *memory.Memory) *termSet {
	if ts, ok := u[m.ID]; ok {
		return ts
	}
	ts := &termSet{list: contentTerms(userPart(m.Text))}
	ts.set = make(map[string]bool, len(ts.list))
	for _, t := range ts.list {
		ts.set[t] = true
	}
	u[m.ID] = ts
	return ts
}

// overlap is userOverlap(a, b) from cached terms.
func (u userTerms) overlap(a, b *memory.Memory) float64 {
	ta, tb := u.of(a), u.of(b)
	return max(ta.coveredBy(tb), tb.coveredBy(ta))
}

// coveredBy is coverage over cached terms: the share of t's terms in o.
func (t *termSet) coveredBy(o *termSet) float64 {
	if len(t.list) == 0 {
		return 0
	}
	n := 0
	for _, w := range t.list {
		if o.set[w] {
			n++
		}
	}
	return float64(n) / float64(len(t.list))
}

// clusterOf returns the Consolidate job for the new event's cluster when
// it has enough unconsolidated siblings. The cluster key is the oldest
// member, so every member of one cluster names the same job (River unique).
func (q *clusterer) clusterOf(ctx context.Context, ev *memory.Memory, terms userTerms, cands []memory.Candidate) (ConsolidateArgs, bool, error) {
	need := q.pol.Consolidation.ClusterMin - 1
	if cands == nil {
		var err error
		cands, err = q.cfg.Store.VectorSearch(ctx, ev.Scope, ev.Embedding, memory.SearchOptions{
			Limit: q.clusterLimit(), Tiers: []memory.Tier{memory.TierEvent}, ExcludeConsolidated: true, At: ev.CreatedAt,
			ReadOnly: true, // the candidates are compared, never changed
		})
		if err != nil {
			return ConsolidateArgs{}, false, fmt.Errorf("cluster search: %w", err)
		}
	}
	th := q.clusterThreshold()
	members := []*memory.Memory{ev}
	// A cluster must be cohesive: each member close to every other one,
	// not a chain of events that each share one word with the new one.
	// Events are embedded whole, and a reply that repeats earlier notes
	// is close to each of them: the users' own words must overlap too, so
	// a cluster is a topic the user keeps coming back to.
	apart := func(a, b *memory.Memory) bool {
		return memory.Cosine(a.Embedding, b.Embedding) < th || terms.overlap(a, b) < minUserOverlap
	}
	for _, c := range cands {
		if c.Memory.ID == ev.ID || c.Score < th || c.Memory.ConsolidatedAt != nil || terms.overlap(ev, c.Memory) < minUserOverlap || terms.onlyAsks(c.Memory) {
			continue
		}
		if !slices.ContainsFunc(members[1:], func(m *memory.Memory) bool { return apart(m, c.Memory) }) {
			members = append(members, c.Memory)
		}
	}
	if len(members)-1 < need {
		return ConsolidateArgs{}, false, nil
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
	return ConsolidateArgs{Scope: ev.Scope, ClusterKey: ev.Scope.String() + "/" + ids[0], EventIDs: ids}, true, nil
}

// clusterLimit is how many neighbours a cluster check reads: a few more
// than needed leave room for the cohesion check; every candidate costs a
// row decode.
func (q *core) clusterLimit() int { return q.pol.Consolidation.ClusterMin - 1 + 6 }

// withSiblings is the cluster search's answer for ev from the neighbours
// found before its batch was written: the unconsolidated ones, and the
// batch's other events, the best limit by similarity.
func withSiblings(ev *memory.Memory, near []memory.Candidate, batch []*memory.Memory, limit int) []memory.Candidate {
	out := make([]memory.Candidate, 0, len(near)+len(batch))
	seen := make(map[string]bool, len(near)+len(batch))
	for _, c := range near {
		if c.Memory.ConsolidatedAt == nil && !seen[c.Memory.ID] {
			seen[c.Memory.ID] = true
			out = append(out, c)
		}
	}
	for _, m := range batch {
		if m.ID != ev.ID && !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, memory.Candidate{Memory: m, Score: memory.Cosine(ev.Embedding, m.Embedding)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// usageFeedback finds the injected memories each reply of a round used,
// to be reinforced with the round's writes (touchUses), and counts a miss
// for the others by moving the scope's adaptive gate threshold, for the
// whole round at once: one read of the memories, one threshold update.
func (q *ingester) usageFeedback(ctx context.Context, s memory.Scope, turns []*memory.Turn) (memory.Uses, error) {
	var ids []string
	seen := map[string]bool{}
	for _, t := range turns {
		for _, id := range t.Injected {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	var uses memory.Uses
	if len(ids) == 0 {
		return uses, nil
	}
	ms, err := q.readMany(ctx, s, ids)
	if err != nil {
		return uses, err
	}
	byID := make(map[string]*memory.Memory, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
	}
	var usage []gate.Usage
	for _, t := range turns {
		if len(t.Injected) == 0 {
			continue
		}
		reply := StripFence(t.Assistant)
		at := cmp.Or(t.Time, q.now())
		var words map[string]bool
		var replyVec []float32
		var used []string
		u := gate.Usage{}
		for _, id := range t.Injected {
			m := byID[id]
			if m == nil {
				continue
			}
			if words == nil {
				words = text.WordSet(reply)
			}
			ok := text.CoverageIn(m.Text, words) >= q.pol.Ingest.UsedThreshold
			if !ok && len(m.Embedding) > 0 && reply != "" {
				if replyVec == nil {
					v, err := q.cfg.Embedder.Embed(ctx, []string{reply})
					if err != nil {
						return uses, err
					}
					replyVec = v[0]
				}
				ok = memory.Cosine(m.Embedding, replyVec) >= max(q.pol.Ingest.UsedThreshold, q.reconcileDup())
			}
			if ok {
				used = append(used, id)
			} else {
				u.Unused++
			}
		}
		u.Used = len(used)
		uses.Add(used, at)
		usage = append(usage, u)
	}
	a := q.pol.Gate.Adaptive
	if !a.Enabled || len(ms) == 0 {
		return uses, nil
	}
	if q.cfg.Thresholds != nil {
		// Through the request path's cache, so this process sees the new
		// threshold at once.
		return uses, q.cfg.Thresholds.FeedbackAll(ctx, s, usage)
	}
	th, ok, err := q.cfg.Store.Threshold(ctx, s)
	if err != nil {
		return uses, err
	}
	if !ok {
		th = q.pol.Gate.MinScore
	}
	nt := th
	for _, u := range usage {
		nt = gate.Adaptive{}.Next(nt, u.Used, u.Unused, a)
	}
	if nt == th {
		return uses, nil
	}
	return uses, q.cfg.Store.SetThreshold(ctx, s, nt)
}

// cachedRows is a store whose search engine keeps recently read rows
// (search.Searches.CachedRows).
type cachedRows interface {
	CachedRows(sc memory.Scope, ids []string) (map[string]*memory.Memory, []string, error)
}

// readMany reads the memories ids to be read, not written back: from the
// store's row cache where it holds them (the memories a reply used were
// injected moments ago, so recall just read them; a cluster's events were
// read by the search that found the cluster), the rest from the store.
func (q *core) readMany(ctx context.Context, s memory.Scope, ids []string) ([]*memory.Memory, error) {
	c, ok := q.cfg.Store.(cachedRows)
	if !ok {
		return q.cfg.Store.GetMany(ctx, s, ids)
	}
	found, miss, err := c.CachedRows(s, ids)
	if err != nil {
		return nil, err
	}
	if len(miss) > 0 {
		read, err := q.cfg.Store.GetMany(ctx, s, miss)
		if err != nil {
			return nil, err
		}
		for _, m := range read {
			found[m.ID] = m
		}
	}
	// In the order given, as GetMany returns them.
	ms := make([]*memory.Memory, 0, len(ids))
	for _, id := range ids {
		if m := found[id]; m != nil {
			ms = append(ms, m)
			delete(found, id) // an id given twice comes once, as from GetMany
		}
	}
	return ms, nil
}

// touchUses records the uses usageFeedback found (Touch: hits and last
// use, which ranking and decay read).
func (q *ingester) touchUses(ctx context.Context, s memory.Scope, uses *memory.Uses) error {
	for touch, at := range uses.Touches {
		if err := q.cfg.Store.Touch(ctx, s, touch, at); err != nil {
			return err
		}
		q.met.reinforced.Add(float64(len(touch)))
	}
	return nil
}

// dedupEvents leaves out the events that repeat a live one (the same
// question asked again, a statement restated): the stored event is
// reinforced instead, with the new turn's provenance.
//
// The one search per event reads enough neighbours for the cluster check
// too (returned by event id, see clusterBatchNear): the nearest three
// decide a repeat.
func (q *ingester) dedupEvents(ctx context.Context, s memory.Scope, evs []*memory.Memory) ([]*memory.Memory, map[string][]memory.Candidate, error) {
	out := evs[:0:0]
	near := make(map[string][]memory.Candidate, len(evs))
	inBatch := make(map[string]bool, len(evs)) // one job's exact repeats
	for _, ev := range evs {
		pace(ctx)
		k := strings.Join(sortedUnique(contentTerms(ev.Text)), " ")
		if inBatch[k] {
			continue
		}
		inBatch[k] = true
		// Consolidated events count as repeats but not as cluster
		// members: three more leave the cluster check its share.
		// Read-only: the candidates (the store's cached rows, not copies)
		// are compared here and in the cluster check; the one repeat
		// reinforced is copied before it is changed.
		cands, err := q.cfg.Store.VectorSearch(ctx, s, ev.Embedding, memory.SearchOptions{
			Limit: q.clusterLimit() + 3, Tiers: []memory.Tier{memory.TierEvent}, At: ev.CreatedAt, ReadOnly: true,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("dedup search: %w", err)
		}
		near[ev.ID] = cands
		var dup *memory.Memory
		for _, c := range cands[:min(3, len(cands))] {
			// Restatements embed close; the word check decides.
			if c.Memory.ID != ev.ID && c.Score >= minRepeatSim && sameTurn(c.Memory, ev) {
				dup = c.Memory
				break
			}
		}
		if dup == nil {
			out = append(out, ev)
			continue
		}
		if err := q.rec.reinforce(ctx, s, dup.Clone(), ev, "background"); err != nil {
			return nil, nil, err
		}
	}
	return out, near, nil
}

// sameTurn reports whether two events say the same: their user messages
// share nearly all content words (at least two), and so do their replies.
func sameTurn(a, b *memory.Memory) bool {
	ua, ub := userPart(a.Text), userPart(b.Text)
	ta, tb := contentTerms(ua), contentTerms(ub)
	// A short message restated ("how do I convert Celsius to Fahrenheit
	// again") may differ by a word; a long one that differs by several
	// is a topic coming back with new details, which consolidation reads.
	need := 0.75
	if max(len(ta), len(tb)) > 6 {
		need = 0.9
	}
	if len(ta) < 2 || len(tb) < 2 || jaccard(ta, tb) < need || !slices.Equal(numbers(ta), numbers(tb)) {
		return false // a different number is a different statement
	}
	ra, rb := contentTerms(replyPart(a.Text)), contentTerms(replyPart(b.Text))
	if len(ra) == 0 && len(rb) == 0 {
		return true // no reply, or one that says nothing ("Noted.")
	}
	return jaccard(ra, rb) >= 0.5
}

func replyPart(eventText string) string {
	_, a, _ := strings.Cut(eventText, "\nAssistant: ")
	return a
}

func jaccard(a, b []string) float64 {
	sa := map[string]bool{}
	for _, t := range a {
		sa[t] = true
	}
	sb := map[string]bool{}
	inter := 0
	for _, t := range b {
		if !sb[t] {
			sb[t] = true
			if sa[t] {
				inter++
			}
		}
	}
	u := len(sa) + len(sb) - inter
	if u == 0 {
		return 0
	}
	return float64(inter) / float64(u)
}

// numbers are the terms with a digit, sorted.
func numbers(ts []string) []string {
	var out []string
	for _, t := range ts {
		if strings.ContainsAny(t, "0123456789") {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// minRepeatSim is the similarity below which two events are not checked
// for being the same turn.
const minRepeatSim = 0.5

func sortedUnique(ts []string) []string {
	sort.Strings(ts)
	return slices.Compact(ts)
}
