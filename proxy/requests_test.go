package proxy_test

import (
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/internal/loadshed"
	"github.com/memproxy/memproxy/proxy"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// TestRequestsInFlight: Config.Requests counts a request from its start
// to its last byte on every arm, the off arm (which never recalls, so no
// rewrite marks it) included: the background paces itself by it.
func TestRequestsInFlight(t *testing.T) {
	// Yield waits (up to MaxWait) until nothing is in flight: the
	// signal that the handlers returned.
	g := &loadshed.Gauge{MaxWait: time.Minute}
	h := newHarness(t, func(c *proxy.Config) { c.Requests = g })
	hold := make(chan struct{})
	h.fake.Push(fakeupstream.Reply{Chunks: []string{"Hel", "lo"}, Content: "Hello", Hold: hold})
	stream := h.client.Chat.Completions.NewStreaming(t.Context(), openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("I moved to Lisbon last month")},
	}, option.WithHeader(proxy.HeaderMemory, proxy.ArmOff))
	if !stream.Next() { // the first event arrived: the upstream now holds the rest
		t.Fatalf("no first event: %v", stream.Err())
	}
	if n := g.InFlight(); n != 1 {
		t.Errorf("in flight while the reply streams = %d, want 1", n)
	}
	close(hold)
	for stream.Next() {
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	stream.Close()
	if _, body := h.post(t, `{"model":"m","messages":[{"role":"user","content":"ok"}]}`, nil); body == "" {
		t.Fatal("empty reply")
	}
	g.Yield(t.Context())
	if n := g.InFlight(); n != 0 {
		t.Errorf("in flight after the replies = %d, want 0", n)
	}
}
