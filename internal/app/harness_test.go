package app_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

const adminToken = "test-admin-token"

type harness struct {
	t    *testing.T
	app  *app.App
	fake *fakeupstream.Server
	srv  *httptest.Server
}

type harnessOpt func(*app.Options)

func withPolicy(f func(p *policy.Policy)) harnessOpt {
	return func(o *app.Options) {
		p := policy.Default()
		f(p)
		o.Policy = p
	}
}

// newHarness runs the whole app (store, queue, recall, proxy, admin) in
// front of the fake upstream, on the named backend.
func newHarness(t *testing.T, backend string, opts ...harnessOpt) *harness {
	t.Helper()
	fake := fakeupstream.New()
	up := httptest.NewServer(fake.Handler())
	t.Cleanup(up.Close)
	o := app.Options{
		Upstream:   up.URL + "/v1",
		AdminToken: adminToken,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Getenv:     func(string) string { return "" },
	}
	switch backend {
	case "sqlite":
		o.DB = filepath.Join(t.TempDir(), "memproxy.db")
	case "postgres":
		o.DatabaseURL = testpg.New(t)
	default:
		t.Fatalf("unknown backend %q", backend)
	}
	for _, f := range opts {
		f(&o)
	}
	a, err := app.New(t.Context(), o)
	if err != nil {
		t.Fatalf("app: %v", err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() {
		srv.Close()
		if err := a.Close(); err != nil {
			t.Errorf("close app: %v", err)
		}
	})
	return &harness{t: t, app: a, fake: fake, srv: srv}
}

func (h *harness) client(user string, extra ...option.RequestOption) openai.Client {
	opts := []option.RequestOption{
		option.WithBaseURL(h.srv.URL + "/v1"),
		option.WithAPIKey("sk-app-key"),
		option.WithMaxRetries(0),
	}
	if user != "" {
		opts = append(opts, option.WithHeader("X-Memproxy-User", user))
	}
	return openai.NewClient(append(opts, extra...)...)
}

// chat sends one request and returns the reply text and response headers.
func (h *harness) chat(c openai.Client, msgs []openai.ChatCompletionMessageParamUnion, extra ...option.RequestOption) (string, http.Header) {
	h.t.Helper()
	var resp *http.Response
	cc, err := c.Chat.Completions.New(h.t.Context(), openai.ChatCompletionNewParams{
		Model: "gpt-test", Messages: msgs,
	}, append(extra, option.WithResponseInto(&resp))...)
	if err != nil {
		h.t.Fatalf("chat: %v", err)
	}
	return cc.Choices[0].Message.Content, resp.Header
}

// say is one user turn in a fresh session.
func (h *harness) say(user, session, text string) http.Header {
	h.t.Helper()
	_, hdr := h.chat(h.client(user, option.WithHeader("X-Memproxy-Session", session)),
		[]openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)})
	return hdr
}

// idle waits until the background queue has processed every turn.
func (h *harness) idle() {
	h.t.Helper()
	if err := h.app.Queue.WaitIdle(h.t.Context()); err != nil {
		h.t.Fatalf("wait idle: %v", err)
	}
}

// upstreamMessages are the messages of the last chat request the upstream
// received.
func (h *harness) upstreamMessages() []json.RawMessage {
	h.t.Helper()
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(h.fake.Last().Body, &body); err != nil {
		h.t.Fatalf("decode upstream body: %v", err)
	}
	return body.Messages
}

// memoryBlock returns the injected <memory> section the upstream saw, or "".
func (h *harness) memoryBlock() string {
	for _, raw := range h.upstreamMessages() {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(raw, &m)
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				text += p.Text
			}
		}
		if i := strings.Index(text, "<memory>"); i >= 0 && (m.Role == "system" || m.Role == "developer") {
			return text[i:]
		}
	}
	return ""
}

func recallHeader(h http.Header) string { return h.Get(proxy.HeaderRecall) }

func forEachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, func(t *testing.T) { f(t, b) })
	}
}

// post sends an exact request body through the SDK (so byte-level checks
// see precisely what the app sent) and returns the response.
func (h *harness) post(body, user string) *http.Response {
	h.t.Helper()
	var resp *http.Response
	c := h.client(user)
	_, err := c.Chat.Completions.New(h.t.Context(), openai.ChatCompletionNewParams{},
		option.WithRequestBody("application/json", []byte(body)), option.WithResponseInto(&resp))
	if err != nil {
		h.t.Fatalf("chat: %v", err)
	}
	return resp
}
