package proxy_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

func TestBadInput(t *testing.T) {
	small := policy.Default()
	small.Server.MaxBodyBytes = 1024
	big := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}]}`
	for _, tc := range []struct {
		name   string
		body   string
		hdr    map[string]string
		status int
		param  string
	}{
		{"malformed JSON", `{"model":"m","messages":[`, nil, 400, ""},
		{"not an object", `["messages"]`, nil, 400, ""},
		{"trailing data", `{"messages":[{"role":"user","content":"hi"}]} {}`, nil, 400, ""},
		{"messages missing", `{"model":"m"}`, nil, 400, "messages"},
		{"messages a string", `{"model":"m","messages":"hi"}`, nil, 400, "messages"},
		{"messages null", `{"model":"m","messages":null}`, nil, 400, "messages"},
		{"messages empty", `{"model":"m","messages":[]}`, nil, 400, "messages"},
		{"message not an object", `{"model":"m","messages":["hi"]}`, nil, 400, "messages[0]"},
		{"role missing", `{"model":"m","messages":[{"role":"user","content":"a"},{"content":"hi"}]}`, nil, 400, "messages[1].role"},
		{"stream wrong type", `{"model":"m","stream":"yes","messages":[{"role":"user","content":"hi"}]}`, nil, 400, "stream"},
		{"invalid UTF-8", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}", nil, 400, ""},
		{"over the limit", big, nil, 413, ""},
		{"invalid memory arm", `{"messages":[{"role":"user","content":"hi"}]}`, map[string]string{proxy.HeaderMemory: "maybe"}, 400, proxy.HeaderMemory},
		{"invalid namespace", `{"messages":[{"role":"user","content":"hi"}]}`, map[string]string{proxy.HeaderNamespace: strings.Repeat("n", 300)}, 400, proxy.HeaderNamespace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(c *proxy.Config) { c.Policy = small })
			resp, body := h.post(t, tc.body, tc.hdr)
			if resp.StatusCode != tc.status {
				t.Fatalf("status = %d, want %d (%s)", resp.StatusCode, tc.status, body)
			}
			var e struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
				t.Fatalf("not OpenAI error JSON: %s", body)
			}
			if got := ptr(e.Error.Param); got != tc.param {
				t.Errorf("param = %q, want %q", got, tc.param)
			}
			if tc.param != "" && !strings.Contains(e.Error.Message, tc.param) {
				t.Errorf("message %q does not name %q", e.Error.Message, tc.param)
			}
			if resp.Header.Get(proxy.HeaderRequestID) == "" {
				t.Error("no request id on an error")
			}
			if n := len(h.fake.Requests()); n != 0 {
				t.Errorf("bad input reached the upstream (%d requests)", n)
			}
		})
	}
}

func ptr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestByteFaithful(t *testing.T) {
	body := "{ \"model\" : \"gpt-x\",\n  \"messages\": [ {\"role\":\"developer\",\"content\":\"rules\"},\n" +
		"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"look\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:x\"}}],\"name\":\"bob\"} ],\n" +
		"\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\",\"schema\":{}}}, \"vendor_extra\": {\"a\": [1, 2.50, \"\\u00e9\"]},\n" +
		"\"temperature\": 0.70 }"
	t.Run("unchanged", func(t *testing.T) {
		h := newHarness(t)
		resp, _ := h.post(t, body, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if got := string(h.fake.Last().Body); got != body {
			t.Errorf("upstream body differs:\n got %s\nwant %s", got, body)
		}
		if tr := h.sink.wait(t); tr.User != "look" {
			t.Errorf("user text from content parts = %q", tr.User)
		}
	})
	t.Run("rewritten", func(t *testing.T) {
		section := json.RawMessage(`{"role":"system","content":"<memory>\n- note\n</memory>"}`)
		var seen *proxy.ChatRequest
		h := newHarness(t, func(c *proxy.Config) {
			c.Rewriter = rewriterFunc(func(_ context.Context, req *proxy.ChatRequest) (*proxy.Rewrite, error) {
				seen = req
				msgs := []json.RawMessage{section}
				for _, m := range req.Messages {
					msgs = append(msgs, m.Raw)
				}
				return &proxy.Rewrite{Messages: msgs, Status: proxy.RecallInjected, Memories: 1, Injected: []string{"m1"}}, nil
			})
		})
		resp, _ := h.post(t, body, map[string]string{proxy.HeaderUser: "alice"})
		if got := resp.Header.Get(proxy.HeaderRecall); got != "injected" || resp.Header.Get(proxy.HeaderMemories) != "1" {
			t.Errorf("recall headers = %q/%q", got, resp.Header.Get(proxy.HeaderMemories))
		}
		if seen.Scope.User != "alice" || len(seen.Messages) != 2 || seen.Messages[0].Role != "developer" || seen.Messages[1].Text != "look" || seen.Model != "gpt-x" {
			t.Errorf("rewriter saw %+v", seen)
		}
		start := strings.Index(body, "[ {")
		end := strings.Index(body, "} ],") + 3
		want := body[:start] + "[" + string(section) + "," + string(seen.Messages[0].Raw) + "," + string(seen.Messages[1].Raw) + "]" + body[end:]
		if got := string(h.fake.Last().Body); got != want {
			t.Errorf("rewritten body:\n got %s\nwant %s", got, want)
		}
		if tr := h.sink.wait(t); len(tr.Injected) != 1 || tr.Injected[0] != "m1" {
			t.Errorf("turn injected = %v", tr.Injected)
		}
	})
}

func TestFirstEventBeforeUpstreamFinishes(t *testing.T) {
	h := newHarness(t)
	hold := make(chan struct{})
	h.fake.Push(fakeupstream.Reply{Content: "one two three", Hold: hold})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.front.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"count"}]}`))
	req.Header.Set(proxy.HeaderUser, "alice") // an anonymous caller's turn is not captured
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	// The upstream is blocked on hold after its first event: this read
	// only returns if the proxy relayed that event without buffering.
	first, err := readEvent(br)
	if err != nil || !strings.Contains(first, `"role":"assistant"`) {
		t.Fatalf("first event = %q, %v", first, err)
	}
	if n := len(h.sink.Turns()); n != 0 {
		t.Fatal("turn captured before the upstream finished")
	}
	close(hold)
	var rest strings.Builder
	for {
		ev, err := readEvent(br)
		rest.WriteString(ev)
		if err != nil {
			break
		}
	}
	if !strings.HasSuffix(rest.String(), "data: [DONE]\n\n") {
		t.Errorf("stream did not end with [DONE]: %q", rest.String())
	}
	if tr := h.sink.wait(t); tr.Assistant != "one two three" {
		t.Errorf("turn = %+v", tr)
	}
}

