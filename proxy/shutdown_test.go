package proxy_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/internal/fakeupstream"
)

// TestGracefulShutdownFinishesStream starts a stream, begins shutdown while
// the upstream is still holding it, then lets the upstream finish: the
// client must get the whole stream and Serve must return cleanly.
func TestGracefulShutdownFinishesStream(t *testing.T) {
	h := newHarness(t)
	hold := make(chan struct{})
	h.fake.Push(fakeupstream.Reply{Content: "still here", Hold: hold})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- h.srv.Serve(ctx, ln) }()

	req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/v1/chat/completions",
		strings.NewReader(`{"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("X-Memproxy-User", "alice") // an anonymous caller's turn is not captured
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := readEvent(br); err != nil {
		t.Fatal(err)
	}
	stop() // SIGTERM: stop accepting, drain in-flight streams
	// New connections are refused once the listener is closed.
	for {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			break
		}
		c.Close()
	}
	close(hold)
	var rest strings.Builder
	for {
		ev, err := readEvent(br)
		rest.WriteString(ev)
		if err != nil {
			break
		}
	}
	if !strings.Contains(rest.String(), `"still "`) || !strings.HasSuffix(rest.String(), "data: [DONE]\n\n") {
		t.Errorf("stream cut by shutdown: %q", rest.String())
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v", err)
	}
	if tr := h.sink.wait(t); tr.Assistant != "still here" {
		t.Errorf("turn = %+v", tr)
	}
}
