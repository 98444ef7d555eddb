package admin_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/memory"
)

// keyStore is the fixture's key store; a backend without one fails.
func keyStore(t *testing.T, st testStore) memory.KeyStore {
	t.Helper()
	ks, ok := keysOf(st.(*fixture).testStore)
	if !ok {
		t.Fatalf("%T does not implement memory.KeyStore", st.(*fixture).testStore)
	}
	return ks
}

func TestClientKeys(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		ks := keyStore(t, st)
		e := newEnv(t, st)
		ctx := context.Background()
		r := e.do("POST", "/admin/v1/keys", map[string]any{"user": "alice", "label": "alice's laptop"})
		want(t, r, http.StatusCreated)
		var k struct {
			ID, Key, Prefix, User string
			AllowNamedUsers       bool `json:"allow_named_users"`
		}
		r.json(t, &k)
		if !strings.HasPrefix(k.Key, admin.KeyPrefix) || !strings.HasPrefix(k.Key, k.Prefix) || k.User != "alice" || k.AllowNamedUsers {
			t.Fatalf("issued %+v", k)
		}
		r = e.do("POST", "/admin/v1/keys", map[string]any{"allow_named_users": true, "label": "backend"})
		want(t, r, http.StatusCreated)
		var backend struct{ ID, Key string }
		r.json(t, &backend)

		// Stored hashed: no table holds the key itself.
		if hits := scanAll(t, st.DB(), tablesOf(t, st), k.Key, backend.Key); len(hits) > 0 {
			t.Fatalf("a key is stored in clear: %v", hits)
		}
		r = e.do("GET", "/admin/v1/keys", nil)
		want(t, r, http.StatusOK)
		if strings.Contains(string(r.Body), k.Key) || strings.Contains(string(r.Body), admin.HashKey(k.Key)) {
			t.Fatalf("listing shows a key or its hash: %s", r.Body)
		}
		var list struct{ Data []map[string]any }
		if r.json(t, &list); len(list.Data) != 2 {
			t.Fatalf("keys %v", list.Data)
		}

		au := e.api.Authenticator()
		if u, named, ok, err := au.Authenticate(ctx, k.Key); err != nil || !ok || u != "alice" || named {
			t.Fatalf("authenticate alice's key: %q %v %v %v", u, named, ok, err)
		}
		if u, named, ok, err := au.Authenticate(ctx, backend.Key); err != nil || !ok || u != "" || !named {
			t.Fatalf("authenticate backend key: %q %v %v %v", u, named, ok, err)
		}
		for _, bad := range []string{"", "sk-upstream", admin.KeyPrefix + "forged", k.Key + "x", strings.ToUpper(k.Key)} {
			if _, _, ok, err := au.Authenticate(ctx, bad); ok || err != nil {
				t.Fatalf("%q accepted (%v)", bad, err)
			}
		}
		// A client key is not an admin token.
		want(t, e.doAuth("GET", "/admin/v1/users", nil, "Bearer "+k.Key), http.StatusUnauthorized)

		want(t, e.do("DELETE", "/admin/v1/keys/"+k.ID, nil), http.StatusOK)
		if _, _, ok, _ := au.Authenticate(ctx, k.Key); ok {
			t.Fatal("revoked key still authenticates")
		}
		// A fresh authenticator (another replica) sees the revocation too.
		if _, _, ok, _ := admin.NewAuthenticator(ks).Authenticate(ctx, k.Key); ok {
			t.Fatal("revoked key authenticates on another replica")
		}
		want(t, e.do("DELETE", "/admin/v1/keys/ffffffffffffffff", nil), http.StatusNotFound)
		wantBad(t, e.do("DELETE", "/admin/v1/keys/x%20y", nil), "id")
		wantBad(t, e.do("POST", "/admin/v1/keys", map[string]any{"label": "nobody"}), "user")
		wantBad(t, e.do("POST", "/admin/v1/keys", map[string]any{"user": "a\x00b"}), "user")
		wantBad(t, e.do("POST", "/admin/v1/keys", map[string]any{"user": "a", "scopes": []string{"x"}}), "scopes")

		e2 := newEnv(t, st, func(c *admin.Config) { c.Keys = nil })
		want(t, e2.do("GET", "/admin/v1/keys", nil), http.StatusNotImplemented)
		if e2.api.Authenticator() != nil {
			t.Fatal("authenticator without a key store")
		}
		if _, _, ok, err := e2.api.Authenticator().Authenticate(ctx, k.Key); ok || err != nil {
			t.Fatalf("nil authenticator: ok=%v err=%v", ok, err)
		}
	})
}

