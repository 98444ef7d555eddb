package proxy

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Anonymous is the user of a request that carries no identity at all.
// Such requests share nothing: by policy identity.anonymous they get no
// memory (arm ArmNone) or are refused.
const Anonymous = "anonymous"

// ArmNone is the arm of a request memproxy cannot tell apart from any
// other caller's: no recall and nothing stored. It is never assigned by
// A/B and cannot be asked for with X-Memproxy-Memory.
const ArmNone = "none"

// HeaderReason says why a request got no memory (ArmNone).
const HeaderReason = "X-Memproxy-Reason"

// anonymousRule applies identity.anonymous to a request whose user is
// Anonymous: "refuse" is a 401, "no_memory" marks the response with the
// reason (the arm is then ArmNone, see anonymousArm).
func (s *Server) anonymousRule(h http.Header, user string) error {
	if user != Anonymous {
		return nil
	}
	if s.pol.Identity.Anonymous == policy.AnonymousRefuse {
		return &APIError{Status: http.StatusUnauthorized, Type: "invalid_request_error", Code: "identity_required",
			Message: "memproxy cannot tell who is calling: send an API key (Authorization: Bearer), a memproxy client key or, where identity headers are trusted, " + HeaderUser + " (policy identity.anonymous: refuse)"}
	}
	h.Set(HeaderReason, "anonymous")
	return nil
}

// anonymousArm is ArmNone for an Anonymous user: callers without any
// identity would otherwise all read and write one shared memory.
func anonymousArm(user string) (string, bool) {
	if user == Anonymous {
		return ArmNone, true
	}
	return "", false
}

// IdentityInput is everything identity resolution looks at.
type IdentityInput struct {
	Header           http.Header
	BodyUser         string
	SafetyIdentifier string
	// KeyUser is the user bound to a valid memproxy client key ("" when
	// none); AllowNamed lets that key's app name users with headers.
	KeyUser    string
	AllowNamed bool
	Policy     policy.Identity
	Salt       string
}

// ResolveUser picks the request's user: a client key's user (unless the key
// allows named users and a trusted identity is present); then, when policy
// trusts them, X-Memproxy-User, safety_identifier, body user and the chat
// UI headers; then a salted hash of the bearer token; else "anonymous".
// It also returns where the user came from, for logs.
func ResolveUser(in IdentityInput) (user, source string) {
	trusted := in.Policy.TrustHeaders && (in.KeyUser == "" || in.AllowNamed)
	if trusted {
		cands := []struct{ v, src string }{
			{in.Header.Get(HeaderUser), "header"},
			{in.SafetyIdentifier, "safety_identifier"},
			{in.BodyUser, "body"},
		}
		for _, h := range in.Policy.UserHeaders {
			cands = append(cands, struct{ v, src string }{in.Header.Get(h), h})
		}
		for _, c := range cands {
			if v := strings.TrimSpace(c.v); v != "" {
				return scopePart(v), c.src
			}
		}
	}
	if in.KeyUser != "" {
		return scopePart(in.KeyUser), "client_key"
	}
	if tok := BearerToken(in.Header); tok != "" {
		return KeyHash(in.Salt, tok), "bearer"
	}
	return Anonymous, "anonymous"
}

// checkNamedUser refuses a caller that names another memory user with
// X-Memproxy-User when it has no right to: identity headers are not
// trusted (identity.trust_headers false) or its client key is bound to
// one user. Other identity fields (body user, UI headers) are not
// refused: apps send them for their own reasons, and they are simply not
// used then.
func checkNamedUser(in IdentityInput, user string) *APIError {
	named := strings.TrimSpace(in.Header.Get(HeaderUser))
	if named == "" || (in.Policy.TrustHeaders && (in.KeyUser == "" || in.AllowNamed)) || scopePart(named) == user {
		return nil
	}
	return &APIError{Status: http.StatusForbidden, Type: "permission_error", Code: "user_not_allowed", Param: HeaderUser,
		Message: HeaderUser + " names a user this caller may not act for; use a client key that may name users, or omit the header"}
}

