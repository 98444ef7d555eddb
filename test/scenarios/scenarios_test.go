// Package scenarios replays scripted multi-session stories (stories.yaml)
// through memproxy the way users and operators do — chat requests through
// the proxy, with the session clock set by the replay header, and the
// admin API — on both stores, and checks what memory made of them: the
// live facts, the history (superseded memories), what recall injects for a
// follow-up question, and what must never be stored.
//
// Checks are on meaning, not sentences: "the live facts include one
// containing Lisbon and none that names Berlin without Lisbon". The test
// prints K/N per store and fails when fewer stories pass than the floor
// recorded in stories.yaml; raise the floor as the mechanisms land.
package scenarios_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/memproxy/memproxy/eval"
	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/policy"
)

const adminToken = "scenario-admin-token"

// suite is stories.yaml.
type suite struct {
	// Floor is, per store, how many stories must pass.
	Floor   map[string]int `yaml:"floor"`
	Stories []story        `yaml:"stories"`
}

type story struct {
	Name     string    `yaml:"name"`
	Sessions []session `yaml:"sessions"`
	Expect   expect    `yaml:"expect"`
}

type session struct {
	At  time.Time `yaml:"at"`
	Say []string  `yaml:"say"`
}

// A term matches a text when one of its "|"-separated alternatives is a
// case-insensitive substring of it.
type expect struct {
	// Facts are checked against the live facts (semantic and profile
	// memories): every Has term is in one of them; no fact carries a None
	// term unless it also carries a Has term (it states the change).
	Facts check `yaml:"facts"`
	// History is checked against the superseded memories: every Has term
	// is in one; no superseded memory carries a None term.
	History check `yaml:"history"`
	// Never are strings no memory (any state), audit entry, export or
	// injected block may contain (secrets, forgotten data).
	Never []string `yaml:"never"`
	// AtMost bounds how many live memories (any tier) carry a text.
	AtMost []struct {
		Text string `yaml:"text"`
		N    int    `yaml:"n"`
	} `yaml:"at_most"`
	// Recall are follow-up questions, each asked in a new session: every
	// Has term is in the injected block; no injected line carries a None
	// term unless it also carries a Has term.
	Recall []ask `yaml:"recall"`
}

type check struct {
	Has  []string `yaml:"has"`
	None []string `yaml:"none"`
}

type ask struct {
	Ask   string    `yaml:"ask"`
	At    time.Time `yaml:"at"`
	check `yaml:",inline"`
}

func matches(text, term string) bool {
	low := strings.ToLower(text)
	for _, alt := range strings.Split(term, "|") {
		if alt = strings.ToLower(alt); alt != "" && strings.Contains(low, alt) {
			return true
		}
	}
	return false
}

// problems lists how texts fail c; exempt lets a None term pass in a text
// that also carries a Has term.
func (c check) problems(what string, texts []string, exempt bool) []string {
	var out []string
	for _, h := range c.Has {
		if !slices.ContainsFunc(texts, func(t string) bool { return matches(t, h) }) {
			out = append(out, fmt.Sprintf("%s: none contains %q", what, h))
		}
	}
	for _, n := range c.None {
		for _, t := range texts {
			if !matches(t, n) {
				continue
			}
			if exempt && slices.ContainsFunc(c.Has, func(h string) bool { return matches(t, h) }) {
				continue
			}
			out = append(out, fmt.Sprintf("%s: %q contains %q", what, t, n))
		}
	}
	return out
}

func loadSuite(t *testing.T) suite {
	t.Helper()
	data, err := os.ReadFile("stories.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var s suite
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("stories.yaml: %v", err)
	}
	names := map[string]bool{}
	for _, st := range s.Stories {
		if st.Name == "" || names[st.Name] || len(st.Sessions) == 0 {
			t.Fatalf("story %q: needs a unique name and a session", st.Name)
		}
		names[st.Name] = true
		for _, se := range st.Sessions {
			if se.At.IsZero() || len(se.Say) == 0 {
				t.Fatalf("story %q: every session needs at and say", st.Name)
			}
		}
		for _, a := range st.Expect.Recall {
			if a.Ask == "" || a.At.IsZero() {
				t.Fatalf("story %q: every recall needs ask and at", st.Name)
			}
		}
	}
	return s
}

