package proxy

import (
	"net/http"
	"testing"

	"github.com/memproxy/memproxy/policy"
)

func TestCheckNamedUser(t *testing.T) {
	trust, distrust := policy.Default().Identity, policy.Default().Identity
	distrust.TrustHeaders = false
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	cases := []struct {
		name   string
		in     IdentityInput
		forbid bool
	}{
		{"trusted header", IdentityInput{Header: hdr(HeaderUser, "bob"), Policy: trust}, false},
		{"no header", IdentityInput{Header: hdr(), Policy: distrust}, false},
		{"untrusted header names another", IdentityInput{Header: hdr(HeaderUser, "bob"), Policy: distrust}, true},
		{"bound key names another", IdentityInput{Header: hdr(HeaderUser, "bob"), KeyUser: "alice", Policy: trust}, true},
		{"bound key names itself", IdentityInput{Header: hdr(HeaderUser, "alice"), KeyUser: "alice", Policy: trust}, false},
		{"key allowed to name users", IdentityInput{Header: hdr(HeaderUser, "bob"), KeyUser: "app", AllowNamed: true, Policy: trust}, false},
		{"untrusted UI header is ignored, not refused", IdentityInput{Header: hdr("X-OpenWebUI-User-Id", "bob"), Policy: distrust}, false},
		{"body user is ignored, not refused", IdentityInput{Header: hdr(), BodyUser: "bob", KeyUser: "alice", Policy: trust}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			user, _ := ResolveUser(c.in)
			err := checkNamedUser(c.in, user)
			if (err != nil) != c.forbid {
				t.Fatalf("user %q: err = %v, want forbidden=%v", user, err, c.forbid)
			}
			if err != nil && (err.Status != http.StatusForbidden || err.Param != HeaderUser) {
				t.Fatalf("error = %+v", err)
			}
		})
	}
}