// scopePart keeps a user or namespace usable as a scope: a value the store
// would reject (too long, control characters) is replaced by its hash, so
// odd identities degrade instead of failing the chat.
func scopePart(v string) string {
	if (memory.Scope{User: v, Namespace: memory.DefaultNamespace}).Validate() == nil {
		return v
	}
	sum := sha256.Sum256([]byte(v))
	return "h:" + hex.EncodeToString(sum[:12])
}

// KeyHash is the user of a bearer token: "key:" and a salted SHA-256, so
// per-key apps are isolated without the token being stored.
func KeyHash(salt, token string) string {
	h := sha256.New()
	h.Write([]byte(salt))
	h.Write([]byte{0})
	h.Write([]byte(token))
	return "key:" + hex.EncodeToString(h.Sum(nil)[:12])
}

// BearerToken returns the token of an "Authorization: Bearer" header.
func BearerToken(h http.Header) string {
	a := h.Get("Authorization")
	if len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

// ResolveNamespace reads X-Memproxy-Namespace (default "default"); ok is
// false when the value cannot be a scope part.
func ResolveNamespace(h http.Header) (ns string, ok bool) {
	ns = strings.TrimSpace(h.Get(HeaderNamespace))
	if ns == "" {
		return memory.DefaultNamespace, true
	}
	return ns, (memory.Scope{User: "u", Namespace: ns}).Validate() == nil
}

// ResolveSession reads X-Memproxy-Session, else hashes the first n
// messages (role and text): chat apps resend history, so a conversation's
// first messages are stable across its turns.
func ResolveSession(h http.Header, msgs []Message, n int) string {
	if s := strings.TrimSpace(h.Get(HeaderSession)); s != "" {
		return s
	}
	hs := sha256.New()
	for i, m := range msgs {
		if i >= n {
			break
		}
		hs.Write([]byte(m.Role))
		hs.Write([]byte{0})
		hs.Write([]byte(m.Text))
		hs.Write([]byte{0})
	}
	return "s:" + hex.EncodeToString(hs.Sum(nil)[:8])
}

// ValidArm reports whether v names an arm.
func ValidArm(v string) bool {
	switch v {
	case ArmOn, ArmOff, ArmReadonly, ArmWriteonly:
		return true
	}
	return false
}

// AssignArm is the A/B arm of a unit (user or session): a salted hash maps
// it to [0,100) and the first offPercent of that range is "off".
func AssignArm(salt, unit string, offPercent float64) string {
	if offPercent <= 0 {
		return ArmOn
	}
	h := sha256.New()
	h.Write([]byte(salt))
	h.Write([]byte{1})
	h.Write([]byte(unit))
	bucket := float64(binary.BigEndian.Uint64(h.Sum(nil))%10000) / 100
	if bucket < offPercent {
		return ArmOff
	}
	return ArmOn
}

// Ingests reports whether turns of arm are captured.
func Ingests(arm string, offArmIngests bool) bool {
	switch arm {
	case ArmOn, ArmWriteonly:
		return true
	case ArmOff:
		return offArmIngests
	}
	return false
}

// TurnRefs splits X-Memproxy-Turn-Ref (comma-separated, repeatable).
func TurnRefs(h http.Header) []string {
	var refs []string
	for _, v := range h.Values(HeaderTurnRef) {
		for _, r := range strings.Split(v, ",") {
			if r = strings.TrimSpace(r); r != "" {
				refs = append(refs, r)
			}
		}
	}
	return refs
}

// RequestTime is the request's clock: X-Memproxy-Time (RFC 3339) when the
// request carries the admin token (replays), else now.
func RequestTime(h http.Header, adminToken string, now time.Time) time.Time {
	v := h.Get(HeaderTime)
	if v == "" || adminToken == "" {
		return now
	}
	tok := h.Get(HeaderAdminToken)
	if subtle.ConstantTimeCompare([]byte(tok), []byte(adminToken)) != 1 {
		return now
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return now
	}
	return t.UTC()
}
