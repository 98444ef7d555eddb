package admin_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// oldExport is an export written before memories carried triples and
// turns carried ids, wire formats and response ids.
const oldExport = `{
  "format": "memproxy.export.v1",
  "exported_at": "2026-10-01T00:00:00Z",
  "user": "olga",
  "memories": [
    {"id": "00000000000000a1", "scope": {"user": "olga", "namespace": "default"}, "tier": "semantic",
     "text": "The user lives in Porto.", "value": 0.6, "confidence": 0.7, "source": "extracted", "key": "user.lives_in",
     "created_at": "2026-09-01T10:00:00Z", "last_used_at": "2026-09-01T10:00:00Z", "valid_from": "2026-09-01T10:00:00Z"}
  ],
  "turns": [
    {"request_id": "old-1", "scope": {"user": "olga", "namespace": "default"}, "time": "2026-09-01T10:00:00Z",
     "user": "I live in Porto.", "assistant": "Nice city."}
  ]
}`

// TestImportOldExportShape: import still accepts the export shape of
// earlier versions (no triple on memories, no ids on turns).
func TestImportOldExportShape(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		r := e.do("POST", "/admin/v1/users/olga/import", oldExport)
		want(t, r, http.StatusOK)
		m, err := st.Get(t.Context(), memory.Scope{User: "olga", Namespace: "default"}, "00000000000000a1")
		if err != nil || m.Text != "The user lives in Porto." || m.Key != "user.lives_in" {
			t.Fatalf("imported %+v (err %v)", m, err)
		}
	})
}

// TestExportCarriesAPI: a memory's and a turn's API travel through export
// and import as an additive field; an old export (without it) imports
// with none, and exports again without the field.
func TestExportCarriesAPI(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		want(t, e.do("POST", "/admin/v1/users/olga/import", oldExport), http.StatusOK)
		sc := memory.Scope{User: "olga", Namespace: "default"}
		e.seed(sc, memory.TierSemantic, "The user's sister is Ottilie.", func(m *memory.Memory) { m.API = "messages" })
		if err := st.AppendTurn(t.Context(), &memory.Turn{API: "responses", RequestID: "new-1", Scope: sc, Time: time.Now(),
			User: "My sister is Ottilie.", Assistant: "Noted."}); err != nil {
			t.Fatal(err)
		}
		r := e.do("GET", "/admin/v1/users/olga/export?format=json", nil)
		want(t, r, http.StatusOK)
		var raw struct {
			Memories []map[string]any `json:"memories"`
			Turns    []map[string]any `json:"turns"`
		}
		r.json(t, &raw)
		apis := map[string]any{}
		for _, m := range raw.Memories {
			apis[m["text"].(string)] = m["api"]
		}
		for _, tr := range raw.Turns {
			apis[tr["request_id"].(string)] = tr["api"]
		}
		for k, w := range map[string]any{"The user lives in Porto.": nil, "The user's sister is Ottilie.": "messages", "old-1": nil, "new-1": "responses"} {
			if apis[k] != w {
				t.Errorf("export: %q has api %v, want %v", k, apis[k], w)
			}
		}

		// The export imports into another user with the APIs kept.
		want(t, e.do("POST", "/admin/v1/users/oskar/import", r.Body), http.StatusOK)
		osc := memory.Scope{User: "oskar", Namespace: "default"}
		page, err := st.List(t.Context(), osc, memory.ListFilter{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, m := range page.Data {
			got[m.Text] = m.API
		}
		if got["The user's sister is Ottilie."] != "messages" || got["The user lives in Porto."] != "" || len(got) != 2 {
			t.Errorf("imported memories' apis: %v", got)
		}
		turns, err := st.Turns(t.Context(), osc, memory.TurnFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range turns.Data {
			if w := map[string]string{"old-1": "", "new-1": "responses"}[tr.RequestID]; tr.API != w {
				t.Errorf("imported turn %s has api %q, want %q", tr.RequestID, tr.API, w)
			}
		}

		bad := strings.Replace(oldExport, `"source": "extracted",`, `"source": "extracted", "api": "`+strings.Repeat("x", 40)+`",`, 1)
		wantBad(t, e.do("POST", "/admin/v1/users/pia/import", bad), "memories[0]")
	})
}
