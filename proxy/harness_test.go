package proxy_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

// harness is a fake upstream, the proxy in front of it and an SDK client
// pointed at the proxy.
type harness struct {
	fake   *fakeupstream.Server
	up     *httptest.Server
	srv    *proxy.Server
	front  *httptest.Server
	sink   *recSink
	client openai.Client
}

func newHarness(t *testing.T, mods ...func(*proxy.Config)) *harness {
	t.Helper()
	h := &harness{fake: fakeupstream.New(), sink: newRecSink()}
	h.up = httptest.NewServer(h.fake.Handler())
	t.Cleanup(h.up.Close)
	cfg := proxy.Config{
		Upstream: h.up.URL + "/v1",
		Policy:   policy.Default(),
		Salt:     "test-salt",
		Sink:     h.sink,
		Registry: prometheus.NewRegistry(),
		Logger:   discardLogger(),
	}
	for _, m := range mods {
		m(&cfg)
	}
	srv, err := proxy.New(cfg)
	if err != nil {
		t.Fatalf("proxy.New: %v", err)
	}
	h.srv = srv
	h.front = httptest.NewServer(srv.Handler())
	t.Cleanup(h.front.Close)
	h.client = openai.NewClient(option.WithBaseURL(h.front.URL+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
	return h
}

// post sends a raw chat request and returns the response with its body.
func (h *harness) post(t *testing.T, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.front.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-test")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// metric scrapes /metrics and returns the line starting with name.
func (h *harness) metric(t *testing.T, name string) string {
	t.Helper()
	resp, err := http.Get(h.front.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), name+" ") {
			return sc.Text()
		}
	}
	return ""
}

// recSink records turns and signals each one; err makes it fail.
type recSink struct {
	mu    sync.Mutex
	turns []*memory.Turn
	err   error
	block bool // wait for ctx to end, then fail
	// release, when set, holds each call until it is closed (or ctx
	// ends, which fails the call); the turn is then stored.
	release chan struct{}
	got     chan *memory.Turn
}

func newRecSink() *recSink { return &recSink{got: make(chan *memory.Turn, 100)} }

func (s *recSink) Enqueue(ctx context.Context, t *memory.Turn) error {
	s.mu.Lock()
	err, block, release := s.err, s.block, s.release
	s.mu.Unlock()
	if block {
		<-ctx.Done()
		return ctx.Err()
	}
	if release != nil {
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.turns = append(s.turns, t)
	s.mu.Unlock()
	s.got <- t
	return nil
}

func (s *recSink) Turns() []*memory.Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*memory.Turn(nil), s.turns...)
}

// wait returns the next captured turn. The proxy queues a turn before the
// client's last bytes, so after a completed call it is already there.
func (s *recSink) wait(t *testing.T) *memory.Turn {
	t.Helper()
	select {
	case tr := <-s.got:
		return tr
	default:
		t.Fatal("no turn captured before the reply completed")
		return nil
	}
}

var errSink = errors.New("sink is down")

// rewriterFunc adapts a function to proxy.Rewriter.
type rewriterFunc func(ctx context.Context, req *proxy.ChatRequest) (*proxy.Rewrite, error)

func (f rewriterFunc) Rewrite(ctx context.Context, req *proxy.ChatRequest) (*proxy.Rewrite, error) {
	return f(ctx, req)
}

// readEvent reads one SSE event (up to the blank line) from r.
func readEvent(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			return b.String(), err
		}
		if line == "\n" || line == "\r\n" {
			return b.String(), nil
		}
	}
}

func fixedClock(t time.Time) func(*proxy.Config) {
	return func(c *proxy.Config) { c.Clock = func() time.Time { return t } }
}
