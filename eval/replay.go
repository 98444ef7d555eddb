package eval

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memproxy/memproxy/eval/locomo"
	"github.com/memproxy/memproxy/inject"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Replayer drives a running memproxy over HTTP, exactly as a client and an
// operator would: past sessions go in through the admin turn-import
// endpoint, decay passes run at the replayed dates, and every question is
// asked through /v1/chat/completions (or /v1/responses or /v1/messages,
// Replayer.API). The same code measures an
// in-process memproxy and a remote deployment.
type Replayer struct {
	// BaseURL is the proxy's root URL (without /v1).
	BaseURL string
	// AdminToken authorises the admin API and the replay clock.
	AdminToken string
	// HTTP is the client used (a 2-minute-timeout client when nil).
	HTTP *http.Client
	// WaitIdle waits for the background queue to drain; nil polls the
	// admin queue view until no job is available or running.
	WaitIdle func(ctx context.Context) error
	// Flush, when set, waits until the proxy has written its recall-log
	// rows (they are written just after each response).
	Flush func(ctx context.Context) error
	// Model is the model name sent upstream ("memproxy-eval" when empty).
	Model string
	// API is the API the questions are asked through: APIChat (when
	// empty), APIResponses or APIMessages.
	API string
	// AnswerModel, when set, makes each question a real one: it is sent
	// as the model with AnswerInstruction, the reply is scored against the
	// gold answer (token F1) and, with Judge, judged. APIKey is sent as
	// the client's bearer key (the proxy forwards it upstream).
	AnswerModel string
	APIKey      string
	Judge       *Judge
	// Concurrency is how many questions are in flight (4 when 0).
	Concurrency int
	// RunID namespaces the replay's users so reruns against a persistent
	// store do not mix ("" picks a random one).
	RunID string
	// Progress, when set, receives one line per step.
	Progress io.Writer
	// Blocks, when set, has the memory block each question's upstream
	// request carried (an in-process upstream); without it the block is
	// rebuilt from the injected memories of the request detail.
	Blocks *BlockRecorder
	// BudgetTokens is the injection budget the BM25 baseline fills
	// (inject.DefaultBudgetTokens when 0), and Guard the guard text that
	// opens its block (the shipped policy's when empty).
	BudgetTokens int
	Guard        string
}

// Arms the evaluation asks in: memory injected without writing, and off.
const (
	ArmReadonly = "readonly"
	ArmOff      = "off"
)

// Report is the evaluation's output: the memory arm's figures at the top
// level and the off arm's under "off".
type Report struct {
	Summary
	Off            Summary `json:"off"`
	Samples        int     `json:"samples"`
	ImportedTurns  int     `json:"imported_turns"`
	ElapsedSeconds float64 `json:"elapsed_s"`
	Target         string  `json:"target"`
	// API is the API the questions were asked through.
	API  string `json:"api"`
	Data string `json:"data,omitempty"`
	// Baselines are answer-in-context and evidence coverage of the
	// baselines the eval computes itself (BaselineBM25Pairs,
	// BaselineEvidenceTurns) on the same questions.
	Baselines map[string]Baseline `json:"baselines"`
	// Junk is what the background kept per ingested turn.
	Junk *Junk `json:"junk,omitempty"`
	// Results are the per-question results of each arm (written by --out).
	Results    []QuestionResult `json:"-"`
	OffResults []QuestionResult `json:"-"`
	// BaselineResults are the per-question results of each baseline.
	BaselineResults map[string][]QuestionResult `json:"-"`
}