// TestStoriesAreEnough keeps the suite what it says it is.
func TestStoriesAreEnough(t *testing.T) {
	s := loadSuite(t)
	zh := 0
	for _, st := range s.Stories {
		if strings.HasPrefix(st.Name, "zh-") {
			zh++
		}
	}
	if len(s.Stories) < 60 || zh < 15 {
		t.Errorf("%d stories (%d Chinese); want at least 60, 15 of them Chinese", len(s.Stories), zh)
	}
}

func TestScenarios(t *testing.T) {
	s := loadSuite(t)
	// SCENARIO_ONLY=regexp replays only the stories it names (no floor).
	only := os.Getenv("SCENARIO_ONLY")
	if only != "" {
		re := regexp.MustCompile(only)
		s.Stories = slices.DeleteFunc(s.Stories, func(st story) bool { return !re.MatchString(st.Name) })
		s.Floor = map[string]int{}
	}
	// The stories over the Responses API and Anthropic Messages too (the
	// one memory pipeline behind all three), and streamed, on the
	// embedded store.
	type run struct {
		name, backend, api string
		stream             bool
	}
	runs := []run{{"sqlite", "sqlite", "chat", false}, {"postgres", "postgres", "chat", false},
		{"sqlite-responses", "sqlite", "responses", false}, {"sqlite-messages-stream", "sqlite", "messages", true}}
	if os.Getenv("SCENARIO_ALL") != "" {
		// Every API plain and streamed (CI runs the four above, which
		// cover each API and streaming once, to keep its load down).
		runs = []run{{"sqlite", "sqlite", "chat", false}, {"postgres", "postgres", "chat", false},
			{"sqlite-responses", "sqlite", "responses", false}, {"sqlite-messages", "sqlite", "messages", false},
			{"sqlite-stream", "sqlite", "chat", true}, {"sqlite-responses-stream", "sqlite", "responses", true},
			{"sqlite-messages-stream", "sqlite", "messages", true}}
	}
	// SCENARIO_API=chat|responses|messages and SCENARIO_STREAM=0|1 keep
	// only the runs they name.
	if api := os.Getenv("SCENARIO_API"); api != "" {
		runs = slices.DeleteFunc(runs, func(r run) bool { return r.api != api })
	}
	if st := os.Getenv("SCENARIO_STREAM"); st != "" {
		runs = slices.DeleteFunc(runs, func(r run) bool { return r.stream != (st == "1") })
	}
	for _, run := range runs {
		backend := run.backend
		t.Run(run.name, func(t *testing.T) {
			h := newHarness(t, backend)
			h.api, h.stream = run.api, run.stream
			failures := h.run(s.Stories)
			passed := len(s.Stories) - len(failures)
			for _, name := range sortedKeys(failures) {
				t.Logf("FAIL %s:\n  %s", name, strings.Join(failures[name], "\n  "))
			}
			var pass []string
			for _, st := range s.Stories {
				if _, failed := failures[st.Name]; !failed {
					pass = append(pass, st.Name)
				}
			}
			t.Logf("pass: %s", strings.Join(pass, " "))
			t.Logf("by kind: %s", byKind(s.Stories, failures))
			floor := s.Floor[backend]
			t.Logf("scenarios %s: %d/%d stories pass (floor %d)", run.name, passed, len(s.Stories), floor)
			fmt.Printf("scenarios %s: %d/%d stories pass (floor %d)\n", run.name, passed, len(s.Stories), floor)
			if passed < floor {
				t.Errorf("%d/%d stories pass, below the floor %d of stories.yaml", passed, len(s.Stories), floor)
			}
		})
	}
}

