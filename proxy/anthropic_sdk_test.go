package proxy_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/tidwall/gjson"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

func (t *tee) anthropicMiddleware() aoption.RequestOption {
	return aoption.WithMiddleware(func(r *http.Request, next aoption.MiddlewareNext) (*http.Response, error) {
		resp, err := next(r)
		if err != nil {
			return resp, err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.bodies = append(t.bodies, b)
		resp.Body = io.NopCloser(bytes.NewReader(b))
		return resp, nil
	})
}

func anthropicClient(h *harness, opts ...aoption.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]aoption.RequestOption{
		aoption.WithBaseURL(h.front.URL), aoption.WithAPIKey("sk-ant-test"), aoption.WithMaxRetries(0),
	}, opts...)...)
}

func TestAnthropicSDKPlain(t *testing.T) {
	var seen []*proxy.ChatRequest
	h := newHarness(t, sectionRewriter(&seen))
	var tap tee
	var hresp *http.Response
	c := anthropicClient(h)
	msg, err := c.Messages.New(t.Context(), anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 256,
		System:   []anthropic.TextBlockParam{{Text: "A long, cached tool manual.", CacheControl: anthropic.NewCacheControlEphemeralParam()}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("who is my sister?"))},
		Metadata: anthropic.MetadataParam{UserID: anthropic.String("alice")},
	}, tap.anthropicMiddleware(), aoption.WithResponseInto(&hresp), aoption.WithHeader("anthropic-beta", "test-beta-1"))
	if err != nil {
		t.Fatalf("messages: %v", err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != fakeupstream.DefaultReply("who is my sister?") {
		t.Errorf("content = %+v", msg.Content)
	}
	if got := hresp.Header.Get(proxy.HeaderRecall); got != proxy.RecallInjected {
		t.Errorf("recall header = %q", got)
	}
	up := h.fake.Last()
	sys := gjson.GetBytes(up.Body, "system").Array()
	if up.Path != "/v1/messages" || len(sys) != 2 || sys[1].Get("text").Str != sdkSection || sys[1].Get("cache_control").Exists() ||
		sys[0].Get("cache_control.type").Str != "ephemeral" || sys[0].Get("text").Str != "A long, cached tool manual." {
		t.Errorf("upstream got %s %s", up.Path, up.Body)
	}
	for k, want := range map[string]string{"X-Api-Key": "sk-ant-test", "Anthropic-Beta": "test-beta-1"} {
		if got := up.Header.Get(k); got != want {
			t.Errorf("upstream %s = %q, want %q", k, got, want)
		}
	}
	if up.Header.Get("Anthropic-Version") == "" {
		t.Errorf("anthropic-version not forwarded")
	}
	if len(seen) != 1 || seen[0].API != proxy.APIMessages || seen[0].Scope.User != "alice" {
		t.Errorf("rewriter saw %+v", seen)
	}
	tr := h.sink.wait(t)
	if tr.API != proxy.APIMessages || tr.User != "who is my sister?" || tr.Assistant != msg.Content[0].Text || tr.FinishReason != "end_turn" || tr.Scope.User != "alice" {
		t.Errorf("turn = %+v", tr)
	}
	if got, want := maskIDs(tap.last()), h.direct(t); !bytes.Equal(got, want) {
		t.Errorf("reply bytes differ from direct:\n%s\n%s", got, want)
	}
}

func TestAnthropicSDKStreamed(t *testing.T) {
	h := newHarness(t, sectionRewriter(nil))
	pieces := []string{"Your ", "sister ", "is ", "Ottilie."}
	rep := fakeupstream.Reply{Content: strings.Join(pieces, ""), Chunks: pieces}
	h.fake.Push(rep, rep)
	var tap tee
	c := anthropicClient(h, tap.anthropicMiddleware())
	stream := c.Messages.NewStreaming(t.Context(), anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 256,
		System:   []anthropic.TextBlockParam{{Text: "Be warm."}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("who is my sister?"))},
	})
	var acc anthropic.Message
	var deltas []string
	for stream.Next() {
		ev := stream.Current()
		if err := acc.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
		if d, ok := ev.AsAny().(anthropic.ContentBlockDeltaEvent); ok {
			deltas = append(deltas, d.Delta.Text)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if strings.Join(deltas, "|") != strings.Join(pieces, "|") || acc.StopReason != "end_turn" {
		t.Errorf("deltas = %q, stop %q", deltas, acc.StopReason)
	}
	if got := gjson.GetBytes(h.fake.Last().Body, "system.1.text").Str; got != sdkSection {
		t.Errorf("system = %s", gjson.GetBytes(h.fake.Last().Body, "system").Raw)
	}
	tr := h.sink.wait(t)
	if tr.Assistant != "Your sister is Ottilie." || tr.API != proxy.APIMessages || tr.FinishReason != "end_turn" {
		t.Errorf("turn = %+v", tr)
	}
	if got, want := maskIDs(tap.last()), h.direct(t); !bytes.Equal(got, want) {
		t.Errorf("stream bytes differ from direct:\n%s\n%s", got, want)
	}
}

func TestAnthropicSDKToolUse(t *testing.T) {
	h := newHarness(t, sectionRewriter(nil))
	c := anthropicClient(h)
	tools := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
		Name: "get_weather", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"query": map[string]any{"type": "string"}}},
	}}}
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("weather where my sister lives?"))}
	// The tool-use round streams, as agents do.
	stream := c.Messages.NewStreaming(t.Context(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 256, Tools: tools, Messages: msgs})
	var first anthropic.Message
	for stream.Next() {
		if err := first.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("first round: %v", err)
	}
	var use anthropic.ToolUseBlock
	for _, b := range first.Content {
		if b.Type == "tool_use" {
			use = b.AsToolUse()
		}
	}
	if use.Name != "get_weather" || gjson.GetBytes(use.Input, "query").Str != "weather where my sister lives?" || first.StopReason != "tool_use" {
		t.Fatalf("no tool use: %+v", first)
	}
	t1 := h.sink.wait(t)
	if !strings.HasPrefix(t1.Assistant, "[tool call] get_weather(") {
		t.Errorf("first turn = %+v", t1)
	}

	msgs = append(msgs, first.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(use.ID, "sunny, 21C", false)))
	var hresp *http.Response
	var tap tee
	second, err := c.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 256, Tools: tools, Messages: msgs},
		aoption.WithResponseInto(&hresp), tap.anthropicMiddleware())
	if err != nil {
		t.Fatalf("second round: %v", err)
	}
	if got, want := second.Content[0].Text, fakeupstream.ToolReply("sunny, 21C"); got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
	if got := hresp.Header.Get(proxy.HeaderRecall); got != proxy.RecallSkipped {
		t.Errorf("tool round recall = %q", got)
	}
	if gjson.GetBytes(h.fake.Last().Body, "system").Exists() {
		t.Errorf("tool round carries a section")
	}
	t2 := h.sink.wait(t)
	if t2.Assistant != second.Content[0].Text || t2.User != "" || !strings.Contains(t2.Context, "weather where my sister lives?") {
		t.Errorf("second turn = %+v", t2)
	}
	if got, want := maskIDs(tap.last()), h.direct(t); !bytes.Equal(got, want) {
		t.Errorf("reply bytes differ from direct")
	}
}

