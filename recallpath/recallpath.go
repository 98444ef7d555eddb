// Package recallpath is the synchronous half of memory, wired together: for
// each chat request it asks the gate whether recall is worth it, recalls the
// best memories, renders the fenced section and places it in the messages,
// then records the decision. It implements proxy.Rewriter (and
// proxy.Observer, which sees every chat request, the off arm included).
//
// Nothing here may break a chat: the proxy fails open on any error this
// package returns. Writes that are not needed to answer (access touches and
// recall-log rows) go to a background writer owned by the Hook, off the hot
// path.
package recallpath

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/trace"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/ristretto/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/inject"
	"github.com/memproxy/memproxy/internal/loadshed"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
	"github.com/memproxy/memproxy/text"
)

// Writer is what the hook writes off the hot path.
type Writer interface {
	Touch(ctx context.Context, s memory.Scope, ids []string, t time.Time) error
	AppendRecall(ctx context.Context, r *memory.RecallRecord) error
}

// Batcher is a Writer that can commit many writes at once: Touch and
// AppendRecall called with the context Batch passes fn are committed
// together when fn returns (both stores; PostgreSQL commits every few
// dozen calls). The background writer then writes each flush window in one
// transaction instead of one per call.
type Batcher interface {
	Batch(ctx context.Context, fn func(ctx context.Context) error) error
}

// flushWindow is how long the background writer gathers writes before it
// commits them together; Flush and Close do not wait for it.
const flushWindow = 50 * time.Millisecond

// touchWindow is how long it gathers touches (hits and last use, which
// only decay and ranking read, on the scale of hours): a store adds up the
// touches of one batch (PostgreSQL writes them in one statement), so a
// memory injected by many requests of the window is written once, and the
// writes the recalls beside them wait behind are fewer (the PostgreSQL 10k
// recall path's p99, BenchmarkRecallPath, docs/benchmarks.md).
const touchWindow = 500 * time.Millisecond

// yieldEvery is how many jobs of a batch run between yields of the
// processor (runtime.Gosched).
const yieldEvery = 16

// maxBatch bounds the writes committed together.
const maxBatch = 512

// Config wires a Hook. Gate, Recaller, Writer and Policy are required.
type Config struct {
	Policy   *policy.Policy
	Gate     *gate.Gate
	Recaller *memory.Recaller
	// Thresholds holds the per-scope adaptive threshold; nil uses the
	// policy's gate.min_score for every scope.
	Thresholds *gate.Thresholds
	Writer     Writer
	Logger     *slog.Logger
	Registry   prometheus.Registerer
	// Queue is the capacity of the background writer (default 4096).
	Queue int
	// Load counts the rewrites in flight, for background work to yield
	// to (loadshed); nil counts nothing.
	Load *loadshed.Gauge
	// ProfileTTL is how long a scope's profile memories are served from
	// memory before the store is asked again (default 5s). Profiles
	// change rarely and are read on every request.
	ProfileTTL time.Duration
}

// Hook is the recall path. Close stops its writer.
type Hook struct {
	cfg      Config
	opts     inject.Options
	log      *slog.Logger
	met      metrics
	profiles *ristretto.Cache[string, *profileEntry]

	work     chan job
	stop     chan struct{}
	done     chan struct{}
	closeOne sync.Once
}

var (
	_ proxy.Rewriter = (*Hook)(nil)
	_ proxy.Observer = (*Hook)(nil)
)