// Run replays samples and scores both arms.
func (r *Replayer) Run(ctx context.Context, samples []locomo.Sample) (*Report, error) {
	start := time.Now()
	if r.RunID == "" {
		r.RunID = memory.NewID()[:8]
	}
	before, err := r.queueStats(ctx)
	if err != nil {
		return nil, err
	}
	rep := &Report{Samples: len(samples), Target: r.BaseURL, API: cmp.Or(r.API, APIChat), BaselineResults: map[string][]QuestionResult{}}
	bmOpts := inject.Options{
		BudgetTokens: cmp.Or(r.BudgetTokens, inject.DefaultBudgetTokens),
		Guard:        cmp.Or(r.Guard, policy.Default().Inject.Guard),
	}
	var memories [][]listed
	for i := range samples {
		s := &samples[i]
		n, err := r.importSample(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.ID, err)
		}
		rep.ImportedTurns += n
		// Off last: the off arm may ingest the question turns (policy
		// ab.off_arm_ingests) and must not feed the memory arm.
		on, err := r.ask(ctx, s, ArmReadonly)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.ID, err)
		}
		off, err := r.ask(ctx, s, ArmOff)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.ID, err)
		}
		rep.Results = append(rep.Results, on...)
		rep.OffResults = append(rep.OffResults, off...)
		rep.BaselineResults[BaselineBM25Pairs] = append(rep.BaselineResults[BaselineBM25Pairs], bm25Pairs(s, bmOpts)...)
		rep.BaselineResults[BaselineEvidenceTurns] = append(rep.BaselineResults[BaselineEvidenceTurns], evidenceTurns(s)...)
		// The off arm's questions may be ingested (policy
		// ab.off_arm_ingests): what they leave behind counts too.
		if err := r.waitIdle(ctx); err != nil {
			return nil, err
		}
		ms, err := r.listMemories(ctx, r.user(s))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.ID, err)
		}
		memories = append(memories, ms)
	}
	if r.Flush != nil {
		if err := r.Flush(ctx); err != nil {
			return nil, fmt.Errorf("flush recall log: %w", err)
		}
	}
	after, err := r.queueStats(ctx)
	if err != nil {
		return nil, err
	}
	rep.Summary = Summarize(rep.Results)
	rep.Off = Summarize(rep.OffResults)
	rep.Baselines = map[string]Baseline{}
	for name, rs := range rep.BaselineResults {
		rep.Baselines[name] = summarizeBaseline(name, rs)
	}
	turns := rep.ImportedTurns
	if n := int(after.IngestedTurns - before.IngestedTurns); n > 0 {
		turns = n
	}
	rep.Junk = junkOf(turns, memories)
	if turns := after.IngestedTurns - before.IngestedTurns; turns > 0 {
		calls := float64(after.LLMCalls+after.WouldBeLLMCalls-before.LLMCalls-before.WouldBeLLMCalls) / float64(turns)
		rep.LLMCallsPerTurn = &calls
		rep.Off.LLMCallsPerTurn = &calls
	}
	rep.ElapsedSeconds = time.Since(start).Seconds()
	return rep, nil
}

func (r *Replayer) user(s *locomo.Sample) string { return "locomo-" + r.RunID + "-" + s.ID }

func (r *Replayer) logf(format string, args ...any) {
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, format+"\n", args...)
	}
}

// importTurn is the admin API's turn import item.
type importTurn struct {
	Time      time.Time `json:"time"`
	User      string    `json:"user"`
	Assistant string    `json:"assistant"`
	Refs      []string  `json:"refs"`
	Session   string    `json:"session"`
}

