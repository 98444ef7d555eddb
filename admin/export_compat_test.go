package admin_test

import (
	"net/http"
	"testing"

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
