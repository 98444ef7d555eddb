package proxy_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

// TestAnonymousCallersShareNothing: a chat with no credential and no
// trusted identity is forwarded without recall and its turn is not
// stored; the response says why. X-Memproxy-Memory cannot turn memory
// back on. A caller with a key keeps its memory.
func TestAnonymousCallersShareNothing(t *testing.T) {
	for _, trust := range []bool{false, true} {
		p := policy.Default()
		p.Identity.TrustHeaders = trust
		var recalls atomic.Int32
		rw := rewriterFunc(func(ctx context.Context, req *proxy.ChatRequest) (*proxy.Rewrite, error) {
			recalls.Add(1)
			return &proxy.Rewrite{}, nil
		})
		h := newHarness(t, func(c *proxy.Config) { c.Policy, c.Rewriter = p, rw })
		body := `{"model":"m","messages":[{"role":"user","content":"remember that my door code is 4321"}]}`
		for _, hdr := range []map[string]string{{"Authorization": ""}, {"Authorization": "", proxy.HeaderMemory: "on"}} {
			resp, text := h.post(t, body, hdr)
			if resp.StatusCode != http.StatusOK || !strings.Contains(text, "door code") {
				t.Fatalf("trust=%v anonymous chat: %d %s, want it forwarded", trust, resp.StatusCode, text)
			}
			if resp.Header.Get(proxy.HeaderArm) != proxy.ArmNone || resp.Header.Get(proxy.HeaderRecall) != proxy.RecallOff ||
				resp.Header.Get(proxy.HeaderReason) != "anonymous" {
				t.Errorf("trust=%v anonymous headers: arm %q recall %q reason %q", trust,
					resp.Header.Get(proxy.HeaderArm), resp.Header.Get(proxy.HeaderRecall), resp.Header.Get(proxy.HeaderReason))
			}
		}
		if n := recalls.Load(); n != 0 {
			t.Errorf("trust=%v: recall ran %d times for anonymous callers", trust, n)
		}
		if n := len(h.sink.Turns()); n != 0 {
			t.Errorf("trust=%v: %d anonymous turns stored", trust, n)
		}
		// With a credential the same chat recalls and is stored.
		resp, _ := h.post(t, body, nil)
		if resp.Header.Get(proxy.HeaderArm) != proxy.ArmOn || resp.Header.Get(proxy.HeaderReason) != "" || recalls.Load() != 1 {
			t.Errorf("trust=%v keyed caller: arm %q reason %q recalls %d", trust, resp.Header.Get(proxy.HeaderArm), resp.Header.Get(proxy.HeaderReason), recalls.Load())
		}
		if tr := h.sink.wait(t); !strings.HasPrefix(tr.Scope.User, "key:") {
			t.Errorf("keyed turn scope %v", tr.Scope)
		}
	}
}

func TestAnonymousRefusedByPolicy(t *testing.T) {
	p := policy.Default()
	p.Identity.TrustHeaders = false
	p.Identity.Anonymous = policy.AnonymousRefuse
	h := newHarness(t, func(c *proxy.Config) { c.Policy = p })
	resp, text := h.post(t, `{"model":"m","messages":[{"role":"user","content":"hello there"}]}`, map[string]string{"Authorization": ""})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(text, `"code":"identity_required"`) {
		t.Fatalf("anonymous with identity.anonymous refuse: %d %s", resp.StatusCode, text)
	}
	if n := len(h.fake.Requests()); n != 0 {
		t.Errorf("refused request reached the upstream (%d requests)", n)
	}
	if resp, _ := h.post(t, `{"model":"m","messages":[{"role":"user","content":"hello there"}]}`, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("keyed caller: %d", resp.StatusCode)
	}
}

// TestFenceDropsInFlightTurns: a user deleted while their stream runs gets
// the whole reply, but the turn is not stored; their next request is.
func TestFenceDropsInFlightTurns(t *testing.T) {
	h := newHarness(t)
	hold := make(chan struct{})
	h.fake.Push(fakeupstream.Reply{Content: "one two three", Hold: hold})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.front.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"my locker is 12"}]}`))
	req.Header.Set(proxy.HeaderUser, "carol")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := readEvent(br); err != nil {
		t.Fatal(err)
	}
	h.srv.FenceUser("carol") // forget-user starts while the stream runs
	close(hold)
	rest, _ := io.ReadAll(br)
	resp.Body.Close()
	if !strings.Contains(string(rest), "[DONE]") {
		t.Fatalf("reply cut: %q", rest)
	}
	if n := len(h.sink.Turns()); n != 0 {
		t.Fatalf("%d turns of a deleted user stored", n)
	}
	if m := h.metric(t, "memproxy_turn_capture_failures_total"); m != "memproxy_turn_capture_failures_total 0" {
		t.Errorf("a fenced turn counted as a capture failure: %q", m)
	}
	h.post(t, `{"model":"m","messages":[{"role":"user","content":"my locker is 14 now"}]}`, map[string]string{proxy.HeaderUser: "carol"})
	if tr := h.sink.wait(t); tr.Scope.User != "carol" {
		t.Errorf("a request after the delete must be stored: %+v", tr)
	}
}
