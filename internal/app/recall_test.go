package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

// A fact told by one user is injected when that user asks about it, and
// never when another user asks the same question.
func TestRecallEndToEnd(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		h := newHarness(t, backend)
		h.say("alice", "s1", "My sister Priya moved to Lisbon last spring and works there as an architect.")
		h.say("alice", "s1", "I'm training for the Berlin marathon in September.")
		h.idle()

		question := "Where does my sister live these days?"
		_, hdr := h.chat(h.client("alice"), []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("You are a helpful assistant."),
			openai.UserMessage(question),
		})
		if recallHeader(hdr) != proxy.RecallInjected {
			t.Fatalf("alice: recall = %q, want injected", recallHeader(hdr))
		}
		block := h.memoryBlock()
		if !strings.Contains(block, "Lisbon") || !strings.Contains(block, "</memory>") {
			t.Fatalf("alice's memory block lacks her fact:\n%s", block)
		}
		msgs := h.upstreamMessages()
		if len(msgs) != 2 {
			t.Fatalf("upstream got %d messages, want the app's 2", len(msgs))
		}
		var sys struct{ Content string }
		_ = json.Unmarshal(msgs[0], &sys)
		if !strings.HasPrefix(sys.Content, "You are a helpful assistant.") {
			t.Errorf("the app's system prompt was not kept: %q", sys.Content)
		}
		wantUser, _ := json.Marshal(openai.UserMessage(question))
		if !jsonEqual(msgs[1], wantUser) {
			t.Errorf("user message modified: %s", msgs[1])
		}

		_, hdr = h.chat(h.client("bob"), []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)})
		if strings.Contains(h.memoryBlock(), "Lisbon") || hdr.Get(proxy.HeaderMemories) != "0" {
			t.Fatalf("bob saw alice's memory: recall=%s block=%q", recallHeader(hdr), h.memoryBlock())
		}

		_, hdr = h.chat(h.client("alice"), []openai.ChatCompletionMessageParamUnion{openai.UserMessage("ok")})
		if recallHeader(hdr) != proxy.RecallSkipped || h.memoryBlock() != "" {
			t.Errorf(`"ok": recall = %q, block %q; want skipped and nothing injected`, recallHeader(hdr), h.memoryBlock())
		}

		_, hdr = h.chat(h.client("alice", option.WithHeader("X-Memproxy-Memory", "off")),
			[]openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)})
		if recallHeader(hdr) != proxy.RecallOff || h.memoryBlock() != "" {
			t.Errorf("off arm: recall = %q, block %q; want off and nothing injected", recallHeader(hdr), h.memoryBlock())
		}

		// The recall log has a row per request, the off arm included.
		if err := h.app.Hook.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		rec, err := h.app.Store.FindRecall(t.Context(), hdr.Get(proxy.HeaderRequestID))
		if err != nil || rec.Arm != proxy.ArmOff {
			t.Errorf("recall log for the off request: %+v, %v", rec, err)
		}
	})
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// Explicit remember and forget, in English and Chinese, round trip through
// the proxy: the model of that request is told, the background writes or
// removes the note, and later requests see the result.
func TestExplicitRememberForget(t *testing.T) {
	cases := []struct {
		lang, remember, ask, forget, fact string
	}{
		{"en", "Please remember that I am allergic to peanuts.", "What am I allergic to? Remember my allergy?", "Forget that I am allergic to peanuts.", "peanuts"},
		{"zh", "记住我对花生过敏", "我的过敏是什么？你还记得吗", "忘掉我对花生过敏这件事", "花生"},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			h := newHarness(t, "sqlite")
			hdr := h.say("carol", "a", c.remember)
			if !strings.Contains(h.memoryBlock(), "saving") {
				t.Errorf("the model was not told the note is being saved: %q (recall %s)", h.memoryBlock(), recallHeader(hdr))
			}
			h.idle()
			h.say("carol", "b", c.ask)
			if !strings.Contains(h.memoryBlock(), c.fact) {
				t.Fatalf("remembered fact not injected:\n%s", h.memoryBlock())
			}
			h.say("carol", "c", c.forget)
			if !strings.Contains(h.memoryBlock(), "removing") {
				t.Errorf("the model was not told the note is being removed: %q", h.memoryBlock())
			}
			h.idle()
			h.say("carol", "d", c.ask)
			if strings.Contains(h.memoryBlock(), c.fact) {
				t.Fatalf("forgotten fact still injected:\n%s", h.memoryBlock())
			}
		})
	}
}

// In a tool-calling loop the last message is a tool result: recall does not
// run again.
func TestToolLoopDoesNotRecall(t *testing.T) {
	h := newHarness(t, "sqlite")
	h.say("dave", "s", "My favourite city is Kyoto because of the temples.")
	h.idle()
	c := h.client("dave")
	params := []openai.ChatCompletionMessageParamUnion{
		openai.UserMessage("What's the weather in my favourite city?"),
		{OfAssistant: &openai.ChatCompletionAssistantMessageParam{ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: "call_1", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "weather", Arguments: `{"city":"Kyoto"}`}},
		}}}},
		openai.ToolMessage(`{"temp_c": 21}`, "call_1"),
	}
	_, hdr := h.chat(c, params)
	if err := h.app.Hook.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if recallHeader(hdr) == proxy.RecallInjected || h.memoryBlock() != "" {
		t.Fatalf("recall ran in a tool loop: %s, block %q", recallHeader(hdr), h.memoryBlock())
	}
	rec, err := h.app.Store.FindRecall(t.Context(), hdr.Get(proxy.HeaderRequestID))
	if err != nil || rec.GateReason != "not_user_message" || len(rec.Candidates) != 0 {
		t.Fatalf("recall log: %+v %v", rec, err)
	}
}

