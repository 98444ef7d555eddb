package admin_test

import (
	"net/http"
	"testing"

	"github.com/memproxy/memproxy/proxy"
)

// TestForgetUserRevokesTheirKeys: deleting a whole user revokes the client
// keys bound to them (the key then gets 401 instead of re-creating the
// user); an app key that names users, and a namespace delete, leave keys
// alone.
func TestForgetUserRevokesTheirKeys(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		if _, ok := keysOf(st.(*fixture).testStore); !ok {
			t.Skip("store without client keys")
		}
		s := newStack(t, st, nil)
		issue := func(body map[string]any) string {
			r := s.admin("POST", "/admin/v1/keys", body)
			want(t, r, http.StatusCreated)
			var k struct{ Key string }
			r.json(t, &k)
			return k.Key
		}
		aliceKey := issue(map[string]any{"user": "alice"})
		appKey := issue(map[string]any{"allow_named_users": true})
		chat := func(key, user string) int {
			hdr := map[string]string{"Authorization": "Bearer " + key}
			if user != "" {
				hdr[proxy.HeaderUser] = user
			}
			res, _ := s.chat("I like green tea in the morning", hdr)
			return res.StatusCode
		}
		if code := chat(aliceKey, ""); code != http.StatusOK {
			t.Fatalf("alice's key before: %d", code)
		}
		want(t, s.admin("DELETE", "/admin/v1/users/alice?namespace=default", nil), http.StatusOK)
		if code := chat(aliceKey, ""); code != http.StatusOK {
			t.Fatalf("a namespace delete revoked the key: %d", code)
		}
		r := s.admin("DELETE", "/admin/v1/users/alice", nil)
		want(t, r, http.StatusOK)
		var out struct {
			Deleted struct {
				Keys int `json:"keys_revoked"`
			}
		}
		r.json(t, &out)
		if out.Deleted.Keys != 1 {
			t.Errorf("keys_revoked = %d, want 1 (%s)", out.Deleted.Keys, r.Body)
		}
		if code := chat(aliceKey, ""); code != http.StatusUnauthorized {
			t.Errorf("deleted user's key after: %d, want 401", code)
		}
		if code := chat(appKey, "bob"); code != http.StatusOK {
			t.Errorf("the app key must survive: %d", code)
		}
	})
}
