package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/proxy"
)

var allAPIs = []string{proxy.APIChat, proxy.APIResponses, proxy.APIMessages}

// send is one user message through api with the official SDK, as user
// in a fresh session; extra headers (arm overrides) go with it. It
// returns the response headers.
func (h *harness) send(api, user, session, text string, extra map[string]string) http.Header {
	h.t.Helper()
	ctx := h.t.Context()
	var resp *http.Response
	var err error
	switch api {
	case proxy.APIChat:
		opts := []option.RequestOption{option.WithHeader(proxy.HeaderSession, session), option.WithResponseInto(&resp)}
		for k, v := range extra {
			opts = append(opts, option.WithHeader(k, v))
		}
		c := h.client(user)
		_, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-test",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)}}, opts...)
	case proxy.APIResponses:
		opts := []option.RequestOption{option.WithHeader(proxy.HeaderSession, session), option.WithResponseInto(&resp)}
		for k, v := range extra {
			opts = append(opts, option.WithHeader(k, v))
		}
		c := h.client(user)
		_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-test",
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(text)}}, opts...)
	case proxy.APIMessages:
		opts := []aoption.RequestOption{aoption.WithHeader(proxy.HeaderSession, session), aoption.WithResponseInto(&resp)}
		for k, v := range extra {
			opts = append(opts, aoption.WithHeader(k, v))
		}
		c := h.anthropic(user)
		_, err = c.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 100,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(text))}}, opts...)
	}
	if err != nil {
		h.t.Fatalf("%s: %v", api, err)
	}
	return resp.Header
}