// Both placements put the block where the policy says; the cache-friendly
// one keeps every earlier message byte-identical.
func TestPlacements(t *testing.T) {
	for _, placement := range []string{"system", "before_last_user"} {
		t.Run(placement, func(t *testing.T) {
			h := newHarness(t, "sqlite", withPolicy(func(p *policy.Policy) { p.Inject.Placement = placement }))
			h.say("erin", "s", "My dog is called Biscuit and he is a beagle.")
			h.idle()
			body := `{"model":"gpt-test","messages":[{"role":"system","content":"Be kind."},{"role":"user","content":"hi there friend, how are you"},{"role":"assistant","content":"Fine!"},{"role":"user","content":"What is my dog called?"}],"temperature":0.2}`
			resp := h.post(body, "erin")
			if resp.Header.Get(proxy.HeaderRecall) != proxy.RecallInjected {
				t.Fatalf("recall = %s", resp.Header.Get(proxy.HeaderRecall))
			}
			var sent, orig struct {
				Messages []json.RawMessage `json:"messages"`
			}
			_ = json.Unmarshal(h.fake.Last().Body, &sent)
			_ = json.Unmarshal([]byte(body), &orig)
			switch placement {
			case "system":
				if len(sent.Messages) != 4 || !strings.Contains(string(sent.Messages[0]), "Biscuit") {
					t.Fatalf("system placement: %s", sent.Messages)
				}
				for i := 1; i < 4; i++ {
					if !bytes.Equal(sent.Messages[i], orig.Messages[i]) {
						t.Errorf("message %d changed", i)
					}
				}
			case "before_last_user":
				if len(sent.Messages) != 5 || !strings.Contains(string(sent.Messages[3]), "Biscuit") {
					t.Fatalf("before_last_user placement: %s", sent.Messages)
				}
				for i := 0; i < 3; i++ {
					if !bytes.Equal(sent.Messages[i], orig.Messages[i]) {
						t.Errorf("earlier message %d changed: %s", i, sent.Messages[i])
					}
				}
				if !bytes.Equal(sent.Messages[4], orig.Messages[3]) {
					t.Errorf("last user message changed")
				}
			}
		})
	}
}

type failingEmbedder struct{ embed.Embedder }

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("embedder down")
}

// Memory failures never break the chat: the request goes through plain,
// marked with the error header.
func TestFailOpen(t *testing.T) {
	t.Run("store closed", func(t *testing.T) {
		h := newHarness(t, "sqlite")
		h.say("fay", "s", "My cat is named Miso.")
		h.idle()
		if err := h.app.Store.Close(); err != nil {
			t.Fatal(err)
		}
		reply, hdr := h.chat(h.client("fay"), []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is my cat named?")})
		// error, or timeout when the failure takes longer than recall.timeout
		// on a loaded machine: both are the fail-open path.
		if rh := recallHeader(hdr); reply == "" || (rh != proxy.RecallError && rh != proxy.RecallTimeout) {
			t.Fatalf("reply %q recall %q; want a reply and error (or timeout)", reply, rh)
		}
	})
	t.Run("embedder erroring", func(t *testing.T) {
		h := newHarness(t, "sqlite", func(o *app.Options) { o.Embedder = failingEmbedder{embed.NewLocal(0)} })
		reply, hdr := h.chat(h.client("gus"), []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What did I tell you about my car last time?")})
		if reply == "" || recallHeader(hdr) != proxy.RecallError {
			t.Fatalf("reply %q recall %q; want a reply and error", reply, recallHeader(hdr))
		}
	})
}

// A noise turn with nothing injected is not queued (nothing to learn, and
// the reply need not wait for a queue commit); an ordinary turn is.
func TestNoiseTurnNotQueued(t *testing.T) {
	h := newHarness(t, "sqlite")
	h.say("nia", "s", "ok")
	h.say("nia", "s", "I started learning the cello in October.")
	h.idle()
	page, err := h.app.Store.Turns(t.Context(), memory.Scope{User: "nia", Namespace: memory.DefaultNamespace}, memory.TurnFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || !strings.Contains(page.Data[0].User, "cello") {
		t.Fatalf("turn log = %+v, want only the cello turn", page.Data)
	}
	if n := h.app.Queue.IngestedTurns(); n != 1 {
		t.Fatalf("ingested %d turns, want 1", n)
	}
}

// Injection counts as access (hits, last used) in the on arm; the readonly
// arm leaves memory as it found it.
func TestInjectionTouchesExceptReadonly(t *testing.T) {
	h := newHarness(t, "sqlite")
	h.say("oli", "s", "My bike is a green Brompton that I ride to work.")
	h.idle()
	scope := memory.Scope{User: "oli", Namespace: memory.DefaultNamespace}
	hits := func() int {
		page, err := h.app.Store.List(t.Context(), scope, memory.ListFilter{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range page.Data {
			n += m.Hits
		}
		return n
	}
	ask := func(arm string) {
		_, hdr := h.chat(h.client("oli", option.WithHeader("X-Memproxy-Memory", arm)),
			[]openai.ChatCompletionMessageParamUnion{openai.UserMessage("What colour is my bike?")})
		if recallHeader(hdr) != proxy.RecallInjected {
			t.Fatalf("%s: recall %s", arm, recallHeader(hdr))
		}
		if err := h.app.Hook.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	before := hits()
	ask("readonly")
	if got := hits(); got != before {
		t.Fatalf("readonly changed hits %d → %d", before, got)
	}
	ask("on")
	if got := hits(); got <= before {
		t.Fatalf("on arm did not count the injection: hits %d → %d", before, got)
	}
}
