package proxy_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/proxy"
)

const sdkSection = "<memory>\n- [fact 2026-10-01 m:8f2c] The user's sister is Ottilie.\n</memory>"

// sectionRewriter injects sdkSection into every request whose last
// message is the user's, as recallpath does.
func sectionRewriter(seen *[]*proxy.ChatRequest) func(*proxy.Config) {
	return func(c *proxy.Config) {
		c.Rewriter = rewriterFunc(func(_ context.Context, req *proxy.ChatRequest) (*proxy.Rewrite, error) {
			if seen != nil {
				*seen = append(*seen, req)
			}
			if len(req.Messages) == 0 || req.Messages[len(req.Messages)-1].Role != "user" {
				return &proxy.Rewrite{Status: proxy.RecallSkipped}, nil
			}
			return &proxy.Rewrite{Section: sdkSection, Status: proxy.RecallInjected, Memories: 1, Injected: []string{"m1"}}, nil
		})
	}
}

// tee records the raw bytes of every response the SDK receives.
type tee struct{ bodies [][]byte }

func (t *tee) middleware() option.RequestOption {
	return option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
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

func (t *tee) last() []byte { return t.bodies[len(t.bodies)-1] }

var fakeIDs = regexp.MustCompile(`\b(resp|msg|fc|toolu|call)_fake[0-9_]+`)

// direct sends the body the upstream last received straight to the fake
// and returns its answer, ids masked: the reply memproxy relayed must be
// these bytes.
func (h *harness) direct(t *testing.T) []byte {
	t.Helper()
	last := h.fake.Last()
	req, _ := http.NewRequestWithContext(t.Context(), last.Method, h.up.URL+last.Path, bytes.NewReader(last.Body))
	req.Header = last.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return maskIDs(b)
}

func maskIDs(b []byte) []byte { return fakeIDs.ReplaceAll(b, []byte("${1}_ID")) }

func TestResponsesSDKPlain(t *testing.T) {
	var seen []*proxy.ChatRequest
	h := newHarness(t, sectionRewriter(&seen))
	var tap tee
	var hresp *http.Response
	res, err := h.client.Responses.New(t.Context(), responses.ResponseNewParams{
		Model:        "gpt-test",
		Instructions: openai.String("Be brief."),
		Input:        responses.ResponseNewParamsInputUnion{OfString: openai.String("who is my sister?")},
		User:         openai.String("alice"),
	}, tap.middleware(), option.WithResponseInto(&hresp))
	if err != nil {
		t.Fatalf("responses: %v", err)
	}
	if got, want := res.OutputText(), fakeupstream.DefaultReply("who is my sister?"); got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	if got := hresp.Header.Get(proxy.HeaderRecall); got != proxy.RecallInjected {
		t.Errorf("recall header = %q", got)
	}
	up := h.fake.Last()
	if up.Path != "/v1/responses" || gjson.GetBytes(up.Body, "instructions").Str != "Be brief.\n\n"+sdkSection {
		t.Errorf("upstream got %s %s", up.Path, up.Body)
	}
	if len(seen) != 1 || seen[0].API != proxy.APIResponses || seen[0].Scope.User != "alice" {
		t.Errorf("rewriter saw %+v", seen)
	}
	tr := h.sink.wait(t)
	if tr.API != proxy.APIResponses || tr.User != "who is my sister?" || tr.Assistant != res.OutputText() || tr.Scope.User != "alice" || tr.FinishReason != "completed" {
		t.Errorf("turn = %+v", tr)
	}
	if got, want := maskIDs(tap.last()), h.direct(t); !bytes.Equal(got, want) {
		t.Errorf("reply bytes differ from direct:\n%s\n%s", got, want)
	}
}

func TestResponsesSDKStreamed(t *testing.T) {
	h := newHarness(t, sectionRewriter(nil))
	pieces := []string{"Your ", "sister ", "is ", "Ottilie."}
	// Once through memproxy, once direct.
	rep := fakeupstream.Reply{Content: strings.Join(pieces, ""), Chunks: pieces}
	h.fake.Push(rep, rep)
	var tap tee
	stream := h.client.Responses.NewStreaming(t.Context(), responses.ResponseNewParams{
		Model: "gpt-test",
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfMessage("who is my sister?", responses.EasyInputMessageRoleUser),
		}},
	}, tap.middleware())
	var deltas []string
	completed := false
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			deltas = append(deltas, ev.Delta)
		case "response.completed":
			completed = true
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if strings.Join(deltas, "|") != strings.Join(pieces, "|") || !completed {
		t.Errorf("deltas = %q, completed %v", deltas, completed)
	}
	if got := gjson.GetBytes(h.fake.Last().Body, "instructions").Str; got != sdkSection {
		t.Errorf("instructions = %q", got)
	}
	tr := h.sink.wait(t)
	if tr.Assistant != "Your sister is Ottilie." || tr.API != proxy.APIResponses {
		t.Errorf("turn = %+v", tr)
	}
	if got, want := maskIDs(tap.last()), h.direct(t); !bytes.Equal(got, want) {
		t.Errorf("stream bytes differ from direct:\n%s\n%s", got, want)
	}
}

