package fault

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/policy"
)

// faultPolicy has short deadlines so each fault test stays within
// seconds: recall 50 ms, capture 1 s, statements 2 s.
func faultPolicy() *policy.Policy {
	p := policy.Default()
	p.Recall.Timeout = policy.Duration(50 * time.Millisecond)
	p.Server.SinkTimeout = policy.Duration(time.Second)
	p.Postgres.StatementTimeout = policy.Duration(2 * time.Second)
	p.Postgres.ConnectTimeout = policy.Duration(2 * time.Second)
	return p
}

type stack struct {
	t     *testing.T
	app   *app.App
	front *httptest.Server
	pol   *policy.Policy
	logs  *warnLog
}

func newStack(t *testing.T, o app.Options) *stack {
	t.Helper()
	if o.Upstream == "" {
		fake := fakeupstream.New()
		fake.Record = false
		up := httptest.NewServer(fake.Handler())
		t.Cleanup(up.Close)
		o.Upstream = up.URL + "/v1"
	}
	if o.Policy == nil {
		o.Policy = faultPolicy()
	}
	logs := &warnLog{}
	o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := app.New(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(a.Handler())
	t.Cleanup(func() { front.Close(); a.Close() })
	return &stack{t: t, app: a, front: front, pol: o.Policy, logs: logs}
}

// warnLog keeps the first warning lines the stack logs, so a test that
// fails can say what memproxy reported.
type warnLog struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// The first lines, and every failure beyond them (a test asking why
	// a request failed finds it among a thousand timeouts).
	if len(w.lines) < 20 || strings.Contains(string(p), "failed") {
		w.lines = append(w.lines, strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

func (w *warnLog) matching(sub string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, l := range w.lines {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// chat sends one chat (streamed or not) and returns its recall header,
// whether the reply was complete and how long it took.
func (s *stack) chat(user, text string, stream bool) (recall string, complete bool, took time.Duration, err error) {
	body := fmt.Sprintf(`{"model":"m","stream":%v,"messages":[{"role":"user","content":%q}]}`, stream, text)
	req, _ := http.NewRequest(http.MethodPost, s.front.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Memproxy-User", user)
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", false, time.Since(start), err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	took = time.Since(start)
	if res.StatusCode != http.StatusOK {
		return res.Header.Get("X-Memproxy-Recall"), false, took, fmt.Errorf("status %d: %s", res.StatusCode, b)
	}
	if stream {
		complete = strings.Contains(string(b), `"finish_reason":"stop"`) && strings.HasSuffix(string(b), "data: [DONE]\n\n")
	} else {
		complete = strings.Contains(string(b), "You said")
	}
	return res.Header.Get("X-Memproxy-Recall"), complete, took, err
}

func (s *stack) readyz() (int, time.Duration) {
	start := time.Now()
	res, err := http.Get(s.front.URL + "/readyz")
	if err != nil {
		s.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, time.Since(start)
}

// bound is what a chat may take while a dependency hangs: the recall
// deadline and the capture deadline, plus one second.
func (s *stack) bound() time.Duration {
	return s.pol.Recall.Timeout.D() + s.pol.Server.SinkTimeout.D() + time.Second
}

// burst sends n chats at once (half streamed) and checks each against the
// bound; it returns the slowest and the recall headers seen.
func (s *stack) burst(n int, phase string) (time.Duration, map[string]int) {
	var mu sync.Mutex
	var slowest time.Duration
	seen := map[string]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			recall, complete, took, err := s.chat(fmt.Sprintf("u%d", i%4), fmt.Sprintf("tell me about my plan number %d for the trip", i), i%2 == 0)
			mu.Lock()
			defer mu.Unlock()
			if err != nil || !complete {
				s.t.Errorf("%s: chat %d: complete=%v err=%v", phase, i, complete, err)
			}
			if took > s.bound() {
				s.t.Errorf("%s: chat %d answered after %v, bound %v", phase, i, took, s.bound())
			}
			slowest = max(slowest, took)
			seen[recall]++
		})
	}
	wg.Wait()
	return slowest, seen
}

// TestDatabaseHangs: PostgreSQL behind a relay that stops forwarding.
// Every chat is answered within its deadlines plus a second, /readyz
// within a second; when the relay heals, memproxy recovers without a
// restart.
func TestDatabaseHangs(t *testing.T) {
	dsn := testpg.New(t)
	u, _ := url.Parse(dsn)
	r := newRelay(t, u.Host)
	u.Host = r.addr()
	s := newStack(t, app.Options{DatabaseURL: u.String(), ApplicationName: "memproxy-fault-hang"})
	if _, ok, _, err := s.chat("u0", "I plan a trip to Lisbon in May", false); !ok || err != nil {
		t.Fatalf("warm-up: %v", err)
	}
	if code, _ := s.readyz(); code != http.StatusOK {
		t.Fatalf("readyz before: %d", code)
	}

	r.set("hang")
	slowest, seen := s.burst(20, "hang")
	code, took := s.readyz()
	t.Logf("database hangs: 20 chats, slowest %v (bound %v), recall %v; /readyz %d in %v", slowest.Round(time.Millisecond), s.bound(), seen, code, took.Round(time.Millisecond))
	if code != http.StatusServiceUnavailable || took > 1500*time.Millisecond {
		t.Errorf("/readyz while the database hangs: %d after %v, want 503 within a second", code, took)
	}
	if seen["injected"]+seen["skipped"] == len(seen) {
		t.Errorf("no chat reported a recall failure while the database hung: %v", seen)
	}

	r.set("")
	recovered := false
	for attempt := 0; attempt < 50 && !recovered; attempt++ {
		recall, ok, _, err := s.chat("u1", "what was my plan for the trip?", false)
		if err != nil || !ok {
			t.Fatalf("after healing: %v", err)
		}
		recovered = recall == "injected" || recall == "skipped"
	}
	if !recovered {
		t.Fatal("recall did not recover after the database healed")
	}
	ready := false
	for attempt := 0; attempt < 20 && !ready; attempt++ {
		code, _ := s.readyz()
		ready = code == http.StatusOK
	}
	if !ready {
		t.Error("/readyz did not recover")
	}
}

// TestDatabaseRefuses: a relay that closes every connection: chats go on
// plain at once.
func TestDatabaseRefuses(t *testing.T) {
	dsn := testpg.New(t)
	u, _ := url.Parse(dsn)
	r := newRelay(t, u.Host)
	u.Host = r.addr()
	s := newStack(t, app.Options{DatabaseURL: u.String(), ApplicationName: "memproxy-fault-refuse"})
	r.set("refuse")
	slowest, seen := s.burst(20, "refuse")
	code, took := s.readyz()
	t.Logf("database refuses: slowest chat %v, recall %v; /readyz %d in %v", slowest.Round(time.Millisecond), seen, code, took.Round(time.Millisecond))
	if code != http.StatusServiceUnavailable {
		t.Errorf("/readyz while the database refuses: %d", code)
	}
	r.set("")
}

// hangingEmbedder never answers, and ignores its context.
type hangingEmbedder struct {
	embed.Embedder
	hang chan struct{}
}

func (h hangingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	<-h.hang
	return nil, context.Canceled
}

// TestEmbedderHangs: an embedder that never answers costs each chat the
// recall deadline, not more.
func TestEmbedderHangs(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	local, err := embed.FromPolicy(policy.Default().Embedder, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s := newStack(t, app.Options{DB: filepath.Join(t.TempDir(), "m.db"), Embedder: hangingEmbedder{Embedder: local, hang: hang}})
	slowest, seen := s.burst(10, "embedder hangs")
	t.Logf("embedder hangs: slowest chat %v (bound %v), recall %v", slowest.Round(time.Millisecond), s.bound(), seen)
	if seen["timeout"] == 0 {
		t.Errorf("no recall timeout reported: %v", seen)
	}
}