func TestHeadersStrippedUpstream(t *testing.T) {
	h := newHarness(t)
	hdr := map[string]string{
		proxy.HeaderUser: "alice", proxy.HeaderSession: "s1", proxy.HeaderMemory: "on", proxy.HeaderNamespace: "work",
		proxy.HeaderTurnRef: "a,b", proxy.HeaderAdminToken: "secret", "X-Memproxy-Whatever": "x",
		"OpenAI-Organization": "org-1", "OpenAI-Project": "proj-1", "X-App": "keep",
	}
	h.post(t, `{"messages":[{"role":"user","content":"hi"}]}`, hdr)
	req, _ := http.NewRequest(http.MethodGet, h.front.URL+"/v1/models", nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	reqs := h.fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("upstream saw %d requests", len(reqs))
	}
	for _, r := range reqs {
		for k := range r.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-memproxy-") {
				t.Errorf("%s %s: header %s reached the upstream", r.Method, r.Path, k)
			}
		}
		for k, v := range map[string]string{"Authorization": "Bearer sk-test", "Openai-Organization": "org-1", "Openai-Project": "proj-1", "X-App": "keep"} {
			if got := r.Header.Get(k); got != v {
				t.Errorf("%s %s: %s = %q, want %q", r.Method, r.Path, k, got, v)
			}
		}
	}
	tr := h.sink.wait(t)
	if tr.Scope != (memory.Scope{User: "alice", Namespace: "work"}) || tr.Session != "s1" || strings.Join(tr.Refs, ",") != "a,b" {
		t.Errorf("turn identity = %+v", tr)
	}
}

func TestRequestIDEverywhere(t *testing.T) {
	h := newHarness(t)
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/nope", "/v1/models", "/v1/unknown"} {
		resp, err := http.Get(h.front.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Header.Get(proxy.HeaderRequestID) == "" {
			t.Errorf("%s: no %s", p, proxy.HeaderRequestID)
		}
	}
}