// adminJSON calls the admin API (or feedback) with the admin token and
// decodes the answer into out.
func (h *harness) adminJSON(method, path string, body any, out any) int {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(h.t.Context(), method, h.srv.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode/100 == 2 {
		if err := json.Unmarshal(b, out); err != nil {
			h.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return res.StatusCode
}

// lastUpstreamSection is the <memory> section of the upstream's last
// request body, "" when it carried none.
func (h *harness) lastUpstreamSection() string {
	body := string(h.fake.Last().Body)
	i := strings.Index(body, "<memory>")
	if i < 0 {
		return ""
	}
	j := strings.Index(body[i:], "</memory>")
	if j < 0 {
		return body[i:]
	}
	return body[i : i+j]
}

// TestRememberAndRecallAcrossAPIPairs: a note remembered through any API
// is recalled through every other one for the same X-Memproxy-User, each
// pair with its own user and fact; the memory records the API it came
// through.
func TestRememberAndRecallAcrossAPIPairs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		h := newHarness(t, backend)
		type pair struct{ from, to, user, name string }
		var pairs []pair
		for _, from := range allAPIs {
			for _, to := range allAPIs {
				if from == to {
					continue
				}
				n := len(pairs)
				p := pair{from, to, fmt.Sprintf("pair-%s-%s", from, to), fmt.Sprintf("Zephyrine%c", 'a'+n)}
				pairs = append(pairs, p)
				h.send(from, p.user, "tell", "Please remember that my cat's name is "+p.name+".", nil)
			}
		}
		h.idle()
		for _, p := range pairs {
			hdr := h.send(p.to, p.user, "ask", "What is my cat called?", nil)
			sec := h.lastUpstreamSection()
			if hdr.Get(proxy.HeaderRecall) != proxy.RecallInjected || !strings.Contains(sec, p.name) {
				t.Errorf("told through %s, asked through %s: recall %q, section %q", p.from, p.to, hdr.Get(proxy.HeaderRecall), sec)
			}
			for _, q := range pairs {
				if q != p && strings.Contains(sec, q.name) {
					t.Errorf("%s recalled %s's fact %s", p.user, q.user, q.name)
				}
			}
			page, err := h.app.Store.List(t.Context(), memory.Scope{User: p.user, Namespace: memory.DefaultNamespace}, memory.ListFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range page.Data {
				if strings.Contains(m.Text, p.name) && m.API != p.from {
					t.Errorf("memory %q told through %s has api %q", m.Text, p.from, m.API)
				}
			}
		}
	})
}

// TestOperatorViewsOnEveryAPI: on each API the response headers, the A/B
// arm override, the recall log, feedback, the request detail and the A/B
// report work alike.
func TestOperatorViewsOnEveryAPI(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		h := newHarness(t, backend)
		for _, api := range allAPIs {
			h.send(api, "ops-"+api, "tell", "Please remember that my locker code is 4417.", nil)
		}
		h.idle()
		for _, api := range allAPIs {
			user := "ops-" + api
			hdr := h.send(api, user, "ask", "What is my locker code?", nil)
			id := hdr.Get(proxy.HeaderRequestID)
			if id == "" || hdr.Get(proxy.HeaderArm) != proxy.ArmOn || hdr.Get(proxy.HeaderRecall) != proxy.RecallInjected ||
				hdr.Get(proxy.HeaderMemories) == "0" || hdr.Get(proxy.HeaderOverhead) == "" {
				t.Errorf("%s: headers %v", api, hdr)
			}
			// The off arm: no recall, no section.
			off := h.send(api, user, "ask-off", "What is my locker code?", map[string]string{proxy.HeaderMemory: "off"})
			if off.Get(proxy.HeaderArm) != "off" || off.Get(proxy.HeaderRecall) != proxy.RecallOff || h.lastUpstreamSection() != "" {
				t.Errorf("%s off arm: arm %q recall %q section %q", api, off.Get(proxy.HeaderArm), off.Get(proxy.HeaderRecall), h.lastUpstreamSection())
			}
			// Readonly recalls and stores nothing.
			ro := h.send(api, user, "ask-ro", "Please remember that my bike is green.", map[string]string{proxy.HeaderMemory: "readonly"})
			if ro.Get(proxy.HeaderArm) != "readonly" {
				t.Errorf("%s readonly arm: %q", api, ro.Get(proxy.HeaderArm))
			}
			if err := h.app.Hook.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			var d struct {
				API      string   `json:"api"`
				Arm      string   `json:"arm"`
				Status   string   `json:"status"`
				Injected []string `json:"injected"`
				Feedback *float64 `json:"feedback"`
				Memories []struct {
					Text string `json:"text"`
					API  string `json:"api"`
				} `json:"memories"`
			}
			if code := h.adminJSON("GET", "/admin/v1/requests/"+id, nil, &d); code != http.StatusOK {
				t.Fatalf("%s: request detail status %d", api, code)
			}
			if d.API != api || d.Arm != proxy.ArmOn || d.Status != proxy.RecallInjected || len(d.Memories) == 0 {
				t.Errorf("%s: request detail %+v", api, d)
			}
			found := false
			for _, m := range d.Memories {
				if strings.Contains(m.Text, "4417") && m.API == api {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: the detail's memories lack the locker code from this API: %+v", api, d.Memories)
			}
			var fb struct {
				Arm string `json:"arm"`
			}
			if code := h.adminJSON("POST", "/memproxy/v1/feedback", map[string]any{"request_id": id, "score": 1}, &fb); code != http.StatusOK || fb.Arm != proxy.ArmOn {
				t.Errorf("%s: feedback status %d arm %q", api, code, fb.Arm)
			}
			h.adminJSON("GET", "/admin/v1/requests/"+id, nil, &d)
			if d.Feedback == nil || *d.Feedback != 1 {
				t.Errorf("%s: feedback not recorded: %v", api, d.Feedback)
			}
		}
		h.idle()
		for _, api := range allAPIs {
			page, err := h.app.Store.List(t.Context(), memory.Scope{User: "ops-" + api, Namespace: memory.DefaultNamespace}, memory.ListFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range page.Data {
				if strings.Contains(m.Text, "green") {
					t.Errorf("%s: the readonly arm stored %q", api, m.Text)
				}
			}
		}
		var ab struct {
			Arms []struct {
				Arm           string         `json:"arm"`
				APIs          map[string]int `json:"apis"`
				FeedbackCount int            `json:"feedback_count"`
			} `json:"arms"`
		}
		if code := h.adminJSON("GET", "/admin/v1/ab", nil, &ab); code != http.StatusOK {
			t.Fatalf("ab report status %d", code)
		}
		byArm := map[string]map[string]int{}
		feedback := 0
		for _, a := range ab.Arms {
			byArm[a.Arm] = a.APIs
			feedback += a.FeedbackCount
		}
		for _, api := range allAPIs {
			// Each API: the tell and the ask on the on arm, one off, one readonly.
			if byArm["on"][api] != 2 || byArm["off"][api] != 1 || byArm["readonly"][api] != 1 {
				t.Errorf("%s: ab report requests by arm %v", api, byArm)
			}
		}
		if feedback != 3 {
			t.Errorf("ab report feedback count %d, want 3", feedback)
		}
	})
}
