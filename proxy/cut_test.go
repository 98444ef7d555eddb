package proxy_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/proxy"
)

// TestUpstreamCutReachesTheClient: when the upstream's connection breaks
// mid-reply, the client sees its reply broken, as it would talking to the
// upstream directly, on every API and through the official SDKs; nothing
// is captured. memproxy used to end its response cleanly, so an SDK took
// the first half of a reply for the whole of it.
func TestUpstreamCutReachesTheClient(t *testing.T) {
	h := newHarness(t, sectionRewriter(nil))
	const text = "Your sister Ottilie lives in Lyon with her two cats."
	cut := fakeupstream.Reply{Content: text, Cut: 4}

	t.Run("chat stream", func(t *testing.T) {
		h.fake.Push(cut)
		stream := h.client.Chat.Completions.NewStreaming(t.Context(), openai.ChatCompletionNewParams{
			Model: "gpt-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("where does my sister live?")},
		})
		var got strings.Builder
		for stream.Next() {
			if ch := stream.Current(); len(ch.Choices) > 0 {
				got.WriteString(ch.Choices[0].Delta.Content)
			}
		}
		if stream.Err() == nil {
			t.Errorf("stream ended cleanly after %q of %q", got.String(), text)
		}
	})
	t.Run("responses stream", func(t *testing.T) {
		h.fake.Push(cut)
		stream := h.client.Responses.NewStreaming(t.Context(), responses.ResponseNewParams{
			Model: "gpt-test", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("where does my sister live?")},
		})
		n := 0
		for stream.Next() {
			n++
		}
		if stream.Err() == nil {
			t.Errorf("stream ended cleanly after %d events", n)
		}
	})
	t.Run("messages stream", func(t *testing.T) {
		h.fake.Push(cut)
		c := anthropicClient(h)
		stream := c.Messages.NewStreaming(t.Context(), anthropic.MessageNewParams{
			Model: "claude-test", MaxTokens: 256,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("where does my sister live?"))},
		})
		n := 0
		for stream.Next() {
			n++
		}
		if stream.Err() == nil {
			t.Errorf("stream ended cleanly after %d events", n)
		}
	})
	t.Run("chat body, not captured", func(t *testing.T) {
		// A readonly request (nothing to capture) relays the body as it comes.
		h.fake.Push(fakeupstream.Reply{Body: `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"},"finish_reason":"stop"}]}`, Cut: 1})
		_, err := h.client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{
			Model: "gpt-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("where does my sister live?")},
		}, option.WithHeader(proxy.HeaderMemory, proxy.ArmReadonly))
		if err == nil {
			t.Errorf("half a reply taken for a whole one")
		}
		// Below the SDK: the body itself ends broken, not cleanly.
		h.fake.Push(fakeupstream.Reply{Body: `{"id":"chatcmpl-1","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"}}]}`, Cut: 1})
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.front.URL+"/v1/chat/completions",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"where does my sister live?"}]}`))
		req.Header.Set("Authorization", "Bearer sk-test")
		req.Header.Set(proxy.HeaderMemory, proxy.ArmReadonly)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil {
				t.Errorf("body ended cleanly after %q", b)
			}
		}
	})
	t.Run("chat body, captured", func(t *testing.T) {
		h.fake.Push(fakeupstream.Reply{Body: `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"},"finish_reason":"stop"}]}`, Cut: 1})
		_, err := h.client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{
			Model: "gpt-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("where does my sister live?")},
		})
		if err == nil {
			t.Errorf("half a reply taken for a whole one")
		}
	})
	if turns := h.sink.Turns(); len(turns) != 0 {
		t.Errorf("captured %d turns of broken replies: %+v", len(turns), turns[0])
	}
}

// TestLongRepliesBounded: a reply longer than memproxy reads for capture
// (maxCapturedReply, lowered here to 4 KiB) reaches the client whole and
// unchanged, plain or streamed, even as one endless event, and is not
// captured: memproxy holds no more of it than the bound. It read a plain
// reply whole and rebuilt a stream's text without bound.
func TestLongRepliesBounded(t *testing.T) {
	defer proxy.SetMaxCapturedReply(4 << 10)()
	h := newHarness(t)
	long := strings.Repeat("Ottilie lives in Lyon. ", 600) // ~14 KB
	ask := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("where does my sister live?")}

	h.fake.Push(fakeupstream.Reply{Content: long})
	cc, err := h.client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{Model: "gpt-test", Messages: ask})
	if err != nil || cc.Choices[0].Message.Content != long {
		t.Errorf("plain: %v", err)
	}
	for _, chunks := range [][]string{nil, {long}} { // many events; one long event
		h.fake.Push(fakeupstream.Reply{Content: long, Chunks: chunks})
		stream := h.client.Chat.Completions.NewStreaming(t.Context(), openai.ChatCompletionNewParams{Model: "gpt-test", Messages: ask})
		var got strings.Builder
		for stream.Next() {
			if ch := stream.Current(); len(ch.Choices) > 0 {
				got.WriteString(ch.Choices[0].Delta.Content)
			}
		}
		if err := stream.Err(); err != nil || got.String() != long {
			t.Errorf("stream (%d chunks): %v, %d of %d bytes", len(chunks), err, got.Len(), len(long))
		}
	}
	if turns := h.sink.Turns(); len(turns) != 0 {
		t.Errorf("captured %d turns past the bound", len(turns))
	}
	// A reply within the bound is captured as ever.
	h.fake.Push(fakeupstream.Reply{Content: "Ottilie lives in Lyon."})
	if _, err := h.client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{Model: "gpt-test", Messages: ask}); err != nil {
		t.Fatal(err)
	}
	if tr := h.sink.wait(t); tr.Assistant != "Ottilie lives in Lyon." {
		t.Errorf("short turn = %+v", tr)
	}
}
