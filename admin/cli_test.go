package admin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/sqlite"
)

// ExportUser and RenderMarkdown (memproxy export) give what the API's
// export route serves.
func TestExportUserMatchesAPI(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "memproxy.db"), openOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, sc := range []memory.Scope{{User: "alice", Namespace: "default"}, {User: "alice", Namespace: "work"}, {User: "bob", Namespace: "default"}} {
		if err := st.Insert(ctx, sc, &memory.Memory{Tier: memory.TierSemantic, Text: sc.User + " in " + sc.Namespace + " likes tea", CreatedAt: at.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if err := st.AppendTurn(ctx, &memory.Turn{Scope: sc, RequestID: "r-" + sc.Namespace, Time: at.Add(-time.Minute), User: "hi", Assistant: "hello"}); err != nil {
			t.Fatal(err)
		}
	}
	e := echo.New()
	admin.New(admin.Config{Token: token, Store: st, Clock: func() time.Time { return at }}).Mount(e)
	get := func(q string) string {
		req := httptest.NewRequest(http.MethodGet, "/admin/v1/users/alice/export"+q, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET export%s: %d %s", q, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	for _, ns := range []string{"", "work"} {
		ex, err := admin.ExportUser(ctx, st, nil, "alice", ns)
		if err != nil {
			t.Fatal(err)
		}
		want := 2
		if ns != "" {
			want = 1
		}
		if len(ex.Memories) != want || len(ex.Turns) != want {
			t.Fatalf("namespace %q: %d memories and %d turns, want %d of each", ns, len(ex.Memories), len(ex.Turns), want)
		}
		ex.ExportedAt = at
		got, err := json.Marshal(ex)
		if err != nil {
			t.Fatal(err)
		}
		q := "?format=json"
		if ns != "" {
			q += "&namespace=" + ns
		}
		if api := get(q); !jsonEqual(t, api, string(got)) {
			t.Errorf("namespace %q: ExportUser\n%s\nAPI\n%s", ns, got, api)
		}
		if md, api := admin.RenderMarkdown(ex, nil), get(q[:len("?format=")]+"markdown"+q[len("?format=json"):]); md != api {
			t.Errorf("namespace %q: RenderMarkdown\n%s\nAPI\n%s", ns, md, api)
		}
	}
	if _, err := admin.ExportUser(ctx, st, nil, "", ""); err == nil {
		t.Error("ExportUser accepted an empty user")
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}