func TestArms(t *testing.T) {
	for _, tc := range []struct {
		arm, recall      string
		offIngests       bool
		rewrites, ingest bool
	}{
		{"on", "injected", true, true, true},
		{"readonly", "injected", true, true, false},
		{"writeonly", "off", true, false, true},
		{"off", "off", true, false, true},
		{"off", "off", false, false, false},
	} {
		t.Run(fmt.Sprintf("%s/offIngests=%v", tc.arm, tc.offIngests), func(t *testing.T) {
			called := false
			h := newHarness(t, func(c *proxy.Config) {
				c.Policy = policy.Default()
				c.Policy.AB.OffArmIngests = tc.offIngests
				c.Rewriter = rewriterFunc(func(context.Context, *proxy.ChatRequest) (*proxy.Rewrite, error) {
					called = true
					return &proxy.Rewrite{Status: proxy.RecallInjected}, nil
				})
			})
			resp, _ := h.post(t, `{"messages":[{"role":"user","content":"hi"}]}`, map[string]string{proxy.HeaderMemory: strings.ToUpper(tc.arm)})
			if got := resp.Header.Get(proxy.HeaderArm); got != tc.arm {
				t.Errorf("arm = %q", got)
			}
			if got := resp.Header.Get(proxy.HeaderRecall); got != tc.recall {
				t.Errorf("recall = %q, want %q", got, tc.recall)
			}
			if called != tc.rewrites {
				t.Errorf("rewriter called = %v", called)
			}
			if got := len(h.sink.Turns()) == 1; got != tc.ingest {
				t.Errorf("ingested = %v, want %v", got, tc.ingest)
			}
		})
	}
}

func TestABAssignment(t *testing.T) {
	h := newHarness(t, func(c *proxy.Config) {
		c.Policy = policy.Default()
		c.Policy.AB.OffPercent = 50
	})
	arms := map[string]int{}
	for i := range 40 {
		resp, _ := h.post(t, `{"messages":[{"role":"user","content":"hi"}]}`, map[string]string{proxy.HeaderUser: fmt.Sprint("user-", i)})
		arms[resp.Header.Get(proxy.HeaderArm)]++
		again, _ := h.post(t, `{"messages":[{"role":"user","content":"hi"}]}`, map[string]string{proxy.HeaderUser: fmt.Sprint("user-", i)})
		if again.Header.Get(proxy.HeaderArm) != resp.Header.Get(proxy.HeaderArm) {
			t.Fatalf("user-%d changed arm between requests", i)
		}
	}
	if arms["on"] == 0 || arms["off"] == 0 || arms["on"]+arms["off"] != 40 {
		t.Errorf("arms = %v, want both on and off", arms)
	}
}

func TestRewriterFailureFailsOpen(t *testing.T) {
	for name, rw := range map[string]rewriterFunc{
		"error": func(context.Context, *proxy.ChatRequest) (*proxy.Rewrite, error) {
			return nil, fmt.Errorf("store down")
		},
		"panic": func(context.Context, *proxy.ChatRequest) (*proxy.Rewrite, error) { panic("boom") },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, func(c *proxy.Config) { c.Rewriter = rw })
			body := `{"model":"m", "messages":[{"role":"user","content":"hi"}]}`
			resp, out := h.post(t, body, nil)
			if resp.StatusCode != 200 || !strings.Contains(out, fakeupstream.DefaultReply("hi")) {
				t.Fatalf("reply broke: %d %s", resp.StatusCode, out)
			}
			if got := resp.Header.Get(proxy.HeaderRecall); got != "error" {
				t.Errorf("recall = %q", got)
			}
			if string(h.fake.Last().Body) != body {
				t.Error("original bytes not forwarded")
			}
			if got := h.metric(t, "memproxy_recall_failures_total"); got != "memproxy_recall_failures_total 1" {
				t.Errorf("metric = %q", got)
			}
		})
	}
}

