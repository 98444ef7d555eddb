package proxy

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/policy"
)

func TestResolveUser(t *testing.T) {
	pol := policy.Default().Identity
	untrusting := pol
	untrusting.TrustHeaders = false
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	bearer := KeyHash("salt", "sk-1")
	for _, tc := range []struct {
		name     string
		in       IdentityInput
		user     string
		source   string
		userLike string // prefix check instead of equality
	}{
		{"header wins", IdentityInput{Header: hdr(HeaderUser, "alice", "X-OpenWebUI-User-Id", "ui", "Authorization", "Bearer sk-1"), BodyUser: "body", SafetyIdentifier: "safe"}, "alice", "header", ""},
		{"safety identifier next", IdentityInput{Header: hdr("X-OpenWebUI-User-Id", "ui"), BodyUser: "body", SafetyIdentifier: "safe"}, "safe", "safety_identifier", ""},
		{"body user next", IdentityInput{Header: hdr("X-OpenWebUI-User-Id", "ui"), BodyUser: "body"}, "body", "body", ""},
		{"ui header next", IdentityInput{Header: hdr("X-OpenWebUI-User-Id", "ui", "Authorization", "Bearer sk-1")}, "ui", "X-OpenWebUI-User-Id", ""},
		{"bearer hash", IdentityInput{Header: hdr("Authorization", "Bearer sk-1")}, bearer, "bearer", ""},
		{"anonymous", IdentityInput{Header: hdr()}, Anonymous, "anonymous", ""},
		{"untrusted headers ignored", IdentityInput{Header: hdr(HeaderUser, "alice", "Authorization", "bearer sk-1"), BodyUser: "b", Policy: untrusting}, bearer, "bearer", ""},
		{"client key binds", IdentityInput{Header: hdr(HeaderUser, "alice"), KeyUser: "team"}, "team", "client_key", ""},
		{"client key with named users", IdentityInput{Header: hdr(HeaderUser, "alice"), KeyUser: "team", AllowNamed: true}, "alice", "header", ""},
		{"client key named but untrusted", IdentityInput{Header: hdr(HeaderUser, "alice"), KeyUser: "team", AllowNamed: true, Policy: untrusting}, "team", "client_key", ""},
		{"whitespace ignored", IdentityInput{Header: hdr(HeaderUser, "  "), BodyUser: " bob "}, "bob", "body", ""},
		{"oversized user hashed", IdentityInput{Header: hdr(HeaderUser, strings.Repeat("u", 300))}, "", "header", "h:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.Salt = "salt"
			if in.Policy.UserHeaders == nil {
				in.Policy = pol
			}
			user, src := ResolveUser(in)
			if tc.userLike != "" {
				if !strings.HasPrefix(user, tc.userLike) || len(user) > 64 {
					t.Errorf("user = %q, want prefix %q", user, tc.userLike)
				}
			} else if user != tc.user {
				t.Errorf("user = %q, want %q", user, tc.user)
			}
			if src != tc.source {
				t.Errorf("source = %q, want %q", src, tc.source)
			}
		})
	}
}

func TestKeyHash(t *testing.T) {
	a, b, c := KeyHash("s1", "tok"), KeyHash("s2", "tok"), KeyHash("s1", "tok2")
	if a == b || a == c || a != KeyHash("s1", "tok") {
		t.Errorf("hash not salted/deterministic: %s %s %s", a, b, c)
	}
	if strings.Contains(a, "tok") {
		t.Error("hash leaks the token")
	}
}

func TestResolveSession(t *testing.T) {
	msgs := func(texts ...string) []Message {
		var out []Message
		for i, s := range texts {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			out = append(out, Message{Role: role, Text: s})
		}
		return out
	}
	h := http.Header{}
	s1 := ResolveSession(h, msgs("hello", "hi!"), 2)
	s2 := ResolveSession(h, msgs("hello", "hi!", "how are you", "fine"), 2)
	s3 := ResolveSession(h, msgs("hello", "different"), 2)
	if s1 != s2 {
		t.Error("resent history changed the session")
	}
	if s1 == s3 {
		t.Error("different conversations share a session")
	}
	h.Set(HeaderSession, "chat-42")
	if got := ResolveSession(h, msgs("x"), 2); got != "chat-42" {
		t.Errorf("header session = %q", got)
	}
}