// importSample imports every session in order: the clock moves to the
// session's date, a decay pass runs there, then its turns go in and the
// queue drains before the next session.
func (r *Replayer) importSample(ctx context.Context, s *locomo.Sample) (int, error) {
	n := 0
	for _, sess := range s.Sessions {
		if sess.Date.IsZero() {
			return n, fmt.Errorf("session %d: no date (%q)", sess.N, sess.DateRaw)
		}
		if err := r.decay(ctx, sess.Date); err != nil {
			return n, err
		}
		var turns []importTurn
		for i, t := range sess.ChatTurns(s.SpeakerA) {
			// A second apart keeps the session's order in the store.
			turns = append(turns, importTurn{
				Time: sess.Date.Add(time.Duration(i) * time.Second), User: t.User, Assistant: t.Assistant,
				Refs: t.Refs, Session: fmt.Sprintf("%s-session-%d", s.ID, sess.N),
			})
		}
		path := "/admin/v1/users/" + url.PathEscape(r.user(s)) + "/turns"
		if err := r.do(ctx, http.MethodPost, path, map[string]any{"turns": turns}, nil); err != nil {
			return n, fmt.Errorf("import session %d: %w", sess.N, err)
		}
		n += len(turns)
		if err := r.waitIdle(ctx); err != nil {
			return n, err
		}
	}
	r.logf("%s: imported %d turns in %d sessions", s.ID, n, len(s.Sessions))
	return n, r.decay(ctx, askTime(s))
}

// askTime is when questions are asked: a day after the last session.
func askTime(s *locomo.Sample) time.Time { return s.LastDate().Add(24 * time.Hour) }

func (r *Replayer) decay(ctx context.Context, at time.Time) error {
	q := url.Values{"at": {at.UTC().Format(time.RFC3339)}}
	if err := r.do(ctx, http.MethodPost, "/admin/v1/maintenance/decay?"+q.Encode(), map[string]any{}, nil); err != nil {
		return fmt.Errorf("decay at %s: %w", at.Format(time.DateOnly), err)
	}
	return nil
}

// queueView is the part of the admin queue view the replay reads.
type queueView struct {
	Available       int   `json:"available"`
	Running         int   `json:"running"`
	LLMCalls        int64 `json:"llm_calls"`
	WouldBeLLMCalls int64 `json:"would_be_llm_calls"`
	IngestedTurns   int64 `json:"ingested_turns"`
}

func (r *Replayer) queueStats(ctx context.Context) (queueView, error) {
	var v queueView
	if err := r.do(ctx, http.MethodGet, "/admin/v1/queue", nil, &v); err != nil {
		return v, fmt.Errorf("queue view: %w", err)
	}
	return v, nil
}

