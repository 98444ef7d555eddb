package admin_test

import (
	"net/http"
	"testing"

	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/memory"
)

// TestRedactOnEveryWrite: with the default policy, an API key or a card
// number given to the admin API's create, edit or import is in no table
// afterwards; the rest of the text is kept.
func TestRedactOnEveryWrite(t *testing.T) {
	secrets := []string{"sk-proj-Zx9abcdefghijklmnopqrs", "4111 1111 1111 1111", "ghp_abcdefghijklmnopqrstuvwxyz0123"}
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		r := e.do("POST", "/admin/v1/users/alice/memories", map[string]any{"text": "Alice's OpenAI key is sk-proj-Zx9abcdefghijklmnopqrs"})
		want(t, r, http.StatusCreated)
		var m map[string]any
		r.json(t, &m)
		if m["text"] != "Alice's OpenAI key is [secret]" {
			t.Errorf("created %q", m["text"])
		}
		r = e.do("PATCH", "/admin/v1/memories/"+m["id"].(string), map[string]any{"text": "Alice pays with 4111 1111 1111 1111"})
		want(t, r, http.StatusOK)
		r.json(t, &m)
		if m["text"] != "Alice pays with [card]" {
			t.Errorf("edited %q", m["text"])
		}
		ex := map[string]any{"format": admin.ExportFormat, "user": "bob", "memories": []any{
			map[string]any{"id": "0123456789abcdef", "scope": map[string]any{"user": "bob", "namespace": "default"},
				"tier": "semantic", "text": "Bob's token is ghp_abcdefghijklmnopqrstuvwxyz0123", "value": 0.5, "confidence": 1,
				"source": "admin", "created_at": "2026-10-01T00:00:00Z", "last_used_at": "2026-10-01T00:00:00Z", "valid_from": "2026-10-01T00:00:00Z"},
		}}
		r = e.do("POST", "/admin/v1/users/bob/import", ex)
		want(t, r, http.StatusOK)
		got, err := st.Get(t.Context(), memory.Scope{User: "bob", Namespace: "default"}, "0123456789abcdef")
		if err != nil || got.Text != "Bob's token is [secret]" {
			t.Fatalf("imported %+v (err %v)", got, err)
		}
		if hits := scanStore(t, st, tablesOf(t, st), secrets...); len(hits) > 0 {
			t.Errorf("secrets stored: %v", hits)
		}
	})
}
