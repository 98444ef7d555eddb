package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

// slowPolicy scales the body rule down so tests run in a second: a body
// may pause 300 ms and must average 1 KiB/s after that grace.
func slowPolicy() *policy.Policy {
	p := policy.Default()
	p.Server.BodyStallTimeout = policy.Duration(300 * time.Millisecond)
	p.Server.BodyMinRate = 1024
	return p
}

// rawRequest opens a connection to addr, sends a request head announcing
// a body of declared bytes, then calls feed to send (part of) the body.
// It returns the response head, its body and how long after the start
// the server closed the connection.
func rawRequest(t *testing.T, addr, path string, declared int, feed func(net.Conn)) (status string, header http.Header, body string, closedAfter time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, declared)
	go feed(conn)
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // a hung test fails instead of hanging
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.Close { // ReadResponse takes "Connection: close" out of the header
		resp.Header.Set("Connection", "close")
	}
	// The server must close the connection after the 408.
	// A reset is a close too: a client still writing into a socket the
	// server closed gets RST instead of FIN.
	if _, err := br.ReadByte(); err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("connection still open after the response (read: %v)", err)
	}
	return resp.Status, resp.Header, string(b), time.Since(start)
}

func TestSlowBodyIsCut(t *testing.T) {
	h := newHarness(t, func(c *proxy.Config) { c.Policy = slowPolicy() })
	addr := strings.TrimPrefix(h.front.URL, "http://")
	stalled := func(c net.Conn) { io.WriteString(c, `{"model":"m",`) } // then nothing
	trickle := func(c net.Conn) {                                      // a byte every 20 ms: never a 300 ms pause, 50 B/s
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for range tk.C {
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
		}
	}
	for _, tc := range []struct {
		name, path string
		feed       func(net.Conn)
	}{
		{"chat stalled", "/v1/chat/completions", stalled},
		{"chat trickle", "/v1/chat/completions", trickle},
		{"passthrough trickle", "/v1/embeddings", trickle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, hdr, body, after := rawRequest(t, addr, tc.path, 100000, tc.feed)
			if !strings.HasPrefix(status, "408") || hdr.Get("Connection") != "close" || !strings.Contains(body, `"code":"request_timeout"`) {
				t.Fatalf("slow body: %s %v %s, want 408 with Connection: close in the error shape", status, hdr, body)
			}
			var e struct {
				Error struct{ Message, Type string }
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Type != "invalid_request_error" {
				t.Errorf("408 body %q is not the API's error shape: %v", body, err)
			}
			t.Logf("%s cut and closed after %v", tc.name, after.Round(time.Millisecond))
		})
	}
	if m := h.metric(t, "memproxy_slow_bodies_total"); m != "memproxy_slow_bodies_total 3" {
		t.Errorf("metric %q, want 3 slow bodies", m)
	}
}

// TestSlowButSteadyUploadPasses: 256 KiB sent in 4 KiB pieces every
// 20 ms (about 200 KiB/s, 1.3 s: past the grace) against a 64 KiB/s
// minimum arrives whole.
func TestSlowButSteadyUploadPasses(t *testing.T) {
	p := slowPolicy()
	p.Server.BodyMinRate = 64 << 10
	h := newHarness(t, func(c *proxy.Config) { c.Policy = p })
	pad := strings.Repeat("x", 256<<10)
	body := `{"model":"m","messages":[{"role":"user","content":"hello ` + pad + `"}]}`
	pr, pw := io.Pipe()
	go func() {
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for rest := body; rest != ""; {
			<-tk.C
			n := min(len(rest), 4<<10)
			if _, err := io.WriteString(pw, rest[:n]); err != nil {
				return
			}
			rest = rest[n:]
		}
		pw.Close()
	}()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.front.URL+"/v1/chat/completions", pr)
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("steady upload: status %d", resp.StatusCode)
	}
	if got := len(h.fake.Last().Body); got < len(body) {
		t.Fatalf("upstream got %d bytes, want %d", got, len(body))
	}
	t.Logf("256 KiB at ~200 KiB/s passed in %v", time.Since(start).Round(time.Millisecond))
}

// blockRewriter holds every request in Rewrite until release is closed.
type blockRewriter struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blockRewriter) Rewrite(ctx context.Context, _ *proxy.ChatRequest) (*proxy.Rewrite, error) {
	b.entered <- struct{}{}
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	return &proxy.Rewrite{}, nil
}