func TestResponsesSDKToolRoundTrip(t *testing.T) {
	var seen []*proxy.ChatRequest
	h := newHarness(t, sectionRewriter(&seen))
	tools := []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{
		Name: "get_weather", Parameters: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}},
	}}}
	client := h.client
	first, err := client.Responses.New(t.Context(), responses.ResponseNewParams{
		Model: "gpt-test", Tools: tools,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("weather where my sister lives?")},
	})
	if err != nil {
		t.Fatalf("first round: %v", err)
	}
	var call responses.ResponseFunctionToolCall
	for _, it := range first.Output {
		if it.Type == "function_call" {
			call = it.AsFunctionCall()
		}
	}
	if call.Name != "get_weather" || call.CallID == "" {
		t.Fatalf("no function call: %+v", first.Output)
	}
	t1 := h.sink.wait(t)

	out := responses.ResponseInputItemParamOfFunctionCallOutput("sunny, 21C")
	out.OfFunctionCallOutput.CallID = openai.String(call.CallID)
	var hresp *http.Response
	var tap tee
	second, err := client.Responses.New(t.Context(), responses.ResponseNewParams{
		Model: "gpt-test", Tools: tools, PreviousResponseID: openai.String(first.ID),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{out}},
	}, option.WithResponseInto(&hresp), tap.middleware())
	if err != nil {
		t.Fatalf("second round: %v", err)
	}
	if got, want := second.OutputText(), fakeupstream.ToolReply("sunny, 21C"); got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	// The tool round does not recall again: nothing placed.
	if got := hresp.Header.Get(proxy.HeaderRecall); got != proxy.RecallSkipped {
		t.Errorf("tool round recall = %q", got)
	}
	if gjson.GetBytes(h.fake.Last().Body, "instructions").Exists() {
		t.Errorf("tool round carries a section: %s", h.fake.Last().Body)
	}
	t2 := h.sink.wait(t)
	// The chain keeps the session, and the context is the first round.
	if t2.Session != t1.Session || !strings.Contains(t2.Context, "weather where my sister lives?") {
		t.Errorf("chained turn session %q (first %q), context %q", t2.Session, t1.Session, t2.Context)
	}
	if len(seen) != 2 || seen[1].Session != t1.Session {
		t.Errorf("rewriter sessions = %+v", seen)
	}
	if got, want := maskIDs(tap.last()), h.direct(t); !bytes.Equal(got, want) {
		t.Errorf("reply bytes differ from direct")
	}
}

func TestResponsesBackgroundCapturedOnFetch(t *testing.T) {
	h := newHarness(t, sectionRewriter(nil))
	res, err := h.client.Responses.New(t.Context(), responses.ResponseNewParams{
		Model: "gpt-test", Background: openai.Bool(true),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("remember that my sister is Ottilie")},
	})
	if err != nil {
		t.Fatalf("responses: %v", err)
	}
	if res.Status != "queued" {
		t.Fatalf("status = %q", res.Status)
	}
	if n := len(h.sink.Turns()); n != 0 {
		t.Fatalf("%d turns captured before completion", n)
	}
	got, err := h.client.Responses.Get(t.Context(), res.ID, responses.ResponseGetParams{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	tr := h.sink.wait(t)
	if tr.User != "remember that my sister is Ottilie" || tr.Assistant != got.OutputText() || tr.API != proxy.APIResponses {
		t.Errorf("turn = %+v", tr)
	}
	// A second fetch captures nothing more.
	if _, err := h.client.Responses.Get(t.Context(), res.ID, responses.ResponseGetParams{}); err != nil {
		t.Fatal(err)
	}
	if n := len(h.sink.Turns()); n != 1 {
		t.Errorf("turns = %d, want 1", n)
	}
}

func TestResponsesBadInputIsOpenAIError(t *testing.T) {
	h := newHarness(t)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.front.URL+"/v1/responses", strings.NewReader(`{"model":"m","input":5}`))
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || gjson.GetBytes(b, "error.param").Str != "input" {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	if len(h.fake.Requests()) != 0 {
		t.Errorf("bad request reached the upstream")
	}
}