func TestFeedbackABAndRequests(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		keyStore(t, st)
		e := newEnv(t, st)
		ctx := context.Background()
		mem := e.seed(scope("alice"), memory.TierSemantic, "Alice likes jazz")
		fb := func(v float64) *float64 { return &v }
		rows := []*memory.RecallRecord{
			{RequestID: "req-on-1", Scope: scope("alice"), Arm: "on", Status: "injected", GateReason: "cue", Injected: []string{mem.ID},
				Candidates: []memory.RankedCandidate{{ID: mem.ID, Tier: memory.TierSemantic, Score: 0.8, Rank: 1, Injected: true}}, InjectedTokens: 40, OverheadMs: 1},
			{RequestID: "req-on-2", Scope: scope("alice"), Arm: "on", Status: "skipped", GateReason: "noise", OverheadMs: 0.2},
			{RequestID: "req-on-3", Scope: scope("bob"), Arm: "on", Status: "injected", InjectedTokens: 20, OverheadMs: 3, Feedback: fb(1)},
			{RequestID: "req-off-1", Scope: scope("carol"), Arm: "off", Status: "off", OverheadMs: 0.1},
		}
		for i, r := range rows {
			r.Time = e.now.Add(-time1(i))
			if err := st.AppendRecall(ctx, r); err != nil {
				t.Fatal(err)
			}
		}

		// Feedback: admin token, a key bound to the request's user, or not at all.
		want(t, e.do("POST", "/memproxy/v1/feedback", map[string]any{"request_id": "req-on-1", "score": -1}), http.StatusOK)
		want(t, e.doAuth("POST", "/memproxy/v1/feedback", map[string]any{"request_id": "req-on-1", "score": 1}, ""), http.StatusUnauthorized)
		r := e.do("POST", "/admin/v1/keys", map[string]any{"user": "bob"})
		var bobKey struct{ Key string }
		r.json(t, &bobKey)
		want(t, e.doAuth("POST", "/memproxy/v1/feedback", map[string]any{"request_id": "req-on-1", "score": 1}, "Bearer "+bobKey.Key), http.StatusUnauthorized)
		want(t, e.doAuth("POST", "/memproxy/v1/feedback", map[string]any{"request_id": "req-on-3", "score": 0.5}, "Bearer "+bobKey.Key), http.StatusOK)
		want(t, e.do("POST", "/memproxy/v1/feedback", map[string]any{"request_id": "req-unknown", "score": 1}), http.StatusNotFound)
		wantBad(t, e.do("POST", "/memproxy/v1/feedback", map[string]any{"request_id": "req-on-1", "score": 2}), "score")
		wantBad(t, e.do("POST", "/memproxy/v1/feedback", map[string]any{"request_id": "req-on-1"}), "score")
		wantBad(t, e.do("POST", "/memproxy/v1/feedback", map[string]any{"score": 1}), "request_id")
		wantBad(t, e.do("POST", "/memproxy/v1/feedback", map[string]any{"request_id": "a b", "score": 1}), "request_id")
		open := newEnv(t, st, func(c *admin.Config) { c.OpenFeedback = true })
		want(t, open.doAuth("POST", "/memproxy/v1/feedback", map[string]any{"request_id": "req-off-1", "score": 1}, ""), http.StatusOK)

		r = e.do("GET", "/admin/v1/ab?since=2026-10-01T00:00:00Z", nil)
		want(t, r, http.StatusOK)
		var ab struct {
			Arms []struct {
				Arm            string   `json:"arm"`
				Requests       int      `json:"requests"`
				RecallRate     float64  `json:"recall_rate"`
				InjectedTokens int      `json:"injected_tokens"`
				P50            float64  `json:"overhead_ms_p50"`
				P95            float64  `json:"overhead_ms_p95"`
				FeedbackCount  int      `json:"feedback_count"`
				FeedbackMean   *float64 `json:"feedback_mean"`
			} `json:"arms"`
		}
		r.json(t, &ab)
		if len(ab.Arms) != 2 || ab.Arms[0].Arm != "off" || ab.Arms[1].Arm != "on" {
			t.Fatalf("arms %+v", ab.Arms)
		}
		on, off := ab.Arms[1], ab.Arms[0]
		if on.Requests != 3 || on.InjectedTokens != 60 || on.RecallRate < 0.66 || on.RecallRate > 0.67 || on.P50 != 1 || on.P95 != 3 {
			t.Fatalf("on arm %+v", on)
		}
		if on.FeedbackCount != 2 || on.FeedbackMean == nil || *on.FeedbackMean != -0.25 {
			t.Fatalf("on feedback %+v (want -1 and 0.5)", on)
		}
		if off.Requests != 1 || off.FeedbackCount != 1 || off.RecallRate != 0 {
			t.Fatalf("off arm %+v", off)
		}
		wantBad(t, e.do("GET", "/admin/v1/ab?since=last-week", nil), "since")
		r = e.do("GET", "/admin/v1/ab?since=2030-01-01T00:00:00Z", nil)
		want(t, r, http.StatusOK)
		if r.json(t, &ab); len(ab.Arms) != 0 {
			t.Fatalf("future report %+v", ab.Arms)
		}

		r = e.do("GET", "/admin/v1/requests/req-on-1", nil)
		want(t, r, http.StatusOK)
		var d struct {
			GateReason string                   `json:"gate_reason"`
			Candidates []memory.RankedCandidate `json:"candidates"`
			Memories   []struct{ ID, Text string }
		}
		r.json(t, &d)
		if d.GateReason != "cue" || len(d.Candidates) != 1 || len(d.Memories) != 1 || d.Memories[0].Text != "Alice likes jazz" {
			t.Fatalf("request detail %s", r.Body)
		}
		want(t, e.do("GET", "/admin/v1/requests/req-nope", nil), http.StatusNotFound)
		wantBad(t, e.do("GET", "/admin/v1/requests/a%20b", nil), "request_id")
	})
}