func (r *Replayer) waitIdle(ctx context.Context) error {
	if r.WaitIdle != nil {
		return r.WaitIdle(ctx)
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		v, err := r.queueStats(ctx)
		if err != nil {
			return err
		}
		if v.Available+v.Running == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait idle: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// ask puts every question of s to the proxy in arm, each as a new session.
func (r *Replayer) ask(ctx context.Context, s *locomo.Sample, arm string) ([]QuestionResult, error) {
	out := make([]QuestionResult, len(s.QA))
	jobs := make(chan int)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range max(1, cmp.Or(r.Concurrency, 4)) {
		wg.Go(func() {
			for i := range jobs {
				q, err := r.question(ctx, s, i, arm)
				if err != nil {
					select {
					case errs <- fmt.Errorf("question %d (%s): %w", i, arm, err):
					default:
					}
					cancel()
					continue
				}
				out[i] = q
			}
		})
	}
feed:
	for i := range s.QA {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	r.logf("%s: asked %d questions (%s)", s.ID, len(s.QA), arm)
	return out, ctx.Err()
}

// recallDetail is the admin request detail the replay reads.
type recallDetail struct {
	Status         string                   `json:"status"`
	Injected       []string                 `json:"injected"`
	Candidates     []memory.RankedCandidate `json:"candidates"`
	InjectedTokens int                      `json:"injected_tokens"`
	OverheadMs     float64                  `json:"overhead_ms"`
	Memories       []detailMemory           `json:"memories"`
}

// detailMemory is the part of an injected memory the replay reads.
type detailMemory struct {
	ID         string            `json:"id"`
	Tier       memory.Tier       `json:"tier"`
	Provenance memory.Provenance `json:"provenance"`
	Text       string            `json:"text"`
	ValidFrom  time.Time         `json:"valid_from"`
	CreatedAt  time.Time         `json:"created_at"`
}

func (r *Replayer) question(ctx context.Context, s *locomo.Sample, i int, arm string) (QuestionResult, error) {
	qa := s.QA[i]
	res := QuestionResult{Sample: s.ID, Index: i, Category: qa.Category, Question: qa.Question, Evidence: qa.Evidence}
	system := ""
	if r.AnswerModel != "" {
		system = AnswerInstruction
	}
	api := cmp.Or(r.API, APIChat)
	path, body, hdr := questionRequest(api, cmp.Or(r.AnswerModel, r.Model, "memproxy-eval"), system, qa.Question,
		cmp.Or(r.APIKey, "sk-memproxy-eval"))
	hdr.Set("X-Memproxy-User", r.user(s))
	hdr.Set("X-Memproxy-Session", fmt.Sprintf("%s-q%d-%s", s.ID, i, arm))
	hdr.Set("X-Memproxy-Memory", arm)
	hdr.Set("X-Memproxy-Admin-Token", r.AdminToken)
	hdr.Set("X-Memproxy-Time", askTime(s).UTC().Format(time.RFC3339))
	resp, err := r.send(ctx, http.MethodPost, path, body, hdr)
	if err != nil {
		return res, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return res, fmt.Errorf("%s: %w", api, err)
	}
	if resp.StatusCode != http.StatusOK {
		return res, fmt.Errorf("%s: status %d: %.200s", api, resp.StatusCode, data)
	}
	if r.AnswerModel != "" {
		if err := r.score(ctx, &res, qa, api, data); err != nil {
			return res, err
		}
	}
	res.LatencyMs, _ = strconv.ParseFloat(resp.Header.Get("X-Memproxy-Overhead-Ms"), 64)
	status := resp.Header.Get("X-Memproxy-Recall")
	res.Skipped = status == "skipped"
	res.TimedOut = status == "timeout"
	if arm == ArmOff {
		// What the model read without memory: nothing, unless the block
		// recorder saw otherwise.
		block := ""
		if r.Blocks != nil {
			block, _ = r.Blocks.Block(qa.Question)
		}
		scoreContext(&res, qa, MemoryLines(block))
		return res, nil
	}
	// Every chat request has a recall row; one without an injection still
	// carries the ranked candidates (for @10 and @25).
	id := resp.Header.Get("X-Memproxy-Request-Id")
	if id == "" {
		return res, fmt.Errorf("%s: no X-Memproxy-Request-Id in the response", api)
	}
	d, err := r.detail(ctx, id)
	if err != nil {
		return res, err
	}
	fillHits(&res, d)
	block, ok := "", false
	if r.Blocks != nil {
		block, ok = r.Blocks.Block(qa.Question)
	}
	if !ok {
		block = blockFromDetail(d)
	}
	scoreContext(&res, qa, MemoryLines(block))
	return res, nil
}

// blockFromDetail rebuilds the memory lines of a request from its detail
// (a remote memproxy, whose upstream the eval cannot see): the injected
// memories in rank order, each with its date and sanitised as the block
// renders them (a memory the injector truncated reads whole here).
func blockFromDetail(d *recallDetail) string {
	byID := map[string]detailMemory{}
	for _, m := range d.Memories {
		byID[m.ID] = m
	}
	var b strings.Builder
	for _, id := range d.Injected {
		m, ok := byID[id]
		if !ok {
			continue
		}
		date := m.ValidFrom
		if date.IsZero() {
			date = m.CreatedAt
		}
		fmt.Fprintf(&b, "- [%s %s] %s\n", m.Tier, date.UTC().Format("2 Jan 2006"), inject.Sanitize(m.Text))
	}
	return b.String()
}

// score reads the model's answer from a reply of api and scores it.
func (r *Replayer) score(ctx context.Context, res *QuestionResult, qa locomo.QA, api string, data []byte) error {
	answer, err := replyText(api, data)
	if err != nil {
		return err
	}
	res.Answer = strings.TrimSpace(answer)
	sc := AnswerScore(qa.Category, res.Answer, qa.Answer)
	res.AnswerScore = &sc
	if r.Judge == nil {
		return nil
	}
	gold := qa.Answer
	if qa.Category == 5 {
		gold = "The conversation does not mention this (no information available)."
	}
	ok, err := r.Judge.Correct(ctx, qa.Question, gold, res.Answer)
	if err != nil {
		return err
	}
	res.Correct = &ok
	return nil
}

// detail reads a request's recall row; the proxy may write it just after
// the response, so a missing row is retried briefly.
func (r *Replayer) detail(ctx context.Context, id string) (*recallDetail, error) {
	var d recallDetail
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := r.do(ctx, http.MethodGet, "/admin/v1/requests/"+url.PathEscape(id), nil, &d)
		var se *statusError
		if err == nil || !errors.As(err, &se) || se.code != http.StatusNotFound || time.Now().After(deadline) {
			if err != nil {
				return nil, fmt.Errorf("request detail %s: %w", id, err)
			}
			return &d, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// fillHits turns a recall row into the scored hits: the injected memories
// in rank order, and the ranked candidates a larger top_k would have
// injected (live ones: selected or cut by top_k).
func fillHits(res *QuestionResult, d *recallDetail) {
	single := map[string]bool{}
	refs := map[string][]string{}
	for _, c := range d.Candidates {
		refs[c.ID] = c.Refs
		single[c.ID] = c.Tier == memory.TierEvent
	}
	for _, m := range d.Memories {
		refs[m.ID] = m.Provenance.TurnRefs
		single[m.ID] = len(m.Provenance.MemoryIDs) == 0 && len(m.Provenance.RequestIDs) <= 1
	}
	for _, id := range d.Injected {
		res.Injected = append(res.Injected, Hit{ID: id, Refs: refs[id], Single: single[id]})
	}
	cands := slices.Clone(d.Candidates)
	slices.SortStableFunc(cands, func(a, b memory.RankedCandidate) int { return cmp.Compare(a.Rank, b.Rank) })
	for _, c := range cands {
		if c.Filtered == "" || c.Filtered == memory.FilteredTopK {
			res.Ranked = append(res.Ranked, Hit{ID: c.ID, Refs: refs[c.ID], Single: single[c.ID]})
		}
	}
	res.InjectedTokens = d.InjectedTokens
}

type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string { return fmt.Sprintf("status %d: %s", e.code, e.body) }

// do sends an admin call and decodes its JSON answer into out (if not nil).
// The admin API is rate limited; a 429 is waited out (Retry-After, else a
// growing pause) rather than failing the run.
func (r *Replayer) do(ctx context.Context, method, path string, body, out any) error {
	hdr := http.Header{}
	hdr.Set("Authorization", "Bearer "+r.AdminToken)
	var data []byte
	pause := 50 * time.Millisecond
	for attempt := 0; ; attempt++ {
		resp, err := r.send(ctx, method, path, body, hdr)
		if err != nil {
			return err
		}
		data, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if resp.StatusCode == http.StatusTooManyRequests && attempt < 100 {
			wait := pause
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
				wait = time.Duration(s) * time.Second
			}
			pause = min(2*pause, 2*time.Second)
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			continue
		}
		if resp.StatusCode/100 != 2 {
			return &statusError{code: resp.StatusCode, body: strings.TrimSpace(string(data))}
		}
		break
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("decode %s: %w", path, err)
		}
	}
	return nil
}

func (r *Replayer) send(ctx context.Context, method, path string, body any, hdr http.Header) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(r.BaseURL, "/")+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header = hdr
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c := r.HTTP
	if c == nil {
		c = &http.Client{Timeout: 2 * time.Minute}
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return resp, nil
}
