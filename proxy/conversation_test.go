package proxy_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"

	"github.com/memproxy/memproxy/proxy"
)

// TestResponsesConversationIsTheSession: requests in one provider-side
// conversation ("conversation": an id or {"id"}) share a session derived
// from it, and a turn's context is the conversation's previous exchange;
// X-Memproxy-Session still wins; a conversation of the wrong type is a
// 400 naming it.
func TestResponsesConversationIsTheSession(t *testing.T) {
	h := newHarness(t, sectionRewriter(nil))
	ask := func(conv responses.ResponseNewParamsConversationUnion, text string, opts ...option.RequestOption) {
		t.Helper()
		if _, err := h.client.Responses.New(t.Context(), responses.ResponseNewParams{Model: "gpt-test", Conversation: conv,
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(text)}}, opts...); err != nil {
			t.Fatal(err)
		}
	}
	ask(responses.ResponseNewParamsConversationUnion{OfString: openai.String("conv_abc")}, "My sister Ottilie lives in Lisbon.")
	t1 := h.sink.wait(t)
	ask(responses.ResponseNewParamsConversationUnion{OfConversationObject: &responses.ResponseConversationParam{ID: "conv_abc"}}, "What does she do?")
	t2 := h.sink.wait(t)
	if t1.Session != "conv:conv_abc" || t2.Session != t1.Session {
		t.Errorf("sessions %q, %q; want conv:conv_abc", t1.Session, t2.Session)
	}
	if !strings.Contains(t2.Context, "Ottilie lives in Lisbon") || !strings.Contains(t2.Context, "Assistant: ") {
		t.Errorf("second turn's context %q", t2.Context)
	}
	ask(responses.ResponseNewParamsConversationUnion{OfString: openai.String("conv_abc")}, "Thanks.", option.WithHeader(proxy.HeaderSession, "mine"))
	if t3 := h.sink.wait(t); t3.Session == t1.Session {
		t.Errorf("X-Memproxy-Session did not win: %q", t3.Session)
	}
	ask(responses.ResponseNewParamsConversationUnion{OfString: openai.String("conv_other")}, "Hello.")
	if t4 := h.sink.wait(t); t4.Session != "conv:conv_other" || t4.Context != "" {
		t.Errorf("another conversation: session %q context %q", t4.Session, t4.Context)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.front.URL+"/v1/responses",
		strings.NewReader(`{"model":"m","input":"hi","conversation":7}`))
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || gjson.GetBytes(b, "error.param").Str != "conversation" {
		t.Errorf("bad conversation: %d %s", resp.StatusCode, b)
	}
}