func TestFailingSinkDeliversWholeReply(t *testing.T) {
	for _, mode := range []string{"error", "timeout"} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", mode, stream), func(t *testing.T) {
				h := newHarness(t, func(c *proxy.Config) {
					c.Policy = policy.Default()
					c.Policy.Server.SinkTimeout = policy.Duration(20 * time.Millisecond)
					c.Policy.Server.SinkAbandonTimeout = policy.Duration(100 * time.Millisecond)
				})
				if mode == "error" {
					h.sink.err = errSink
				} else {
					h.sink.block = true
				}
				resp, out := h.post(t, fmt.Sprintf(`{"stream":%v,"messages":[{"role":"user","content":"tell me a story"}]}`, stream), nil)
				if resp.StatusCode != 200 {
					t.Fatalf("status %d", resp.StatusCode)
				}
				want := fakeupstream.DefaultReply("tell me a story")
				if stream {
					if !strings.HasSuffix(out, "data: [DONE]\n\n") || strings.Count(out, "data: ") < 5 {
						t.Errorf("stream incomplete: %q", out)
					}
				} else if !strings.Contains(out, want) {
					t.Errorf("reply incomplete: %q", out)
				}
				if err := h.srv.WaitCaptures(t.Context()); err != nil {
					t.Fatal(err)
				}
				if got := h.metric(t, "memproxy_turn_capture_failures_total"); got != "memproxy_turn_capture_failures_total 1" {
					t.Errorf("metric = %q", got)
				}
				if got := h.metric(t, "memproxy_turns_captured_total"); got != "memproxy_turns_captured_total 0" {
					t.Errorf("metric = %q", got)
				}
			})
		}
	}
}

// A turn whose capture passes server.sink_timeout but is then stored is
// no capture failure: the reply goes on at the deadline without waiting
// for the sink, and the turn counts as captured (and late) once the sink
// answers.
func TestSlowSinkIsNoCaptureFailure(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			h := newHarness(t, func(c *proxy.Config) {
				c.Policy = policy.Default()
				c.Policy.Server.SinkTimeout = policy.Duration(20 * time.Millisecond)
			})
			h.sink.release = make(chan struct{})
			resp, out := h.post(t, fmt.Sprintf(`{"stream":%v,"messages":[{"role":"user","content":"tell me a story"}]}`, stream), nil)
			// The whole reply came while the sink still holds the turn.
			if resp.StatusCode != 200 || !strings.Contains(out, "story") {
				t.Fatalf("reply: %d %q", resp.StatusCode, out)
			}
			if stream && !strings.HasSuffix(out, "data: [DONE]\n\n") {
				t.Errorf("stream incomplete: %q", out)
			}
			if n := len(h.sink.Turns()); n != 0 {
				t.Fatalf("%d turns stored before the sink was released", n)
			}
			for name, want := range map[string]string{"memproxy_turn_capture_late_total": "1", "memproxy_turn_captures_pending": "1"} {
				if got := h.metric(t, name); got != name+" "+want {
					t.Errorf("metric = %q, want %s", got, want)
				}
			}
			close(h.sink.release)
			if err := h.srv.WaitCaptures(t.Context()); err != nil {
				t.Fatal(err)
			}
			if n := len(h.sink.Turns()); n != 1 {
				t.Fatalf("%d turns stored, want 1", n)
			}
			for name, want := range map[string]string{
				"memproxy_turn_capture_failures_total": "0", "memproxy_turns_captured_total": "1", "memproxy_turn_capture_late_total": "1",
				"memproxy_turn_captures_pending": "0",
			} {
				if got := h.metric(t, name); got != name+" "+want {
					t.Errorf("metric = %q, want %s", got, want)
				}
			}
		})
	}
}

func TestClientDisconnectCancelsUpstream(t *testing.T) {
	h := newHarness(t)
	hold := make(chan struct{})
	defer close(hold)
	upCtx := make(chan context.Context, 1)
	h.fake.Push(fakeupstream.Reply{Hold: hold, OnStart: func(r *http.Request) { upCtx <- r.Context() }})
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.front.URL+"/v1/chat/completions",
		strings.NewReader(`{"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readEvent(bufio.NewReader(resp.Body)); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	uctx := <-upCtx
	select {
	case <-uctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("upstream request not cancelled after the client left")
	}
	if n := len(h.sink.Turns()); n != 0 {
		t.Errorf("captured %d turns of an abandoned stream", n)
	}
}

func TestUpstreamUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	h := newHarness(t, func(c *proxy.Config) { c.Upstream = "http://" + addr + "/v1" })
	resp, body := h.post(t, `{"messages":[{"role":"user","content":"hi"}]}`, nil)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, `"upstream_unreachable"`) {
		t.Errorf("chat: %d %s", resp.StatusCode, body)
	}
	r2, err := http.Get(h.front.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusBadGateway {
		t.Errorf("pass-through: %d", r2.StatusCode)
	}
}

func TestFirstByteTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, func(c *proxy.Config) {
		c.Policy = policy.Default()
		c.Policy.Server.FirstByteTimeout = policy.Duration(50 * time.Millisecond)
	})
	h.fake.Push(fakeupstream.Reply{OnStart: func(r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}})
	resp, body := h.post(t, `{"messages":[{"role":"user","content":"think hard"}]}`, nil)
	if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(body, `"upstream_timeout"`) {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
}

func TestReplayClockAndTurnRefs(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	h := newHarness(t, fixedClock(now), func(c *proxy.Config) { c.AdminToken = "admin-secret" })
	body := `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"},{"role":"user","content":"d"}]}`
	h.post(t, body, map[string]string{proxy.HeaderTime: "2023-05-08T13:56:00Z", proxy.HeaderAdminToken: "admin-secret", proxy.HeaderTurnRef: "D1:3, D1:4"})
	tr := h.sink.wait(t)
	if !tr.Time.Equal(time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)) || strings.Join(tr.Refs, "|") != "D1:3|D1:4" || tr.User != "c\nd" {
		t.Errorf("turn = %+v", tr)
	}
	h.post(t, body, map[string]string{proxy.HeaderTime: "2023-05-08T13:56:00Z", proxy.HeaderAdminToken: "wrong"})
	if tr := h.sink.wait(t); !tr.Time.Equal(now) {
		t.Errorf("time set without the admin token: %v", tr.Time)
	}
}

