package proxy_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

// TestRecallDeadline: a Rewriter that hangs and ignores its context (a
// database connection whose peer stopped answering) costs the request
// recall.timeout, not more: it goes on unchanged with
// X-Memproxy-Recall: timeout and is counted; its turn is still captured.
func TestRecallDeadline(t *testing.T) {
	p := policy.Default()
	p.Recall.Timeout = policy.Duration(50 * time.Millisecond)
	hang := make(chan struct{})
	defer close(hang)
	rw := rewriterFunc(func(ctx context.Context, req *proxy.ChatRequest) (*proxy.Rewrite, error) {
		<-hang
		return &proxy.Rewrite{}, nil
	})
	h := newHarness(t, func(c *proxy.Config) { c.Policy, c.Rewriter = p, rw })
	start := time.Now()
	resp, text := h.post(t, `{"model":"m","messages":[{"role":"user","content":"what did I say about my trip?"}]}`, nil)
	took := time.Since(start)
	if resp.StatusCode != http.StatusOK || resp.Header.Get(proxy.HeaderRecall) != proxy.RecallTimeout || !strings.Contains(text, "trip") {
		t.Fatalf("hung recall: %d recall=%q %s", resp.StatusCode, resp.Header.Get(proxy.HeaderRecall), text)
	}
	t.Logf("answered in %v with recall.timeout 50ms", took.Round(time.Millisecond))
	if m := h.metric(t, "memproxy_recall_timeouts_total"); m != "memproxy_recall_timeouts_total 1" {
		t.Errorf("metric %q", m)
	}
	if tr := h.sink.wait(t); !strings.Contains(tr.User, "trip") {
		t.Errorf("turn %+v", tr)
	}
}

// TestReadyzAnswersWithinASecond: a Ready check that never returns gives
// 503 within the readiness bound.
func TestReadyzAnswersWithinASecond(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	h := newHarness(t, func(c *proxy.Config) {
		c.Ready = func(context.Context) error { <-hang; return nil }
	})
	start := time.Now()
	r, err := http.Get(h.front.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	took := time.Since(start)
	if r.StatusCode != http.StatusServiceUnavailable || took > 2*time.Second {
		t.Fatalf("/readyz with a hung store: %d after %v, want 503 within a second", r.StatusCode, took)
	}
	t.Logf("/readyz answered %d after %v", r.StatusCode, took.Round(time.Millisecond))
}
