package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

func TestAuth(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		for name, auth := range map[string]string{
			"none":         "",
			"wrong token":  "Bearer not-the-token",
			"upstream key": "Bearer sk-upstream-key-123",
			"basic":        "Basic " + token,
			"prefix":       "Bearer " + token[:5],
			"suffix":       "Bearer " + token + "x",
		} {
			r := e.doAuth("GET", "/admin/v1/users", nil, auth)
			if r.Status != http.StatusUnauthorized {
				t.Fatalf("%s: status %d, want 401", name, r.Status)
			}
			if _, typ := r.errParam(t); typ != "authentication_error" {
				t.Fatalf("%s: error type %q", name, typ)
			}
		}
		want(t, e.do("GET", "/admin/v1/users", nil), http.StatusOK)
		want(t, e.doAuth("GET", "/admin/v1/users", nil, "bearer "+token), http.StatusOK)
		// Unknown admin routes need the token too, then are JSON 404s.
		want(t, e.doAuth("GET", "/admin/v1/nope", nil, ""), http.StatusUnauthorized)
		r := e.do("GET", "/admin/v1/nope", nil)
		want(t, r, http.StatusNotFound)
		r.errParam(t)
	})
}

func TestDisabledWithoutToken(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st, func(c *admin.Config) { c.Token = "" })
		if e.api.Enabled() {
			t.Fatal("API enabled without a token")
		}
		for _, p := range []string{"/admin/v1/users", "/admin/"} {
			if r := e.doAuth("GET", p, nil, "Bearer "); r.Status != http.StatusNotFound {
				t.Fatalf("%s: status %d, want 404 (not mounted)", p, r.Status)
			}
		}
	})
}

func TestUsersPaging(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		for _, u := range []string{"ann", "bob", "cy", "dee", "eve"} {
			e.seed(scope(u), memory.TierSemantic, u+" likes tea")
		}
		e.seed(memory.Scope{User: "bob", Namespace: "work"}, memory.TierSemantic, "bob works on billing")
		var got []string
		path := "/admin/v1/users?limit=2"
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("paging does not end")
			}
			r := e.do("GET", path, nil)
			want(t, r, http.StatusOK)
			var p struct {
				Data []memory.UserInfo `json:"data"`
				Next string            `json:"next"`
			}
			r.json(t, &p)
			if len(p.Data) > 2 {
				t.Fatalf("page of %d, limit 2", len(p.Data))
			}
			for _, u := range p.Data {
				got = append(got, u.User)
				if u.User == "bob" && (u.Memories != 2 || len(u.Namespaces) != 2) {
					t.Fatalf("bob: %+v", u)
				}
			}
			if p.Next == "" {
				break
			}
			path = "/admin/v1/users?limit=2&cursor=" + url.QueryEscape(p.Next)
		}
		if strings.Join(got, ",") != "ann,bob,cy,dee,eve" {
			t.Fatalf("users %v", got)
		}
		wantBad(t, e.do("GET", "/admin/v1/users?cursor=garbage!", nil), "cursor")
		wantBad(t, e.do("GET", "/admin/v1/users?limit=0", nil), "limit")
		wantBad(t, e.do("GET", "/admin/v1/users?limit=abc", nil), "limit")
		wantBad(t, e.do("GET", "/admin/v1/users?limit=100000", nil), "limit")
	})
}

