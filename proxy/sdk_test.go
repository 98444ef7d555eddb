package proxy_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/proxy"
)

func TestSDKNonStreaming(t *testing.T) {
	h := newHarness(t)
	var resp *http.Response
	cc, err := h.client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("be brief"), openai.UserMessage("hello there")},
	}, option.WithResponseInto(&resp))
	if err != nil {
		t.Fatalf("chat: %v", err)
	}
	if got, want := cc.Choices[0].Message.Content, fakeupstream.DefaultReply("hello there"); got != want {
		t.Errorf("content = %q, want %q", got, want)
	}
	for _, k := range []string{proxy.HeaderRequestID, proxy.HeaderArm, proxy.HeaderRecall, proxy.HeaderMemories, proxy.HeaderOverhead} {
		if resp.Header.Get(k) == "" {
			t.Errorf("response header %s missing", k)
		}
	}
	if got := resp.Header.Get(proxy.HeaderRecall); got != proxy.RecallSkipped {
		t.Errorf("recall = %q, want skipped (no rewriter)", got)
	}
	tr := h.sink.wait(t)
	if tr.User != "hello there" || tr.Assistant != fakeupstream.DefaultReply("hello there") || tr.FinishReason != "stop" || tr.Model != "gpt-test" {
		t.Errorf("turn = %+v", tr)
	}
	if tr.RequestID != resp.Header.Get(proxy.HeaderRequestID) {
		t.Errorf("turn request id %q != header %q", tr.RequestID, resp.Header.Get(proxy.HeaderRequestID))
	}
	if !strings.HasPrefix(tr.Scope.User, "key:") || tr.Scope.Namespace != "default" {
		t.Errorf("scope = %+v, want bearer hash in default namespace", tr.Scope)
	}
}

func TestSDKStreaming(t *testing.T) {
	h := newHarness(t)
	pieces := []string{"Hel", "lo, ", "wor", "ld!"}
	h.fake.Push(fakeupstream.Reply{Chunks: pieces, Content: "Hello, world!"})
	stream := h.client.Chat.Completions.NewStreaming(t.Context(), openai.ChatCompletionNewParams{
		Model:         "gpt-test",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("greet me")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	var got []string
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		ch := stream.Current()
		acc.AddChunk(ch)
		if len(ch.Choices) > 0 && ch.Choices[0].Delta.Content != "" {
			got = append(got, ch.Choices[0].Delta.Content)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if strings.Join(got, "|") != strings.Join(pieces, "|") {
		t.Errorf("pieces = %q, want %q in order", got, pieces)
	}
	if acc.Usage.TotalTokens != 12 {
		t.Errorf("usage chunk lost: %+v", acc.Usage)
	}
	tr := h.sink.wait(t)
	if tr.Assistant != "Hello, world!" || tr.FinishReason != "stop" || tr.User != "greet me" {
		t.Errorf("turn = %+v", tr)
	}
}

func TestSDKToolCalls(t *testing.T) {
	params := openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Paris?")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:       "get_weather",
			Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
		})},
	}
	call := fakeupstream.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}
	wantTurn := `[tool call] get_weather({"city":"Paris"})`

	t.Run("json", func(t *testing.T) {
		h := newHarness(t)
		h.fake.Push(fakeupstream.Reply{ToolCalls: []fakeupstream.ToolCall{call}})
		cc, err := h.client.Chat.Completions.New(t.Context(), params)
		if err != nil {
			t.Fatal(err)
		}
		tc := cc.Choices[0].Message.ToolCalls
		if len(tc) != 1 || tc[0].Function.Name != "get_weather" || tc[0].Function.Arguments != call.Arguments {
			t.Errorf("tool calls = %+v", tc)
		}
		if !strings.Contains(string(h.fake.Last().Body), `"get_weather"`) {
			t.Error("tools did not reach the upstream")
		}
		if tr := h.sink.wait(t); tr.Assistant != wantTurn || tr.FinishReason != "tool_calls" {
			t.Errorf("turn = %+v", tr)
		}
	})
	t.Run("stream", func(t *testing.T) {
		h := newHarness(t)
		h.fake.Push(fakeupstream.Reply{ToolCalls: []fakeupstream.ToolCall{call}})
		stream := h.client.Chat.Completions.NewStreaming(t.Context(), params)
		var acc openai.ChatCompletionAccumulator
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		tc := acc.Choices[0].Message.ToolCalls
		if len(tc) != 1 || tc[0].Function.Arguments != call.Arguments {
			t.Errorf("accumulated tool calls = %+v", tc)
		}
		if tr := h.sink.wait(t); tr.Assistant != wantTurn || tr.FinishReason != "tool_calls" {
			t.Errorf("turn = %+v", tr)
		}
	})
}

func TestSDKUpstreamErrors(t *testing.T) {
	for _, tc := range []struct {
		status     int
		msg        string
		retryAfter string
	}{
		{http.StatusTooManyRequests, "Rate limit reached for gpt-test", "7"},
		{http.StatusInternalServerError, "The server had an error while processing your request", ""},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			h := newHarness(t)
			hdr := http.Header{}
			if tc.retryAfter != "" {
				hdr.Set("Retry-After", tc.retryAfter)
			}
			h.fake.Push(fakeupstream.Reply{Status: tc.status, Error: tc.msg, Header: hdr})
			var resp *http.Response
			_, err := h.client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{
				Model: "gpt-test", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
			}, option.WithResponseInto(&resp))
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want *openai.Error", err)
			}
			if apiErr.StatusCode != tc.status || apiErr.Message != tc.msg {
				t.Errorf("got %d %q, want %d %q", apiErr.StatusCode, apiErr.Message, tc.status, tc.msg)
			}
			if got := apiErr.Response.Header.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
			}
			if apiErr.Response.Header.Get(proxy.HeaderRequestID) == "" {
				t.Error("error response lacks request id")
			}
			if n := len(h.sink.Turns()); n != 0 {
				t.Errorf("captured %d turns of a failed call", n)
			}
		})
	}
}

func TestSDKPassThrough(t *testing.T) {
	h := newHarness(t)
	models, err := h.client.Models.List(t.Context())
	if err != nil {
		t.Fatalf("models: %v", err)
	}
	if len(models.Data) != 2 || models.Data[0].ID != "fake-model" {
		t.Errorf("models = %+v", models.Data)
	}
	emb, err := h.client.Embeddings.New(t.Context(), openai.EmbeddingNewParams{
		Model: "fake-embedding",
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"a", "b"}},
	})
	if err != nil {
		t.Fatalf("embeddings: %v", err)
	}
	if len(emb.Data) != 2 || len(emb.Data[1].Embedding) != 8 {
		t.Fatalf("embeddings = %+v", emb.Data)
	}
	want := fakeupstream.Embedding("b", 8)
	if float32(emb.Data[1].Embedding[0]) != want[0] {
		t.Errorf("embedding[0] = %v, want %v", emb.Data[1].Embedding[0], want[0])
	}
	stream := h.client.Completions.NewStreaming(t.Context(), openai.CompletionNewParams{
		Model:  "fake-model",
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("tell me more")},
	})
	var text strings.Builder
	events := 0
	for stream.Next() {
		events++
		text.WriteString(stream.Current().Choices[0].Text)
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("completions stream: %v", err)
	}
	if text.String() != fakeupstream.DefaultReply("tell me more") || events < 2 {
		t.Errorf("streamed completion = %q in %d events", text.String(), events)
	}
	if n := len(h.sink.Turns()); n != 0 {
		t.Errorf("pass-through routes captured %d turns", n)
	}
}