// byKind counts passing stories per kind, the word after the language in
// a story's name (en-move-…, zh-secret-…): "move 1/6, secret 0/9, …".
func byKind(stories []story, failures map[string][]string) string {
	pass, all := map[string]int{}, map[string]int{}
	var kinds []string
	for _, st := range stories {
		parts := strings.SplitN(st.Name, "-", 3)
		kind := parts[len(parts)/2]
		if all[kind] == 0 {
			kinds = append(kinds, kind)
		}
		all[kind]++
		if _, failed := failures[st.Name]; !failed {
			pass[kind]++
		}
	}
	slices.Sort(kinds)
	var out []string
	for _, k := range kinds {
		out = append(out, fmt.Sprintf("%s %d/%d", k, pass[k], all[k]))
	}
	return strings.Join(out, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

type harness struct {
	api    string // chat (default), responses or messages: the API the stories are told over
	stream bool   // streamed requests (the reply captured as it streams)
	t      *testing.T
	clock  *replayClock
	app    *app.App
	fake   *fakeupstream.Server
	srv    *httptest.Server
	http   *http.Client
}

// newHarness runs the real server wiring in front of the repo's fake
// upstream on backend.
func newHarness(t *testing.T, backend string) *harness {
	clock := &replayClock{}
	fake := fakeupstream.New()
	up := httptest.NewServer(fake.Handler())
	t.Cleanup(up.Close)
	pol := policy.Default()
	// The replay reads the admin API for every story at once; an
	// operator's import script would raise the limit the same way.
	pol.Admin.RatePerSecond, pol.Admin.Burst = 100000, 100000
	// The suite checks what recall chooses, not how fast: on a loaded
	// machine the default deadline cut recalls short and stories failed
	// for the clock's sake.
	pol.Recall.Timeout = policy.Duration(10 * time.Second)
	o := app.Options{
		Upstream:     up.URL + "/v1",
		Policy:       pol,
		AdminToken:   adminToken,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		Getenv:       func(string) string { return "" },
		PollInterval: 20 * time.Millisecond,
		// The background's "now" (decay passes, audit times) is the
		// replay's: a story told in January must not be decayed at
		// today's date between its sessions.
		Clock: clock.Now,
	}
	switch backend {
	case "sqlite":
		o.DB = filepath.Join(t.TempDir(), "memproxy.db")
	case "postgres":
		o.DatabaseURL = testpg.New(t)
	}
	a, err := app.New(t.Context(), o)
	if err != nil {
		t.Fatalf("app: %v", err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() {
		srv.Close()
		if err := a.Close(); err != nil {
			t.Errorf("close app: %v", err)
		}
	})
	return &harness{t: t, clock: clock, app: a, fake: fake, srv: srv, http: srv.Client()}
}

// replayClock is the replay's "now": the time of the request being
// replayed (stories run side by side, so it moves back and forth between
// them, as their own clocks do); unset, the wall clock.
type replayClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *replayClock) Set(at time.Time) {
	c.mu.Lock()
	c.at = at
	c.mu.Unlock()
}

func (c *replayClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		return time.Now()
	}
	return c.at
}

func user(st story) string { return "story-" + st.Name }

// run replays every story and returns the failing ones with their
// problems. Stories are independent users, so they advance together:
// session i of every story, then the queue drains, then session i+1.
func (h *harness) run(stories []story) map[string][]string {
	h.startupDecay(stories)
	rounds := 0
	for _, st := range stories {
		rounds = max(rounds, len(st.Sessions))
	}
	for i := range rounds {
		for _, st := range stories {
			if i < len(st.Sessions) {
				h.session(st, i)
			}
		}
		h.idle()
	}
	failures := map[string][]string{}
	blocks := map[string][]string{}
	for _, st := range stories {
		for j, a := range st.Expect.Recall {
			block := h.ask(st, j, a)
			blocks[st.Name] = append(blocks[st.Name], block)
			lines := strings.Split(eval.MemoryLines(block), "\n")
			probs := a.check.problems(fmt.Sprintf("block for %q", a.Ask), lines, true)
			if len(probs) > 0 && os.Getenv("SCENARIO_BLOCKS") != "" {
				probs = append(probs, "block: "+strings.ReplaceAll(block, "\n", "\n    | "))
			}
			failures[st.Name] = append(failures[st.Name], probs...)
		}
	}
	h.idle()
	// What stays is judged today, long after every story: temporary
	// states have expired by then, lasting facts have not.
	h.clock.Set(time.Time{})
	for _, st := range stories {
		failures[st.Name] = append(failures[st.Name], h.checkStore(st, blocks[st.Name])...)
		if len(failures[st.Name]) == 0 {
			delete(failures, st.Name)
		}
	}
	return failures
}

// startupDecay sets the clock before the first story and waits for the
// decay pass the queue runs when it starts, so that pass never lands in
// the middle of the replay at some other story's time.
func (h *harness) startupDecay(stories []story) {
	first := time.Now()
	for _, st := range stories {
		for _, se := range st.Sessions {
			if se.At.Before(first) {
				first = se.At
			}
		}
	}
	h.clock.Set(first.Add(-time.Hour))
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for h.app.Queue.DecayRuns() == 0 {
		select {
		case <-h.t.Context().Done():
			h.t.Fatal("the startup decay pass never ran")
		case <-tick.C:
		}
	}
	h.idle()
}

// session sends a session's messages as one conversation: each request
// carries the session so far, as a chat app does.
func (h *harness) session(st story, i int) {
	se := st.Sessions[i]
	var msgs []map[string]string
	for k, text := range se.Say {
		msgs = append(msgs, map[string]string{"role": "user", "content": text})
		reply := "Thanks, noted."
		h.fake.Push(fakeupstream.Reply{Content: reply})
		at := se.At.Add(time.Duration(k) * time.Minute)
		h.chat(user(st), fmt.Sprintf("%s-s%d", st.Name, i), at, msgs)
		msgs = append(msgs, map[string]string{"role": "assistant", "content": reply})
	}
}

// ask puts a follow-up question in a new session and returns the memory
// block the upstream was sent ("" when none).
func (h *harness) ask(st story, j int, a ask) string {
	h.chat(user(st), fmt.Sprintf("%s-ask%d", st.Name, j), a.At, []map[string]string{{"role": "user", "content": a.Ask}})
	last := h.fake.Last()
	if want := map[string]string{"responses": "/v1/responses", "messages": "/v1/messages"}[h.api]; want != "" && last.Path != want {
		h.t.Fatalf("the upstream got %s, want %s", last.Path, want)
	}
	var body any
	if err := json.Unmarshal(last.Body, &body); err != nil {
		h.t.Fatalf("decode upstream request: %v", err)
	}
	return memoryBlock(body)
}

// memoryBlock is the memory section of an upstream request body, from
// "<memory>" on, wherever the API puts it (a system or developer message,
// the Responses instructions, an Anthropic system block) but never in
// what a user said; "" when none.
func memoryBlock(v any) string {
	switch v := v.(type) {
	case string:
		if i := strings.Index(v, "<memory>"); i >= 0 {
			return v[i:]
		}
	case []any:
		for _, x := range v {
			if b := memoryBlock(x); b != "" {
				return b
			}
		}
	case map[string]any:
		if v["role"] == "user" {
			return ""
		}
		for _, k := range sortedKeys(v) {
			if b := memoryBlock(v[k]); b != "" {
				return b
			}
		}
	}
	return ""
}

func (h *harness) chat(u, sess string, at time.Time, msgs []map[string]string) {
	h.t.Helper()
	h.clock.Set(at)
	path, body := "/v1/chat/completions", map[string]any{"model": "gpt-test", "messages": msgs}
	switch h.api {
	case "responses":
		path, body = "/v1/responses", map[string]any{"model": "gpt-test", "input": msgs}
	case "messages":
		path, body = "/v1/messages", map[string]any{"model": "claude-test", "max_tokens": 256, "messages": msgs}
	}
	if h.stream {
		body["stream"] = true
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(h.t.Context(), http.MethodPost, h.srv.URL+path, strings.NewReader(string(b)))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-app-key")
	if h.api == "messages" {
		req.Header.Set("x-api-key", "sk-ant-app-key")
		req.Header.Set("anthropic-version", "2023-06-01")
	}
	req.Header.Set("X-Memproxy-User", u)
	req.Header.Set("X-Memproxy-Session", sess)
	req.Header.Set("X-Memproxy-Time", at.UTC().Format(time.RFC3339))
	req.Header.Set("X-Memproxy-Admin-Token", adminToken)
	resp, err := h.http.Do(req)
	if err != nil {
		h.t.Fatalf("chat: %v", err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("chat %s: status %d: %s", u, resp.StatusCode, data)
	}
}

// idle waits until the background queue has processed every turn.
func (h *harness) idle() {
	h.t.Helper()
	if err := h.app.Queue.WaitIdle(h.t.Context()); err != nil {
		h.t.Fatalf("wait idle: %v", err)
	}
}

// admin GETs an admin path and returns the body.
func (h *harness) admin(path string) []byte {
	h.t.Helper()
	req, err := http.NewRequestWithContext(h.t.Context(), http.MethodGet, h.srv.URL+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := h.http.Do(req)
	if err != nil {
		h.t.Fatalf("admin %s: %v", path, err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("admin %s: status %d: %s", path, resp.StatusCode, data)
	}
	return data
}

type listedMemory struct {
	Tier    string `json:"tier"`
	Text    string `json:"text"`
	Context string `json:"context"`
	State   string `json:"state"`
}

// memories lists every memory of u in every state, and the raw pages.
func (h *harness) memories(u string) ([]listedMemory, string) {
	var all []listedMemory
	var raw strings.Builder
	cursor := ""
	for {
		q := url.Values{"limit": {"500"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		data := h.admin("/admin/v1/users/" + url.PathEscape(u) + "/memories?" + q.Encode())
		raw.Write(data)
		var page struct {
			Data []listedMemory `json:"data"`
			Next string         `json:"next"`
		}
		if err := json.Unmarshal(data, &page); err != nil {
			h.t.Fatalf("decode memories: %v", err)
		}
		all = append(all, page.Data...)
		if page.Next == "" || len(page.Data) == 0 {
			return all, raw.String()
		}
		cursor = page.Next
	}
}

// checkStore checks a story's facts, history, bounds and never-stored
// strings through the admin API.
func (h *harness) checkStore(st story, blocks []string) (out []string) {
	u := user(st)
	ms, raw := h.memories(u)
	var facts, history []string
	for _, m := range ms {
		switch {
		case m.State == "live" && (m.Tier == "semantic" || m.Tier == "profile"):
			facts = append(facts, m.Text)
		case m.State == "superseded":
			history = append(history, m.Text)
		}
	}
	out = append(out, st.Expect.Facts.problems("live facts", facts, true)...)
	defer func() {
		if len(out) > 0 && os.Getenv("SCENARIO_BLOCKS") != "" {
			for _, m := range ms {
				out = append(out, fmt.Sprintf("stored: %s %s %q (context %q)", m.State, m.Tier, m.Text, m.Context))
			}
		}
	}()
	out = append(out, st.Expect.History.problems("history", history, false)...)
	for _, b := range st.Expect.AtMost {
		n := 0
		for _, m := range ms {
			if m.State == "live" && matches(m.Text, b.Text) {
				n++
			}
		}
		if n > b.N {
			out = append(out, fmt.Sprintf("%d live memories contain %q, want at most %d", n, b.Text, b.N))
		}
	}
	if len(st.Expect.Never) > 0 {
		places := map[string]string{
			"memories": raw,
			"audit":    string(h.admin("/admin/v1/audit?limit=1000&user=" + url.QueryEscape(u))),
			"export":   string(h.admin("/admin/v1/users/" + url.PathEscape(u) + "/export")),
			"blocks":   strings.Join(blocks, "\n"),
		}
		for _, s := range st.Expect.Never {
			// A secret of digits alone counts as a number of its own:
			// the same digits inside a timestamp's microseconds or a
			// random id ("…:05.348213Z" for PIN 4821) are not it.
			pat := regexp.QuoteMeta(s)
			if strings.Trim(s, "0123456789") == "" {
				pat = `(?:^|[^0-9A-Za-z])` + pat + `(?:[^0-9A-Za-z]|$)`
			}
			tok := regexp.MustCompile(pat)
			for _, where := range []string{"memories", "audit", "export", "blocks"} {
				if tok.MatchString(places[where]) {
					out = append(out, fmt.Sprintf("%s holds %q", where, s))
				}
			}
		}
	}
	return out
}