// New starts a Hook and its background writer.
func New(cfg Config) (*Hook, error) {
	if cfg.Policy == nil || cfg.Gate == nil || cfg.Recaller == nil || cfg.Writer == nil {
		return nil, errors.New("recallpath: Policy, Gate, Recaller and Writer are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 4096
	}
	if cfg.ProfileTTL <= 0 {
		cfg.ProfileTTL = 5 * time.Second
	}
	profiles, err := ristretto.NewCache(&ristretto.Config[string, *profileEntry]{
		NumCounters: 100_000, MaxCost: 10_000, BufferItems: 64,
	})
	if err != nil {
		return nil, fmt.Errorf("recallpath: profile cache: %w", err)
	}
	h := &Hook{
		profiles: profiles,
		cfg:      cfg,
		opts:     inject.OptionsFrom(cfg.Policy.Inject, cfg.Policy.Recall),
		log:      cfg.Logger,
		met:      newMetrics(cfg.Registry),
		work:     make(chan job, cfg.Queue),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go h.run()
	return h, nil
}

// Close drains the background writer and stops it. Safe to call twice.
func (h *Hook) Close() {
	h.closeOne.Do(func() {
		close(h.stop)
		h.profiles.Close()
	})
	<-h.done
}

// Rewrite decides, recalls, renders and places the memory section.
func (h *Hook) Rewrite(ctx context.Context, req *proxy.ChatRequest) (*proxy.Rewrite, error) {
	defer h.cfg.Load.Enter()()
	defer trace.StartRegion(ctx, "memproxy.recall").End() // for go tool trace
	start := time.Now()
	rw, rec, err := h.rewrite(ctx, req)
	if err != nil {
		h.met.errors.Inc()
		return nil, err
	}
	rec.OverheadMs = float64(time.Since(start).Microseconds()) / 1000
	rw.Detail = rec
	// Injection counts as access, except in the readonly arm, which must
	// leave memory as it found it (replays, evaluations).
	if len(rw.Injected) > 0 && req.Arm != proxy.ArmReadonly {
		ids, s, at := rw.Injected, req.Scope, req.Time
		h.enqueueJob(job{late: true, write: func(ctx context.Context) {
			if err := h.cfg.Writer.Touch(ctx, s, ids, at); err != nil {
				h.log.Warn("recall: touch injected memories", "request_id", rec.RequestID, "err", err)
			}
		}})
	}
	return rw, nil
}

func (h *Hook) rewrite(ctx context.Context, req *proxy.ChatRequest) (*proxy.Rewrite, *memory.RecallRecord, error) {
	rec := &memory.RecallRecord{
		API: req.API, RequestID: req.RequestID, Scope: req.Scope, Session: req.Session,
		Time: req.Time, Arm: req.Arm, Status: proxy.RecallSkipped,
	}
	if len(req.Messages) == 0 {
		rec.GateReason = "no_messages"
		return &proxy.Rewrite{Status: proxy.RecallSkipped}, rec, nil
	}
	last := req.Messages[len(req.Messages)-1]
	dec := h.cfg.Gate.Decide(gate.View{Role: last.Role, Text: last.Text})
	rec.GateReason = dec.Reason
	rw := &proxy.Rewrite{Status: proxy.RecallSkipped}

	var notes []string
	if last.Role == "user" {
		switch rw.Intent = h.cfg.Gate.Intent(last.Text); rw.Intent {
		case memory.IntentRemember:
			notes = append(notes, h.cfg.Policy.Explicit.RememberNote)
		case memory.IntentForget:
			notes = append(notes, h.cfg.Policy.Explicit.ForgetNote)
		}
	}

	// A request that asks to forget injects nothing recalled: what it
	// forgets must not reach the model in that very request (the
	// background deletes it when the turn is ingested).
	forget := rw.Intent == memory.IntentForget
	if forget {
		dec.Recall = false
	}

	// The profile is small and does not pass through the gate, but a
	// tool-call loop does not run recall again.
	var profile []*memory.Memory
	var pe *profileEntry
	if dec.Reason != gate.ReasonNotUser && !forget {
		p, err := h.profile(ctx, req.Scope)
		if err != nil {
			return nil, rec, fmt.Errorf("profile: %w", err)
		}
		pe, profile = p, p.mems
	}
	// A noise turn ("ok", "thanks") teaches nothing: unless memories go
	// into it (whose use the background would judge), it is not queued.
	noise := !dec.Recall && dec.Reason != gate.ReasonNotUser && rw.Intent == memory.IntentNone

	q := queryText(req.Messages)
	var recalled []*memory.Scored
	if dec.Recall {
		minScore := h.threshold(ctx, req.Scope, dec.Force)
		res, err := h.cfg.Recaller.Recall(ctx, req.Scope, memory.Query{
			Text:     q,
			Exclude:  messageTexts(req.Messages),
			MinScore: minScore,
			// An explicit note needs only the starting threshold.
			ExplicitMinScore: min(h.cfg.Policy.Gate.MinScore, cmp.Or(h.cfg.Policy.Gate.LocalMinScore, h.cfg.Policy.Gate.MinScore)),
			At:               req.Time,
			// Twice top_k: the injector renders at most top_k of them and
			// passes over one too long for the budget for the next.
			TopK: 2 * h.cfg.Policy.Recall.TopK,
		})
		if err != nil {
			return nil, rec, fmt.Errorf("recall: %w", err)
		}
		recalled = res.Selected
		rec.Candidates = res.Ranked
	}

	items := inject.Items(profile, recalled)
	if len(profile) > 0 && !h.cfg.Policy.Recall.ProfileAlways {
		markAside(items[:len(profile)], pe.contentWords(), q)
	}
	leadsAfterFacts(items, profile, recalled)
	if len(items) == 0 && len(notes) == 0 {
		rw.SkipCapture = noise
		return rw, rec, nil
	}
	opts := h.opts
	opts.Notes = notes
	section, used, tokens := inject.Render(items, opts)
	// The proxy places the section in the request's own wire format
	// (policy inject.placement).
	rw.Section = section
	rw.Memories = len(used)
	rw.Injected = make([]string, len(used))
	for i, it := range used {
		rw.Injected[i] = it.ID
	}
	markInjected(rec.Candidates, rw.Injected)
	rec.Injected, rec.InjectedTokens = rw.Injected, tokens
	if len(used) > 0 {
		rw.Status, rec.Status = proxy.RecallInjected, proxy.RecallInjected
	}
	return rw, rec, nil
}

// profileEntry is a scope's cached profile: its memories and, computed
// once for the entry's lifetime instead of on every request, each one's
// content words (markAside). A scope with a few hundred profile
// memories had spent a quarter of its recall's CPU, and nine allocations
// in ten, reading them again per request.
type profileEntry struct {
	mems  []*memory.Memory
	once  sync.Once
	words [][]string // by mems' index
}

// contentWords is each profile memory's text.ContentWords, read once.
func (p *profileEntry) contentWords() [][]string {
	p.once.Do(func() {
		p.words = make([][]string, len(p.mems))
		for i, m := range p.mems {
			p.words[i] = text.ContentWords(m.Text)
		}
	})
	return p.words
}

// profile returns the scope's profile memories, from a short-lived cache.
func (h *Hook) profile(ctx context.Context, s memory.Scope) (*profileEntry, error) {
	key := s.User + "\x00" + s.Namespace
	if p, ok := h.profiles.Get(key); ok {
		return p, nil
	}
	ms, err := h.cfg.Recaller.Profile(ctx, s)
	if err != nil {
		return nil, err
	}
	p := &profileEntry{mems: ms}
	h.profiles.SetWithTTL(key, p, 1, h.cfg.ProfileTTL)
	return p, nil
}

// InvalidateScope drops the cached profile (and adaptive threshold) of a
// scope changed outside the request path, such as by an admin edit or a
// user deletion; namespace "" means every namespace of the user.
func (h *Hook) InvalidateScope(user, namespace string) {
	if namespace == "" {
		h.profiles.Clear()
	} else {
		h.profiles.Del(user + "\x00" + namespace)
	}
	if h.cfg.Thresholds != nil {
		h.cfg.Thresholds.Invalidate(memory.Scope{User: user, Namespace: namespace})
	}
}

// threshold is the scope's adaptive min_score. A forced recall (the user
// referred to the past) uses the policy's forced_min_score instead: the
// user expects memory, and a raised threshold must not hold it back.
func (h *Hook) threshold(ctx context.Context, s memory.Scope, force bool) float64 {
	if force {
		return h.cfg.Policy.Gate.ForcedMinScore
	}
	if h.cfg.Thresholds == nil {
		return h.cfg.Policy.Gate.MinScore
	}
	return h.cfg.Thresholds.Get(ctx, s)
}

// Observe records the request's recall-log row once the proxy is done with
// the rewrite; every chat request gets one, the off arm and fail-open errors
// included, so the A/B report can compare arms.
func (h *Hook) Observe(req *proxy.ChatRequest, rw *proxy.Rewrite, overhead time.Duration) {
	rec, _ := rw.Detail.(*memory.RecallRecord)
	if rec == nil {
		rec = &memory.RecallRecord{
			API: req.API, RequestID: req.RequestID, Scope: req.Scope, Session: req.Session,
			Time: req.Time, Arm: req.Arm, GateReason: rw.Status,
		}
	}
	rec.Status = rw.Status
	rec.OverheadMs = float64(overhead.Microseconds()) / 1000
	if len(rec.Candidates) > maxLoggedCandidates {
		rec.Candidates = rec.Candidates[:maxLoggedCandidates]
	}
	h.enqueueJob(job{rec: rec})
}

// RecallsWriter is a Writer that writes many recall-log rows at once (both
// stores): the background writer hands it a flush window's rows.
type RecallsWriter interface {
	AppendRecalls(ctx context.Context, rs []*memory.RecallRecord) error
}

// appendRecalls writes the recall-log rows of a batch.
func (h *Hook) appendRecalls(ctx context.Context, recs []*memory.RecallRecord) {
	if len(recs) == 0 {
		return
	}
	if w, ok := h.cfg.Writer.(RecallsWriter); ok {
		if err := w.AppendRecalls(ctx, recs); err != nil {
			h.log.Warn("recall: append recall log", "rows", len(recs), "request_id", recs[0].RequestID, "err", err)
		}
		return
	}
	for _, rec := range recs {
		if err := h.cfg.Writer.AppendRecall(ctx, rec); err != nil {
			h.log.Warn("recall: append recall log", "request_id", rec.RequestID, "err", err)
		}
	}
}

// maxLoggedCandidates bounds the ranked list kept per request: enough for
// the request detail view and recall@25.
const maxLoggedCandidates = 25

// Flush waits until every write handed to the background writer before the
// call is done (tests, the evaluation, shutdown).
func (h *Hook) Flush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case h.work <- job{done: done}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// job is one write for the background writer (a recall-log row, or
// another write), or (neither) a Flush waiting for every write before it.
type job struct {
	rec   *memory.RecallRecord
	write func(context.Context)
	done  chan struct{}
	late  bool // a touch: may wait for touchWindow
}

func (j job) flush() bool { return j.rec == nil && j.write == nil }

// enqueue hands work to the background writer; when it is full the work is
// dropped and counted (these writes are reinforcement and observability,
// never the user's data).
func (h *Hook) enqueue(f func(context.Context)) { h.enqueueJob(job{write: f}) }

func (h *Hook) enqueueJob(j job) {
	select {
	case h.work <- j:
	default:
		h.met.dropped.Inc()
		h.log.Warn("recall: background writer full, dropping a write")
	}
}

// run is the background writer: it gathers the writes of a flush window
// (touches: of a touch window) or until a Flush, Close or maxBatch, and
// writes them together.
func (h *Hook) run() {
	defer close(h.done)
	var batch, touches []job
	var window, touchTimer <-chan time.Time
	for {
		select {
		case j := <-h.work:
			switch {
			case j.flush(): // everything before it
				h.write(append(append(touches, batch...), j))
				batch, touches, window, touchTimer = nil, nil, nil, nil
			case j.late:
				if touches = append(touches, j); len(touches) >= maxBatch {
					h.write(touches)
					touches, touchTimer = nil, nil
				} else if touchTimer == nil {
					touchTimer = time.After(touchWindow)
				}
			default:
				if batch = append(batch, j); len(batch) >= maxBatch {
					h.write(batch)
					batch, window = nil, nil
				} else if window == nil {
					window = time.After(flushWindow)
				}
			}
		case <-window:
			h.write(batch)
			batch, window = nil, nil
		case <-touchTimer:
			h.write(touches)
			touches, touchTimer = nil, nil
		case <-h.stop:
			batch = append(touches, batch...)
			for {
				select {
				case j := <-h.work:
					batch = append(batch, j)
				default:
					h.write(batch)
					return
				}
			}
		}
	}
}

// write performs a batch of jobs in order, in one transaction when the
// Writer is a Batcher, then releases the Flushes among them.
func (h *Hook) write(batch []job) {
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	each := func(ctx context.Context) error {
		var recs []*memory.RecallRecord
		for i, j := range batch {
			if j.rec != nil {
				recs = append(recs, j.rec)
			}
			if j.write != nil {
				j.write(ctx)
			}
			if i%yieldEvery == yieldEvery-1 {
				// A batch is hundreds of jobs: a request woken by one
				// (the row cache's lock) is queued on this goroutine's
				// processor and would wait for all of them.
				runtime.Gosched()
			}
		}
		h.appendRecalls(ctx, recs)
		return nil
	}
	if b, ok := h.cfg.Writer.(Batcher); ok {
		if err := b.Batch(ctx, each); err != nil {
			h.log.Warn("recall: commit background writes", "writes", len(batch), "err", err)
		}
	} else {
		_ = each(ctx)
	}
	for _, j := range batch {
		if j.done != nil {
			close(j.done)
		}
	}
}

// leadsAfterFacts takes the lead (inject.Item.Lead) from every recalled
// event older than the newest profile memory that bears on the message
// (not Aside; not a value of a multi-valued slot: memory.Replaces). Recall
// already did so for the facts among its candidates; a profile memory
// comes from the profile, not the searches. A
// lead is raw text from an earlier exchange; once the user stated a fact
// on the topic, what they said about it before is history that the fact
// and its supersede already account for ("I live in Berlin" before "I
// moved to Lisbon"), so it must not come back through an older event's
// lead. The events themselves stay. items are inject.Items(profile,
// recalled).
func leadsAfterFacts(items []inject.Item, profile []*memory.Memory, recalled []*memory.Scored) {
	var newest time.Time
	for i, m := range profile {
		if !items[i].Aside && memory.Replaces(m) && m.CreatedAt.After(newest) {
			newest = m.CreatedAt
		}
	}
	if newest.IsZero() {
		return
	}
	for j, s := range recalled {
		if it := &items[len(profile)+j]; it.Lead != nil && s.Memory.CreatedAt.Before(newest) {
			it.Lead = nil
		}
	}
}

// markAside marks the profile items sharing no content word with the
// message q: they go after the recalled memories (inject.Item.Aside), so a
// standing fact unrelated to the question ("The user is lactose
// intolerant." for "When did Anna move?") does not take the block's first
// tokens on every request. words[i] are profile[i]'s content words
// (text.ContentWords of its text); the message's words are read once.
func markAside(profile []inject.Item, words [][]string, q string) {
	qw := text.ContentWords(q)
	seen := make(map[string]struct{}, len(qw))
	for _, w := range qw {
		seen[w] = struct{}{}
	}
	for i := range profile {
		profile[i].Aside = true
		for _, w := range words[i] {
			if _, ok := seen[w]; ok {
				profile[i].Aside = false
				break
			}
		}
	}
}

// queryText is what recall searches for: the last user message, with the
// previous user message added when the last one is a short follow-up
// ("and her sister?") that means little alone.
func queryText(msgs []proxy.Message) string {
	var q []string
	for i := len(msgs) - 1; i >= 0 && len(q) < 2; i-- {
		if msgs[i].Role != "user" || strings.TrimSpace(msgs[i].Text) == "" {
			continue
		}
		q = append(q, msgs[i].Text)
		if len(q) == 1 && len(strings.Fields(msgs[i].Text)) >= 6 {
			break
		}
		if len(q) == 1 && memory.CountTokens(msgs[i].Text) >= 8 {
			break
		}
	}
	if len(q) == 2 {
		return q[1] + "\n" + q[0]
	}
	if len(q) == 1 {
		return q[0]
	}
	return ""
}

func messageTexts(msgs []proxy.Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		if m.Text != "" {
			out = append(out, m.Text)
		}
	}
	return out
}

func markInjected(c []memory.RankedCandidate, ids []string) {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	for i := range c {
		c[i].Injected = set[c[i].ID]
	}
}