// keys is an Authenticator with one known client key.
type keys map[string]string

func (k keys) Authenticate(_ context.Context, bearer string) (string, bool, bool, error) {
	u, ok := k[bearer]
	return u, false, ok, nil
}

func TestOwnUpstreamKeyRequiresClientKey(t *testing.T) {
	h := newHarness(t, func(c *proxy.Config) {
		c.UpstreamKey = "sk-upstream"
		c.Authenticator = keys{"mp-good": "team-a"}
	})
	for _, auth := range []string{"", "Bearer sk-someone-else"} {
		for _, path := range []string{"/v1/chat/completions", "/v1/models"} {
			req, _ := http.NewRequest(http.MethodPost, h.front.URL+path, strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s with %q: %d, want 401", path, auth, resp.StatusCode)
			}
		}
	}
	if n := len(h.fake.Requests()); n != 0 {
		t.Fatalf("unauthenticated requests reached the upstream: %d", n)
	}
	req, _ := http.NewRequest(http.MethodPost, h.front.URL+"/v1/chat/completions", bytes.NewReader([]byte(`{"messages":[{"role":"user","content":"hi"}]}`)))
	req.Header.Set("Authorization", "Bearer mp-good")
	req.Header.Set(proxy.HeaderUser, "mallory")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a key bound to team-a naming mallory: %d, want 403", resp.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodPost, h.front.URL+"/v1/chat/completions", bytes.NewReader([]byte(`{"messages":[{"role":"user","content":"hi"}]}`)))
	req.Header.Set("Authorization", "Bearer mp-good")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("valid key: %d", resp.StatusCode)
	}
	if got := h.fake.Last().Header.Get("Authorization"); got != "Bearer sk-upstream" {
		t.Errorf("upstream Authorization = %q", got)
	}
	if tr := h.sink.wait(t); tr.Scope.User != "team-a" {
		t.Errorf("user = %q, want the key's user (named users not allowed)", tr.Scope.User)
	}
}

