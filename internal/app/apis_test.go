package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/proxy"
)

func (h *harness) anthropic(user string) anthropic.Client {
	return anthropic.NewClient(aoption.WithBaseURL(h.srv.URL), aoption.WithAPIKey("sk-ant-app-key"),
		aoption.WithMaxRetries(0), aoption.WithHeader("X-Memproxy-User", user))
}

// A fact told through one API is recalled through the others for the same
// X-Memproxy-User; every turn and recall-log row records its API.
func TestMemoryAcrossAPIs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		h := newHarness(t, backend)
		ctx := t.Context()

		// Told through the Responses API.
		rc := h.client("carol")
		if _, err := rc.Responses.New(ctx, responses.ResponseNewParams{
			Model: "gpt-test",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("My sister Ottilie moved to Lisbon last spring and works there as an architect.")},
		}, option.WithHeader("X-Memproxy-Session", "r1")); err != nil {
			t.Fatalf("responses: %v", err)
		}
		// Told through the Anthropic Messages API.
		ac := h.anthropic("carol")
		if _, err := ac.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 100,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("I'm training for the Berlin marathon in September with my running club."))},
		}, aoption.WithHeader("X-Memproxy-Session", "a1")); err != nil {
			t.Fatalf("messages: %v", err)
		}
		h.idle()

		// Recalled through Anthropic: the section is the last system block.
		var hresp *http.Response
		msg, err := ac.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 100,
			System:   []anthropic.TextBlockParam{{Text: "You are kind.", CacheControl: anthropic.NewCacheControlEphemeralParam()}},
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Where does my sister live these days?"))},
		}, aoption.WithResponseInto(&hresp))
		if err != nil {
			t.Fatalf("messages: %v", err)
		}
		if recallHeader(hresp.Header) != proxy.RecallInjected {
			t.Fatalf("anthropic recall = %q", recallHeader(hresp.Header))
		}
		sys := gjson.GetBytes(h.fake.Last().Body, "system").Array()
		if len(sys) != 2 || !strings.Contains(sys[1].Get("text").Str, "Lisbon") || sys[0].Get("text").Str != "You are kind." {
			t.Fatalf("system = %s", gjson.GetBytes(h.fake.Last().Body, "system").Raw)
		}
		if msg.Content[0].Text == "" {
			t.Errorf("empty reply")
		}

		// Recalled through Responses (streamed): the section joins the
		// instructions.
		stream := rc.Responses.NewStreaming(ctx, responses.ResponseNewParams{
			Model: "gpt-test", Instructions: openai.String("Be brief."),
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Which marathon am I training for?")},
		})
		for stream.Next() {
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		instr := gjson.GetBytes(h.fake.Last().Body, "instructions").Str
		if !strings.HasPrefix(instr, "Be brief.\n\n<memory>") || !strings.Contains(instr, "Berlin") {
			t.Fatalf("instructions = %q", instr)
		}

		// And through chat.
		_, hdr := h.chat(h.client("carol"), []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Remind me, which city does my sister live in?")})
		if recallHeader(hdr) != proxy.RecallInjected || !strings.Contains(h.memoryBlock(), "Lisbon") {
			t.Fatalf("chat recall = %q, block %q", recallHeader(hdr), h.memoryBlock())
		}
		// Another user recalls nothing of carol's through any API.
		dc := h.anthropic("dave")
		_, err = dc.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 100,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Where does my sister live these days?"))},
		}, aoption.WithResponseInto(&hresp))
		if err != nil || hresp.Header.Get(proxy.HeaderMemories) != "0" || strings.Contains(string(h.fake.Last().Body), "Lisbon") {
			t.Fatalf("dave saw carol's memory: %v %s", err, h.fake.Last().Body)
		}

		h.idle()
		page, err := h.app.Store.Turns(ctx, memory.Scope{User: "carol", Namespace: memory.DefaultNamespace}, memory.TurnFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var apis []string
		for _, tr := range page.Data {
			apis = append(apis, tr.API)
		}
		if strings.Join(apis, ",") != "responses,messages,messages,responses,chat" {
			t.Errorf("turn apis = %q", apis)
		}
		if err := h.app.Hook.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		recs, err := h.app.Store.RecallSince(ctx, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, r := range recs {
			if r.Scope.User == "carol" {
				seen[r.API] = true
			}
		}
		if !seen[proxy.APIChat] || !seen[proxy.APIResponses] || !seen[proxy.APIMessages] {
			t.Errorf("recall log apis = %v", seen)
		}
	})
}

// A previous_response_id chain keeps its session on another replica: the
// link comes from the shared turn spool, the context from the turn log.
func TestResponsesChainAcrossReplicas(t *testing.T) {
	var dbURL string
	h1 := newHarness(t, "postgres", func(o *app.Options) { dbURL = o.DatabaseURL })
	h2 := newHarness(t, "postgres", func(o *app.Options) { o.DatabaseURL = dbURL })
	ctx := t.Context()
	c1, c2 := h1.client("erin"), h2.client("erin")
	first, err := c1.Responses.New(ctx, responses.ResponseNewParams{
		Model: "gpt-test",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("My sister Ottilie lives in Lisbon.")},
	})
	if err != nil {
		t.Fatal(err)
	}
	h1.idle()
	if _, err := c2.Responses.New(ctx, responses.ResponseNewParams{
		Model: "gpt-test", PreviousResponseID: openai.String(first.ID),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("And what does she do for a living?")},
	}); err != nil {
		t.Fatal(err)
	}
	// The same input without the chain starts a session of its own.
	if _, err := c2.Responses.New(ctx, responses.ResponseNewParams{
		Model: "gpt-test",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("And what does she do for a living?")},
	}); err != nil {
		t.Fatal(err)
	}
	h2.idle()
	page, err := h2.app.Store.Turns(ctx, memory.Scope{User: "erin", Namespace: memory.DefaultNamespace}, memory.TurnFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 3 {
		t.Fatalf("turns = %d", len(page.Data))
	}
	a, b, c := page.Data[0], page.Data[1], page.Data[2]
	if a.Session != b.Session || c.Session == b.Session {
		t.Errorf("sessions: first %q, chained %q, unchained %q", a.Session, b.Session, c.Session)
	}
}