func TestListMemoriesFilters(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		s := scope("alice")
		old := e.seed(s, memory.TierSemantic, "Alice lives in Berlin", func(m *memory.Memory) { m.Key = "user.city" })
		nw := e.seed(s, memory.TierSemantic, "Alice moved to Lisbon", func(m *memory.Memory) { m.Key = "user.city"; m.CreatedAt = e.now })
		if err := st.Supersede(context.Background(), s, old.ID, nw.ID, e.now); err != nil {
			t.Fatal(err)
		}
		e.seed(s, memory.TierProfile, "Call Alice 'Al'", func(m *memory.Memory) { m.NoDecay = true })
		for i := range 5 {
			e.seed(s, memory.TierEvent, "chat turn number "+string(rune('a'+i)), func(m *memory.Memory) { m.Source = memory.SourceEvent })
		}
		e.seed(scope("bob"), memory.TierSemantic, "Bob lives in Berlin")

		list := func(q string) []map[string]any {
			t.Helper()
			r := e.do("GET", "/admin/v1/users/alice/memories?"+q, nil)
			want(t, r, http.StatusOK)
			var p struct {
				Data []map[string]any `json:"data"`
			}
			r.json(t, &p)
			return p.Data
		}
		if n := len(list("")); n != 8 {
			t.Fatalf("all: %d memories, want 8", n)
		}
		live := list("state=live&tier=semantic")
		if len(live) != 1 || live[0]["id"] != nw.ID || live[0]["state"] != "live" {
			t.Fatalf("live semantic: %v", live)
		}
		sup := list("state=superseded")
		if len(sup) != 1 || sup[0]["id"] != old.ID || sup[0]["superseded_by"] != nw.ID || sup[0]["valid_to"] == nil {
			t.Fatalf("superseded: %v", sup)
		}
		if got := list("q=berlin"); len(got) != 1 || got[0]["id"] != old.ID {
			t.Fatalf("q=berlin: %v (bob's must not appear)", got)
		}
		if got := list("tier=profile,semantic"); len(got) != 3 {
			t.Fatalf("tier list: %d", len(got))
		}
		// Every field of a memory is there; the embedding only on request.
		m := list("tier=profile")[0]
		for _, k := range []string{"id", "scope", "tier", "text", "value", "confidence", "source", "provenance", "created_at", "last_used_at", "hits", "valid_from", "no_decay", "retention", "state"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("field %q missing: %v", k, m)
			}
		}
		if _, ok := m["embedding"]; ok {
			t.Fatal("embedding shown without ?embedding=true")
		}
		if m := list("tier=profile&embedding=true")[0]; m["embedding"] == nil {
			t.Fatal("embedding=true left the embedding out")
		}
		if r := m["retention"].(float64); r != 1 {
			t.Fatalf("profile retention %v, want 1", r)
		}

		// Paging: 5 events, 2 per page, no repeats.
		seen := map[string]bool{}
		q := "tier=event&limit=2"
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("paging does not end")
			}
			r := e.do("GET", "/admin/v1/users/alice/memories?"+q, nil)
			want(t, r, http.StatusOK)
			var p struct {
				Data []map[string]any `json:"data"`
				Next string           `json:"next"`
			}
			r.json(t, &p)
			for _, m := range p.Data {
				if seen[m["id"].(string)] {
					t.Fatalf("memory %v on two pages", m["id"])
				}
				seen[m["id"].(string)] = true
			}
			if p.Next == "" {
				break
			}
			q = "tier=event&limit=2&cursor=" + url.QueryEscape(p.Next)
		}
		if len(seen) != 5 {
			t.Fatalf("paged %d events, want 5", len(seen))
		}

		for q, param := range map[string]string{
			"tier=fact":                  "tier",
			"state=dead":                 "state",
			"source=robot":               "source",
			"since=yesterday":            "since",
			"until=2026-13-01T00:00:00Z": "until",
			"since=2026-11-02T00:00:00Z&until=2026-11-01T00:00:00Z": "until",
			"limit=-1":                               "limit",
			"limit=501":                              "limit",
			"cursor=c1.%25%25":                       "cursor",
			"cursor=zzz":                             "cursor",
			"namespace=" + url.QueryEscape("a\x01b"): "namespace",
		} {
			wantBad(t, e.do("GET", "/admin/v1/users/alice/memories?"+q, nil), param)
		}
		long := strings.Repeat("u", memory.MaxScopePart+1)
		wantBad(t, e.do("GET", "/admin/v1/users/"+long+"/memories", nil), "user")
		// A user id with a slash, escaped in the path.
		e.seed(scope("team/ann"), memory.TierSemantic, "slash user")
		r := e.do("GET", "/admin/v1/users/team%2Fann/memories", nil)
		want(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), "slash user") {
			t.Fatalf("escaped user: %s", r.Body)
		}
	})
}