func TestResolveNamespace(t *testing.T) {
	for _, tc := range []struct {
		v    string
		ns   string
		okay bool
	}{{"", "default", true}, {"work", "work", true}, {"bad\x01", "", false}, {strings.Repeat("n", 257), "", false}} {
		h := http.Header{}
		if tc.v != "" {
			h[HeaderNamespace] = []string{tc.v}
		}
		ns, ok := ResolveNamespace(h)
		if ok != tc.okay || (ok && ns != tc.ns) {
			t.Errorf("%q: got %q %v", tc.v, ns, ok)
		}
	}
}

func TestAssignArm(t *testing.T) {
	if got := AssignArm("s", "u", 0); got != ArmOn {
		t.Errorf("0%% off gave %s", got)
	}
	if got := AssignArm("s", "u", 100); got != ArmOff {
		t.Errorf("100%% off gave %s", got)
	}
	off := 0
	for i := range 2000 {
		if AssignArm("s", "user-"+string(rune('a'+i%26))+string(rune(i)), 30) == ArmOff {
			off++
		}
	}
	if off < 480 || off > 720 {
		t.Errorf("30%% off assigned %d of 2000", off)
	}
	if AssignArm("s", "x", 50) != AssignArm("s", "x", 50) {
		t.Error("assignment not stable")
	}
}

func TestIngests(t *testing.T) {
	for _, tc := range []struct {
		arm       string
		offIngest bool
		want      bool
	}{{ArmOn, false, true}, {ArmWriteonly, false, true}, {ArmReadonly, true, false}, {ArmOff, true, true}, {ArmOff, false, false}} {
		if got := Ingests(tc.arm, tc.offIngest); got != tc.want {
			t.Errorf("Ingests(%s, %v) = %v", tc.arm, tc.offIngest, got)
		}
	}
}

func TestRequestTime(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	replay := "2023-05-08T13:56:00+02:00"
	want := time.Date(2023, 5, 8, 11, 56, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		tok   string
		admin string
		v     string
		want  time.Time
	}{
		{"honoured", "adm", "adm", replay, want},
		{"wrong token", "nope", "adm", replay, now},
		{"no admin token configured", "", "", replay, now},
		{"unparsable", "adm", "adm", "yesterday", now},
		{"absent", "adm", "adm", "", now},
	} {
		h := http.Header{}
		h.Set(HeaderAdminToken, tc.tok)
		if tc.v != "" {
			h.Set(HeaderTime, tc.v)
		}
		if got := RequestTime(h, tc.admin, now); !got.Equal(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTurnRefs(t *testing.T) {
	h := http.Header{}
	h.Add(HeaderTurnRef, "a, b,,")
	h.Add(HeaderTurnRef, "c")
	if got := strings.Join(TurnRefs(h), "|"); got != "a|b|c" {
		t.Errorf("refs = %q", got)
	}
}

func TestNewUserText(t *testing.T) {
	for _, tc := range []struct {
		msgs []Message
		want string
	}{
		{[]Message{{Role: "system", Text: "s"}, {Role: "user", Text: "hi"}}, "hi"},
		{[]Message{{Role: "user", Text: "a"}, {Role: "assistant", Text: "b"}, {Role: "user", Text: "c"}, {Role: "user", Text: "d"}}, "c\nd"},
		{[]Message{{Role: "user", Text: "a"}, {Role: "assistant", Text: "call"}, {Role: "tool", Text: "42"}}, ""},
	} {
		if got := newUserText(tc.msgs); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.msgs, got, tc.want)
		}
	}
}
