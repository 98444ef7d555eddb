package admin_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
	"github.com/memproxy/memproxy/recallpath"
)

// stack is the proxy with the recall path and the admin API mounted on its
// echo server, in front of the fake upstream: requests go where a real
// deployment sends them.
type stack struct {
	t     *testing.T
	fake  *fakeupstream.Server
	front *httptest.Server
	api   *admin.API
}

func newStack(t *testing.T, st testStore, mut func(*policy.Policy)) *stack {
	t.Helper()
	pol := policy.Default()
	pol.Admin.RatePerSecond, pol.Admin.Burst = 10000, 10000
	if mut != nil {
		mut(pol)
	}
	fake := fakeupstream.New()
	up := httptest.NewServer(fake.Handler())
	t.Cleanup(up.Close)
	rec, err := memory.NewRecaller(memory.RecallerConfig{Search: st, Profiles: st, Embedder: testEmbedder{}, Recall: pol.Recall, Decay: pol.Decay})
	must(t, err)
	hook, err := recallpath.New(recallpath.Config{Policy: pol, Gate: gate.New(pol.Gate, pol.Explicit), Recaller: rec, Writer: st})
	must(t, err)
	t.Cleanup(hook.Close)
	cfg := admin.Config{Token: token, Store: st, Searcher: rec, Policy: pol, Invalidator: hook}
	if ks, ok := keysOf(st.(*fixture).testStore); ok {
		cfg.Keys = ks
	}
	api := admin.New(cfg)
	px, err := proxy.New(proxy.Config{Upstream: up.URL + "/v1", Policy: pol, Salt: "test-salt",
		Rewriter: hook, Observer: hook, Authenticator: api.Authenticator()})
	must(t, err)
	api.Mount(px.Echo())
	front := httptest.NewServer(px.Handler())
	t.Cleanup(front.Close)
	return &stack{t: t, fake: fake, front: front, api: api}
}

// chat sends one chat request and returns the response and the body the
// upstream received (where injected memories would be).
func (s *stack) chat(text string, hdr map[string]string) (*http.Response, string) {
	s.t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": "user", "content": text}}})
	req, _ := http.NewRequest(http.MethodPost, s.front.URL+"/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	n := len(s.fake.Requests())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	reqs := s.fake.Requests()
	if len(reqs) == n {
		return res, ""
	}
	return res, string(reqs[len(reqs)-1].Body)
}

func (s *stack) admin(method, path string, body any) resp {
	s.t.Helper()
	e := &env{t: s.t, srv: s.front}
	return e.do(method, path, body)
}

const question = "Do you remember what my dog is called?"

// After DELETE of a user through the admin API on the live server, that
// user's next request injects nothing; another user's still does.
func TestForgetUserNextRequestInjectsNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		e.now = time.Now().UTC()
		e.seed(scope("alice"), memory.TierSemantic, "Alice's dog is called Zebulon-the-dog")
		e.seed(scope("alice"), memory.TierProfile, "Alice likes answers in French-style")
		e.seed(scope("bob"), memory.TierSemantic, "Bob's dog is called Rufus-the-hound")
		s := newStack(t, st, nil)

		res, up := s.chat(question, map[string]string{proxy.HeaderUser: "alice", "Authorization": "Bearer sk-app"})
		if res.StatusCode != 200 || !strings.Contains(up, "Zebulon-the-dog") || !strings.Contains(up, "French-style") {
			t.Fatalf("before: status %d, upstream saw %s", res.StatusCode, up)
		}
		want(t, s.admin("DELETE", "/admin/v1/users/alice", nil), http.StatusOK)

		res, up = s.chat(question, map[string]string{proxy.HeaderUser: "alice", "Authorization": "Bearer sk-app"})
		if res.StatusCode != 200 || strings.Contains(up, "Zebulon") || strings.Contains(up, "French-style") || strings.Contains(up, "<memory>") {
			t.Fatalf("after forget: status %d, upstream saw %s", res.StatusCode, up)
		}
		if n := res.Header.Get(proxy.HeaderMemories); n != "" && n != "0" {
			t.Fatalf("after forget: %s memories injected", n)
		}
		_, up = s.chat(question, map[string]string{proxy.HeaderUser: "bob", "Authorization": "Bearer sk-app"})
		if !strings.Contains(up, "Rufus-the-hound") {
			t.Fatalf("bob lost his memory: %s", up)
		}
	})
}

// A caller asserting another user's identity without the right reads none
// of that user's memories: not with untrusted identity headers, not with a
// client key bound to someone else. A key allowed to name users does read
// them (so the test can tell the cases apart).
func TestAssertedIdentityReadsNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		keyStore(t, st)
		e := newEnv(t, st)
		e.now = time.Now().UTC()
		e.seed(scope("alice"), memory.TierSemantic, "Alice's dog is called Zebulon-the-dog")
		e.seed(scope("bob"), memory.TierSemantic, "Bob's dog is called Rufus-the-hound")

		trusting := newStack(t, st, nil)
		alice := issueKey(t, trusting, map[string]any{"user": "alice"})
		backend := issueKey(t, trusting, map[string]any{"allow_named_users": true})

		res, up := trusting.chat(question, map[string]string{"Authorization": "Bearer " + alice, proxy.HeaderUser: "bob"})
		if strings.Contains(up, "Rufus") || res.StatusCode != http.StatusForbidden {
			t.Fatalf("alice's key naming bob: status %d, upstream saw %s; want 403 and nothing of bob", res.StatusCode, up)
		}
		_, up = trusting.chat(question, map[string]string{"Authorization": "Bearer " + alice})
		if !strings.Contains(up, "Zebulon-the-dog") {
			t.Fatalf("alice's key reads alice: upstream saw %s", up)
		}
		_, up = trusting.chat(question, map[string]string{"Authorization": "Bearer " + backend, proxy.HeaderUser: "bob"})
		if !strings.Contains(up, "Rufus-the-hound") {
			t.Fatalf("a key allowed to name users reads bob: upstream saw %s", up)
		}

		untrusting := newStack(t, st, func(p *policy.Policy) { p.Identity.TrustHeaders = false })
		// Naming a user with memproxy's own header is refused; a chat UI's
		// user header is ignored (UIs send it on their own), never obeyed.
		for _, c := range []struct {
			h      map[string]string
			status int
		}{
			{map[string]string{"Authorization": "Bearer sk-someone", proxy.HeaderUser: "bob"}, http.StatusForbidden},
			{map[string]string{proxy.HeaderUser: "bob"}, http.StatusForbidden},
			{map[string]string{"Authorization": "Bearer sk-someone", "X-OpenWebUI-User-Id": "bob"}, http.StatusOK},
		} {
			res, up := untrusting.chat(question, c.h)
			if strings.Contains(up, "Rufus") || res.StatusCode != c.status {
				t.Fatalf("untrusted header %v: status %d (want %d), upstream saw %s", c.h, res.StatusCode, c.status, up)
			}
		}
		// The admin API never takes a client key or an upstream key.
		for _, k := range []string{alice, backend, "sk-someone"} {
			e2 := &env{t: t, srv: untrusting.front}
			want(t, e2.doAuth("GET", "/admin/v1/users/bob/memories", nil, "Bearer "+k), http.StatusUnauthorized)
		}
	})
}

func issueKey(t *testing.T, s *stack, body map[string]any) string {
	t.Helper()
	r := s.admin("POST", "/admin/v1/keys", body)
	want(t, r, http.StatusCreated)
	var k struct{ Key string }
	r.json(t, &k)
	return k.Key
}