func TestMemoryCRUD(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		e.seed(scope("bob"), memory.TierSemantic, "Bob's memory")
		r := e.do("POST", "/admin/v1/users/alice/memories", map[string]any{"tier": "profile", "text": "  Alice is vegetarian  ", "key": "user.diet"})
		want(t, r, http.StatusCreated)
		var m map[string]any
		r.json(t, &m)
		id := m["id"].(string)
		if m["text"] != "Alice is vegetarian" || m["source"] != "admin" || m["no_decay"] != true || m["tier"] != "profile" {
			t.Fatalf("created %v", m)
		}
		got, err := st.Get(context.Background(), scope("alice"), id)
		if err != nil || len(got.Embedding) != testDim {
			t.Fatalf("stored memory %+v, %v (want an embedding)", got, err)
		}

		// Found by id alone, and by id in its scope.
		want(t, e.do("GET", "/admin/v1/memories/"+id, nil), http.StatusOK)
		want(t, e.do("GET", "/admin/v1/memories/"+id+"?user=alice", nil), http.StatusOK)
		want(t, e.do("GET", "/admin/v1/memories/"+id+"?user=bob", nil), http.StatusNotFound)
		want(t, e.do("GET", "/admin/v1/memories/0123456789abcdef", nil), http.StatusNotFound)
		wantBad(t, e.do("GET", "/admin/v1/memories/bad$id", nil), "id")
		wantBad(t, e.do("GET", "/admin/v1/memories/"+strings.Repeat("a", 65), nil), "id")

		r = e.do("PATCH", "/admin/v1/memories/"+id, map[string]any{"text": "Alice is vegan", "value": 1, "archived": true})
		want(t, r, http.StatusOK)
		r.json(t, &m)
		if m["text"] != "Alice is vegan" || m["value"].(float64) != 1 || m["state"] != "archived" {
			t.Fatalf("patched %v", m)
		}
		r = e.do("PATCH", "/admin/v1/memories/"+id, map[string]any{"archived": false, "expires_at": "2027-01-01T00:00:00Z"})
		want(t, r, http.StatusOK)
		m = r.obj(t)
		if m["state"] != "live" || m["expires_at"] != "2027-01-01T00:00:00Z" {
			t.Fatalf("restored %v", m)
		}
		r = e.do("PATCH", "/admin/v1/memories/"+id, map[string]any{"expires_at": nil})
		want(t, r, http.StatusOK)
		if m = r.obj(t); m["expires_at"] != nil {
			t.Fatalf("expires_at not cleared: %v", m)
		}

		for body, param := range map[string]string{
			`{"value": 2}`:                           "value",
			`{"tier": "fact"}`:                       "tier",
			`{"text": "   "}`:                        "text",
			`{"confidence": -1}`:                     "confidence",
			`{"colour": "red"}`:                      "colour",
			`{"value": "high"}`:                      "value",
			`{"expires_at": "2020-01-01T00:00:00Z"}`: "expires_at",
			`{"text": "x"} {"text": "y"}`:            "body",
			`not json`:                               "body",
		} {
			wantBad(t, e.do("PATCH", "/admin/v1/memories/"+id, body), param)
		}
		for body, param := range map[string]string{
			`{"text": ""}`: "text",
			`{"text": "x", "namespace": "` + strings.Repeat("n", 300) + `"}`: "namespace",
			`{"text": "x", "tier": "nope"}`:                                  "tier",
			``:                                                               "body",
		} {
			wantBad(t, e.do("POST", "/admin/v1/users/alice/memories", body), param)
		}

		r = e.do("DELETE", "/admin/v1/memories/"+id, nil)
		want(t, r, http.StatusOK)
		want(t, e.do("GET", "/admin/v1/memories/"+id, nil), http.StatusNotFound)
		want(t, e.do("DELETE", "/admin/v1/memories/"+id, nil), http.StatusNotFound)
		want(t, e.do("PATCH", "/admin/v1/memories/"+id, `{"value":0.5}`), http.StatusNotFound)

		// Every mutation is audited, actor admin.
		r = e.do("GET", "/admin/v1/audit?user=alice", nil)
		want(t, r, http.StatusOK)
		var a struct {
			Data []memory.AuditEntry `json:"data"`
		}
		r.json(t, &a)
		var actions []string
		for _, x := range a.Data {
			if x.Actor != "admin" || x.MemoryID != id {
				t.Fatalf("audit entry %+v", x)
			}
			actions = append(actions, x.Action)
		}
		if strings.Join(actions, ",") != "insert,update,update,update,delete" {
			t.Fatalf("audit actions %v", actions)
		}
		wantBad(t, e.do("GET", "/admin/v1/audit?since=monday", nil), "since")
		wantBad(t, e.do("GET", "/admin/v1/audit?user="+url.QueryEscape("a\nb"), nil), "user")
		wantBad(t, e.do("GET", "/admin/v1/audit?limit=0", nil), "limit")
		r = e.do("GET", "/admin/v1/audit?since=2030-01-01T00:00:00Z", nil)
		want(t, r, http.StatusOK)
		if r.json(t, &a); len(a.Data) != 0 {
			t.Fatalf("audit since the future: %v", a.Data)
		}
	})
}

