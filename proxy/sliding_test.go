package proxy_test

import (
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/memproxy/memproxy/proxy"
)

// TestSlidingWindowKeepsSession: a chat app that resends only its last
// few messages drops the first ones the session is hashed from; the
// exchange before its new message is the one captured last, so the turns
// stay in one session. A history memproxy never answered starts its own,
// and X-Memproxy-Session still wins.
func TestSlidingWindowKeepsSession(t *testing.T) {
	h := newHarness(t)
	sys := openai.SystemMessage("You are a helpful assistant.")
	var history []openai.ChatCompletionMessageParamUnion
	ask := func(window int, text string, opts ...option.RequestOption) string {
		t.Helper()
		history = append(history, openai.UserMessage(text))
		msgs := history[max(0, len(history)-window):]
		cc, err := h.client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{
			Model: "gpt-test", Messages: append([]openai.ChatCompletionMessageParamUnion{sys}, msgs...),
		}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		history = append(history, openai.AssistantMessage(cc.Choices[0].Message.Content))
		return h.sink.wait(t).Session
	}
	first := ask(3, "My sister Ottilie lives in Lisbon.")
	for i, text := range []string{"She works as a nurse.", "She moved there in 2019.", "Her husband is called Rui.", "They have a dog."} {
		// Three messages back: from the third request on, the first
		// user message is gone from what the app sends.
		if got := ask(3, text); got != first {
			t.Fatalf("request %d went to session %q, the conversation is in %q", i+2, got, first)
		}
	}
	history = nil
	if other := ask(3, "A new chat: what is a good name for a cat?"); other == first {
		t.Errorf("a new conversation joined the old session %q", first)
	}
	if got := ask(3, "Something short please.", option.WithHeader(proxy.HeaderSession, "mine")); got != "mine" {
		t.Errorf("X-Memproxy-Session gave session %q", got)
	}
}