func TestAnthropicErrorsInAnthropicShape(t *testing.T) {
	h := newHarness(t)
	c := anthropicClient(h)
	// A bad body is refused by memproxy itself, in Anthropic's shape.
	_, err := c.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 10},
		aoption.WithJSONSet("messages", 5))
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != 400 {
		t.Fatalf("err = %v", err)
	}
	raw := ae.RawJSON()
	if gjson.Get(raw, "type").Str != "error" || gjson.Get(raw, "error.type").Str != "invalid_request_error" || !strings.Contains(gjson.Get(raw, "error.message").Str, "messages") {
		t.Errorf("error body = %s", raw)
	}
	if n := len(h.fake.Requests()); n != 0 {
		t.Errorf("bad request reached the upstream (%d)", n)
	}
	// An upstream error passes through unchanged.
	h.fake.Push(fakeupstream.Reply{Status: 529, Error: "Overloaded", ErrorType: "overloaded_error"})
	_, err = c.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 10,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	if !errors.As(err, &ae) || ae.StatusCode != 529 || gjson.Get(ae.RawJSON(), "error.type").Str != "overloaded_error" {
		t.Errorf("upstream error = %v", err)
	}
}

func TestAnthropicOtherPathsGoToAnthropicUpstream(t *testing.T) {
	ant := fakeupstream.New()
	antSrv := httptest.NewServer(ant.Handler())
	t.Cleanup(antSrv.Close)
	h := newHarness(t, func(c *proxy.Config) { c.AnthropicUpstream = antSrv.URL + "/" })
	c := anthropicClient(h)
	n, err := c.Messages.CountTokens(t.Context(), anthropic.MessageCountTokensParams{Model: "claude-test",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("count these words"))}})
	if err != nil || n.InputTokens == 0 {
		t.Fatalf("count_tokens: %+v %v", n, err)
	}
	// Models with anthropic-version go to the Anthropic upstream too.
	_, _ = c.Models.List(t.Context(), anthropic.ModelListParams{})
	var paths []string
	for _, r := range ant.Requests() {
		paths = append(paths, r.Path)
	}
	if strings.Join(paths, ",") != "/v1/messages/count_tokens,/v1/models" {
		t.Errorf("anthropic upstream got %q", paths)
	}
	if len(h.fake.Requests()) != 0 {
		t.Errorf("OpenAI upstream got Anthropic requests")
	}
	// /v1/messages too, and the memory pipeline runs there.
	if _, err := c.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 10,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}}); err != nil {
		t.Fatal(err)
	}
	if ant.Last().Path != "/v1/messages" || h.sink.wait(t).API != proxy.APIMessages {
		t.Errorf("messages did not go to the Anthropic upstream")
	}
}