func TestHistory(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		s := scope("alice")
		ctx := context.Background()
		// With a key: the key's history.
		v1 := e.seed(s, memory.TierSemantic, "Alice uses vim", func(m *memory.Memory) { m.Key = "user.editor"; m.CreatedAt = e.now.Add(-3 * time.Hour) })
		v2 := e.seed(s, memory.TierSemantic, "Alice switched to emacs", func(m *memory.Memory) { m.Key = "user.editor"; m.CreatedAt = e.now.Add(-2 * time.Hour) })
		if err := st.Supersede(ctx, s, v1.ID, v2.ID, e.now.Add(-2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		// Without a key: followed through superseded_by.
		a1 := e.seed(s, memory.TierSemantic, "Alice has a cat", func(m *memory.Memory) { m.CreatedAt = e.now.Add(-3 * time.Hour) })
		a2 := e.seed(s, memory.TierSemantic, "Alice has two cats", func(m *memory.Memory) { m.CreatedAt = e.now.Add(-2 * time.Hour) })
		a3 := e.seed(s, memory.TierSemantic, "Alice has three cats", func(m *memory.Memory) { m.CreatedAt = e.now.Add(-time.Hour) })
		if err := st.Supersede(ctx, s, a1.ID, a2.ID, e.now.Add(-2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := st.Supersede(ctx, s, a2.ID, a3.ID, e.now.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		chain := func(id string) string {
			r := e.do("GET", "/admin/v1/memories/"+id+"/history", nil)
			want(t, r, http.StatusOK)
			var p struct {
				Data []map[string]any `json:"data"`
			}
			r.json(t, &p)
			var ids []string
			for _, m := range p.Data {
				ids = append(ids, m["id"].(string))
			}
			return strings.Join(ids, ",")
		}
		if got, w := chain(v2.ID), v1.ID+","+v2.ID; got != w {
			t.Fatalf("keyed history %s, want %s", got, w)
		}
		w := a1.ID + "," + a2.ID + "," + a3.ID
		for _, id := range []string{a1.ID, a2.ID, a3.ID} {
			if got := chain(id); got != w {
				t.Fatalf("history from %s: %s, want %s", id, got, w)
			}
		}
		want(t, e.do("GET", "/admin/v1/memories/ffffffffffffffff/history", nil), http.StatusNotFound)
		wantBad(t, e.do("GET", "/admin/v1/memories/no%20pe/history", nil), "id")
	})
}

func TestSearchExplain(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		s := scope("alice")
		tea := e.seed(s, memory.TierSemantic, "Alice drinks green tea every morning", func(m *memory.Memory) { m.Hits = 3 })
		e.seed(s, memory.TierSemantic, "Alice owns a red bicycle")
		gone := e.seed(s, memory.TierSemantic, "Alice drinks black tea", func(m *memory.Memory) {
			at := e.now.Add(-time.Minute)
			m.ArchivedAt = &at
		})
		e.seed(scope("bob"), memory.TierSemantic, "Bob drinks green tea too")
		r := e.do("GET", "/admin/v1/users/alice/search?q="+url.QueryEscape("what tea does she drink")+"&min_score=0.1", nil)
		want(t, r, http.StatusOK)
		var res struct {
			Data []struct {
				ID        string  `json:"id"`
				Text      string  `json:"text"`
				Score     float64 `json:"score"`
				Sim       float64 `json:"sim"`
				Retention float64 `json:"retention"`
				Freq      float64 `json:"freq"`
				Rank      int     `json:"rank"`
				Injected  bool    `json:"injected"`
				Filtered  string  `json:"filtered"`
				Fused     float64 `json:"fused"`
			} `json:"data"`
			Selected []string `json:"selected"`
			Explain  struct {
				Weights  map[string]float64 `json:"weights"`
				MinScore float64            `json:"min_score"`
				TopK     int                `json:"top_k"`
				Filters  []string           `json:"filters"`
				Formula  string             `json:"formula"`
			} `json:"explain"`
		}
		r.json(t, &res)
		if len(res.Data) == 0 || res.Data[0].ID != tea.ID || !res.Data[0].Injected || res.Data[0].Rank != 1 {
			t.Fatalf("top candidate: %+v", res.Data)
		}
		top := res.Data[0]
		if top.Text == "" || top.Sim <= 0 || top.Retention <= 0 || top.Freq <= 0 || top.Score <= 0 || top.Fused <= 0 {
			t.Fatalf("breakdown missing: %+v", top)
		}
		if w := policy.Default().Recall.Weights; res.Explain.Weights["similarity"] != w.Similarity || res.Explain.Weights["recency"] != w.Recency {
			t.Fatalf("weights %v", res.Explain.Weights)
		}
		if res.Explain.MinScore != 0.1 || res.Explain.TopK != 5 || len(res.Explain.Filters) == 0 || res.Explain.Formula == "" {
			t.Fatalf("explain: %+v", res.Explain)
		}
		for _, c := range res.Data {
			if strings.Contains(c.Text, "Bob") || (c.ID == gone.ID && c.Injected) {
				t.Fatalf("candidate must not be selected: %+v", c)
			}
		}
		if len(res.Selected) == 0 || res.Selected[0] != tea.ID {
			t.Fatalf("selected %v", res.Selected)
		}
		wantBad(t, e.do("GET", "/admin/v1/users/alice/search", nil), "q")
		wantBad(t, e.do("GET", "/admin/v1/users/alice/search?q=tea&k=0", nil), "k")
		wantBad(t, e.do("GET", "/admin/v1/users/alice/search?q=tea&min_score=x", nil), "min_score")
		wantBad(t, e.do("GET", "/admin/v1/users/alice/search?q=tea&at=now", nil), "at")

		e2 := newEnv(t, st, func(c *admin.Config) { c.Searcher = nil })
		want(t, e2.do("GET", "/admin/v1/users/alice/search?q=tea", nil), http.StatusNotImplemented)
	})
}

func TestLimits(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st, func(c *admin.Config) { c.MaxBodyBytes = 256 })
		big := `{"text": "` + strings.Repeat("x", 1000) + `"}`
		r := e.do("POST", "/admin/v1/users/alice/memories", big)
		want(t, r, http.StatusRequestEntityTooLarge)
		r.errParam(t)
		r = e.do("POST", "/admin/v1/users/alice/memories", `{"text":"hello"}`)
		want(t, r, http.StatusCreated)
		r = e.doAuth("POST", "/admin/v1/users/alice/memories", nil, "Bearer "+token)
		wantBad(t, r, "body")

		// The rate limit answers 429 in the same error shape, before auth.
		pol := policy.Default()
		pol.Admin.RatePerSecond, pol.Admin.Burst = 0.1, 2
		e3 := newEnv(t, st, func(c *admin.Config) { c.Policy = pol })
		want(t, e3.do("GET", "/admin/v1/users", nil), http.StatusOK)
		want(t, e3.doAuth("GET", "/admin/v1/users", nil, "Bearer wrong"), http.StatusUnauthorized)
		r = e3.do("GET", "/admin/v1/users", nil)
		want(t, r, http.StatusTooManyRequests)
		if _, typ := r.errParam(t); typ != "rate_limit_error" {
			t.Fatalf("429 type %q", typ)
		}
	})
}

func TestUIServed(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		for path, ctype := range map[string]string{"/admin/": "text/html", "/admin/app.js": "text/javascript", "/admin/app.css": "text/css"} {
			r := e.doAuth("GET", path, nil, "")
			want(t, r, http.StatusOK)
			if !strings.HasPrefix(r.Header.Get("Content-Type"), ctype) || r.Header.Get("Content-Security-Policy") == "" {
				t.Fatalf("%s: headers %v", path, r.Header)
			}
		}
		r := e.doAuth("GET", "/admin/", nil, "")
		if !strings.Contains(string(r.Body), `src="/admin/app.js"`) {
			t.Fatal("page does not load its script")
		}
	})
}

// The admin routes mount beside others on one echo server.
func TestMountBesideOtherRoutes(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		ech := echo.New()
		ech.GET("/v1/models", func(c echo.Context) error { return c.String(200, "models") })
		admin.New(admin.Config{Token: token, Store: st}).Mount(ech)
		for _, p := range []string{"/v1/models", "/admin/"} {
			rec := newRecorder(ech, "GET", p)
			if rec != http.StatusOK {
				t.Fatalf("%s: %d", p, rec)
			}
		}
	})
}
