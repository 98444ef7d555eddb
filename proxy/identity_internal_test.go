package proxy

import (
	"net/http"
	"testing"
	"time"

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

// Request ids sort by the time they were made, and differ within one
// millisecond.
func TestRequestIDsInTimeOrder(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	a, b, c := requestIDAt(t0), requestIDAt(t0), requestIDAt(t0.Add(time.Millisecond))
	if len(a) != 24 || a == b || !(a < c && b < c) {
		t.Errorf("ids %s %s %s: want 24 hex characters, distinct, the later one last", a, b, c)
	}
	if later := requestIDAt(t0.Add(365 * 24 * time.Hour)); later <= c {
		t.Errorf("an id a year later %s sorts before %s", later, c)
	}
}