func TestHealthAndReady(t *testing.T) {
	var notReady error = fmt.Errorf("store not open")
	h := newHarness(t, func(c *proxy.Config) {
		c.Ready = func(context.Context) error { return notReady }
	})
	get := func(p string) int {
		resp, err := http.Get(h.front.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get("/healthz"); got != 200 {
		t.Errorf("healthz = %d", got)
	}
	if got := get("/readyz"); got != http.StatusServiceUnavailable {
		t.Errorf("readyz while not ready = %d", got)
	}
	notReady = nil
	if got := get("/readyz"); got != 200 {
		t.Errorf("readyz when ready = %d", got)
	}
	if got := get("/v1/chat/completions"); got != http.StatusNotFound {
		// GET lists stored completions upstream; the fake has no such route.
		t.Errorf("GET /v1/chat/completions = %d, want the upstream's 404", got)
	}
	if r := h.fake.Last(); r.Method != http.MethodGet || r.Path != "/v1/chat/completions" {
		t.Errorf("GET chat route not passed through: %+v", r)
	}
}

// TestEncodedBodies: a request body sent with Content-Encoding gzip or
// deflate is read decoded (memory works on it) and goes upstream decoded;
// one too large once decoded is a 413, a corrupt one a 400, an encoding
// memproxy cannot read a 415, each in the API's error shape. Such bodies
// were parsed as they came and refused as "not valid UTF-8".
func TestEncodedBodies(t *testing.T) {
	small := policy.Default()
	small.Server.MaxBodyBytes = 4096
	h := newHarness(t, sectionRewriter(nil), func(c *proxy.Config) { c.Policy = small })
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = io.WriteString(w, s)
		_ = w.Close()
		return b.String()
	}
	zl := func(s string) string {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		_, _ = io.WriteString(w, s)
		_ = w.Close()
		return b.String()
	}
	send := func(path, body string, hdr map[string]string) (*http.Response, string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.front.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer sk-test")
		if path == "/v1/messages" {
			req.Header.Set("Anthropic-Version", "2023-06-01")
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for _, tc := range []struct {
		path, body, encoding string
		encode               func(string) string
	}{
		{"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"where does my sister live?"}]}`, "gzip", gz},
		{"/v1/responses", `{"model":"m","input":"where does my sister live?"}`, "deflate", zl},
		{"/v1/messages", `{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"where does my sister live?"}]}`, "gzip", gz},
	} {
		resp, body := send(tc.path, tc.encode(tc.body), map[string]string{"Content-Encoding": tc.encoding})
		if resp.StatusCode != http.StatusOK || resp.Header.Get(proxy.HeaderRecall) != proxy.RecallInjected {
			t.Errorf("%s %s: %d recall %q %s", tc.path, tc.encoding, resp.StatusCode, resp.Header.Get(proxy.HeaderRecall), body)
			continue
		}
		last := h.fake.Last()
		if last.Header.Get("Content-Encoding") != "" || !strings.Contains(string(last.Body), "sister is Ottilie") || !json.Valid(last.Body) {
			t.Errorf("%s: upstream got Content-Encoding %q, body %s", tc.path, last.Header.Get("Content-Encoding"), last.Body)
		}
		if tr := h.sink.wait(t); tr.User != "where does my sister live?" {
			t.Errorf("%s: turn user = %q", tc.path, tr.User)
		}
	}
	n := len(h.fake.Requests())
	bomb := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("a", 8000) + `"}]}`
	for _, tc := range []struct {
		name, path, body, encoding string
		status                     int
		want                       string
	}{
		{"too large decoded", "/v1/chat/completions", gz(bomb), "gzip", 413, `"code":"request_too_large"`},
		{"corrupt gzip", "/v1/responses", "\x1f\x8b\x08\x00garbage", "gzip", 400, `"message":"request body is not valid gzip`},
		{"unknown encoding", "/v1/chat/completions", "abc", "br", 415, `"code":"unsupported_content_encoding"`},
		{"unknown encoding, Anthropic", "/v1/messages", "abc", "zstd", 415, `{"type":"error","error":{"type":"invalid_request_error","message":"unsupported Content-Encoding \"zstd\"`},
	} {
		resp, body := send(tc.path, tc.body, map[string]string{"Content-Encoding": tc.encoding})
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want %d %s", tc.name, resp.StatusCode, body, tc.status, tc.want)
		}
	}
	if m := len(h.fake.Requests()); m != n {
		t.Errorf("refused bodies reached the upstream (%d requests)", m-n)
	}
}

// TestInvalidJSONSaysWhere: a body that is not JSON gets a 400 in the
// API's shape that says where and why, on every API (it said only "not
// valid JSON", leaving the client to guess which of its bytes).
func TestInvalidJSONSaysWhere(t *testing.T) {
	h := newHarness(t)
	for _, path := range []string{"/v1/chat/completions", "/v1/responses", "/v1/messages"} {
		for _, tc := range []struct{ body, want string }{
			{`{"model":"m","input":"hi","messages":[{"role":"user","content":"hi"}],}`, `invalid character '}' looking for beginning of object key string (at byte 71)`},
			{`{"model":"m" "messages":[]}`, `invalid character '"' after object key:value pair (at byte 14)`},
			{`{"model":"m","messages":[{"role":"user","content":"hi"}]} {}`, `invalid character '{' after top-level value (at byte 59)`},
			{``, `the body is empty`},
		} {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.front.URL+path, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer sk-test")
			if path == "/v1/messages" {
				req.Header.Set("Anthropic-Version", "2023-06-01")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			msg := gjson.GetBytes(b, "error.message").Str
			if resp.StatusCode != http.StatusBadRequest || msg != "request body is not valid JSON: "+tc.want {
				t.Errorf("%s %q: %d %s, want the message to end %q", path, tc.body, resp.StatusCode, b, tc.want)
			}
		}
	}
}