func TestInFlightCap(t *testing.T) {
	p := policy.Default()
	p.Server.MaxInFlight = 2
	rw := &blockRewriter{entered: make(chan struct{}, 2), release: make(chan struct{})}
	h := newHarness(t, func(c *proxy.Config) { c.Policy, c.Rewriter = p, rw })
	body := `{"model":"m","messages":[{"role":"user","content":"tell me about the weather in Paris"}]}`
	done := make(chan int, 2)
	for range 2 {
		go func() {
			req, _ := http.NewRequest(http.MethodPost, h.front.URL+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer sk-test")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- 0
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			done <- resp.StatusCode
		}()
	}
	<-rw.entered
	<-rw.entered
	resp, text := h.post(t, body, nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(text, `"code":"overloaded"`) || !strings.Contains(text, "server.max_in_flight") {
		t.Fatalf("third request: %d %v %s, want 503 overloaded naming the policy key", resp.StatusCode, resp.Header, text)
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		r, err := http.Get(h.front.URL + path)
		if err != nil || r.StatusCode != http.StatusOK {
			t.Fatalf("%s while saturated: %v %v", path, r, err)
		}
		r.Body.Close()
	}
	if m := h.metric(t, "memproxy_requests_in_flight"); m != "memproxy_requests_in_flight 2" {
		t.Errorf("gauge %q, want 2", m)
	}
	close(rw.release)
	for range 2 {
		if code := <-done; code != http.StatusOK {
			t.Errorf("held request: %d", code)
		}
	}
	if resp, _ := h.post(t, body, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("after the load: %d", resp.StatusCode)
	}
	if m := h.metric(t, "memproxy_requests_rejected_total"); m != "memproxy_requests_rejected_total 1" {
		t.Errorf("metric %q", m)
	}
}

// TestStoredTurnIsCapped: what one turn hands the queue is cut to
// ingest.max_turn_bytes at a character boundary and marked truncated; a
// turn within the cap is kept whole and unmarked.
func TestStoredTurnIsCapped(t *testing.T) {
	p := policy.Default()
	p.Ingest.MaxTurnBytes = 4096
	h := newHarness(t, func(c *proxy.Config) { c.Policy = p })
	long := strings.Repeat("记住我喜欢绿茶 and hiking. ", 1000) // multi-byte runes across the cut
	h.fake.Push(fakeupstream.Reply{Content: strings.Repeat("Sure, noted. ", 1000)})
	body, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": "user", "content": long}}})
	if resp, text := h.post(t, string(body), nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, text)
	}
	turn := <-h.sink.got
	if len(turn.User) > 4096 || len(turn.Assistant) > 4096 || !turn.Truncated {
		t.Fatalf("turn user %d bytes, reply %d bytes, truncated=%v; want both <= 4096 and marked", len(turn.User), len(turn.Assistant), turn.Truncated)
	}
	if !utf8.ValidString(turn.User) || !strings.HasPrefix(long, turn.User) || len(turn.User) < 4090 {
		t.Errorf("user text not cut at a character boundary near the cap: %d bytes", len(turn.User))
	}
	if got := h.fake.Last().Body; !strings.Contains(string(got), long[:1000]) || len(got) < len(long) {
		t.Errorf("the upstream must still get the whole message (%d bytes)", len(got))
	}
	h.post(t, `{"model":"m","messages":[{"role":"user","content":"I like green tea and hiking on weekends"}]}`, nil)
	if turn := <-h.sink.got; turn.Truncated || turn.User != "I like green tea and hiking on weekends" {
		t.Errorf("short turn: %+v", turn)
	}
}

// TestNestingDepth: every API refuses a body nested past MaxJSONDepth
// with a 400 in its own error shape before any parser runs (the
// Responses and Messages routes parsed it: a 16 MiB body of "[" there
// overflowed the stack and killed the process, TestHostileShapes).
func TestNestingDepth(t *testing.T) {
	h := newHarness(t)
	nest := func(d int) string { return strings.Repeat("[", d) + strings.Repeat("]", d) }
	for _, api := range []struct{ path, body, errShape string }{
		{"/v1/chat/completions", `{"model":"m","metadata":%s,"messages":[{"role":"user","content":"hello there"}]}`, `"code":"nesting_too_deep"`},
		{"/v1/responses", `{"model":"m","metadata":%s,"input":"hello there"}`, `"code":"nesting_too_deep"`},
		{"/v1/messages", `{"model":"m","max_tokens":5,"metadata":%s,"messages":[{"role":"user","content":"hello there"}]}`, `"type":"error","error":{"type":"invalid_request_error","message":"request body nests`},
	} {
		for _, tc := range []struct {
			name, metadata string
			status         int
		}{
			// The metadata value is one level inside the body.
			{"at the limit", nest(proxy.MaxJSONDepth - 1), http.StatusOK},
			{"past the limit", nest(proxy.MaxJSONDepth), http.StatusBadRequest},
			{"brackets inside a string", `"` + strings.Repeat(`[{\"`, 20000) + `"`, http.StatusOK},
		} {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.front.URL+api.path, strings.NewReader(fmt.Sprintf(api.body, tc.metadata)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer sk-test")
			if api.path == "/v1/messages" {
				req.Header.Set("Anthropic-Version", "2023-06-01")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("%s %s: %d %.200s, want %d", api.path, tc.name, resp.StatusCode, b, tc.status)
			}
			if tc.status == http.StatusBadRequest && !strings.Contains(string(b), api.errShape) {
				t.Errorf("%s %s: %s, want %s", api.path, tc.name, b, api.errShape)
			}
		}
	}
}