func TestAnthropicOwnKeyRequiresClientKey(t *testing.T) {
	h := newHarness(t, func(c *proxy.Config) { c.AnthropicKey = "sk-ant-memproxy" })
	c := anthropicClient(h)
	_, err := c.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 10,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != 401 || gjson.Get(ae.RawJSON(), "error.type").Str != "authentication_error" {
		t.Fatalf("err = %v", err)
	}
	if len(h.fake.Requests()) != 0 {
		t.Errorf("request without a client key reached the upstream")
	}
	// The OpenAI side holds no key of its own: it stays open.
	if _, body := h.post(t, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, nil); !strings.Contains(body, "You said") {
		t.Errorf("chat = %s", body)
	}
}

// Breakpoints inside messages with the section in system are counted (the
// agent's cached turns are rebuilt); before_last_user leaves them be.
func TestAnthropicBreakpointMetric(t *testing.T) {
	for _, placement := range []string{"system", "before_last_user"} {
		t.Run(placement, func(t *testing.T) {
			h := newHarness(t, sectionRewriter(nil), func(c *proxy.Config) { c.Policy.Inject.Placement = placement })
			c := anthropicClient(h)
			if _, err := c.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 10,
				Messages: []anthropic.MessageParam{
					anthropic.NewUserMessage(anthropic.ContentBlockParamUnion{OfText: &anthropic.TextBlockParam{Text: "earlier turn", CacheControl: anthropic.NewCacheControlEphemeralParam()}}),
					anthropic.NewAssistantMessage(anthropic.NewTextBlock("ok")),
					anthropic.NewUserMessage(anthropic.NewTextBlock("who is my sister?")),
				}}); err != nil {
				t.Fatal(err)
			}
			want := "memproxy_anthropic_breakpoint_rebuilds_total 1"
			if placement != "system" {
				want = "memproxy_anthropic_breakpoint_rebuilds_total 0"
			}
			if got := h.metric(t, "memproxy_anthropic_breakpoint_rebuilds_total"); got != want {
				t.Errorf("metric = %q, want %q", got, want)
			}
			body := h.fake.Last().Body
			if placement == "before_last_user" {
				if got := gjson.GetBytes(body, "messages.2.content.0.text").Str; got != sdkSection || gjson.GetBytes(body, "system").Exists() {
					t.Errorf("upstream body = %s", body)
				}
				if gjson.GetBytes(body, "messages.0").Raw != `{"content":[{"text":"earlier turn","cache_control":{"type":"ephemeral"},"type":"text"}],"role":"user"}` {
					t.Errorf("earlier turn changed: %s", gjson.GetBytes(body, "messages.0").Raw)
				}
			}
		})
	}
}

// A bare provider key is one user whichever header carries it.
func TestProviderKeySameUserAcrossAPIs(t *testing.T) {
	h := newHarness(t)
	_, _ = h.post(t, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, map[string]string{"Authorization": "Bearer sk-shared"})
	chat := h.sink.wait(t)
	c := anthropic.NewClient(aoption.WithBaseURL(h.front.URL), aoption.WithAPIKey("sk-shared"), aoption.WithMaxRetries(0))
	if _, err := c.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 10,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}}); err != nil {
		t.Fatal(err)
	}
	msgs := h.sink.wait(t)
	if chat.Scope != msgs.Scope || !strings.HasPrefix(chat.Scope.User, "key:") {
		t.Errorf("chat scope %v, messages scope %v", chat.Scope, msgs.Scope)
	}
}

// TestAnthropicToolResultsStayFirst: with inject.placement
// before_last_user, a user message that returns a tool result and asks
// more (Claude Code's shape) reaches the upstream with its tool_result
// first, as Anthropic requires: the section went ahead of it, and the
// round was a 400.
func TestAnthropicToolResultsStayFirst(t *testing.T) {
	p := policy.Default()
	p.Inject.Placement = "before_last_user"
	h := newHarness(t, sectionRewriter(nil), func(c *proxy.Config) { c.Policy = p })
	c := anthropicClient(h)
	msgs := []anthropic.MessageParam{
		anthropic.NewUserMessage(anthropic.NewTextBlock("weather where my sister lives?")),
		anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_1", map[string]any{"city": "Lyon"}, "get_weather")),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_1", "sunny, 21C", false), anthropic.NewTextBlock("And what should she wear?")),
	}
	var hresp *http.Response
	_, err := c.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 256, Messages: msgs}, aoption.WithResponseInto(&hresp))
	if err != nil {
		t.Fatalf("tool round with text: %v", err)
	}
	if got := hresp.Header.Get(proxy.HeaderRecall); got != proxy.RecallInjected {
		t.Errorf("recall = %q, want injected", got)
	}
	blocks := gjson.GetBytes(h.fake.Last().Body, "messages.2.content").Array()
	if len(blocks) != 3 || blocks[0].Get("type").Str != "tool_result" || blocks[1].Get("text").Str != sdkSection || blocks[2].Get("text").Str != "And what should she wear?" {
		t.Errorf("last user content upstream = %s", gjson.GetBytes(h.fake.Last().Body, "messages.2.content").Raw)
	}
}
