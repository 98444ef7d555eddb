package admin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/proxy"
)

var (
	_ proxy.Authenticator       = (*Authenticator)(nil)
	_ proxy.ClientKeyRecognizer = (*Authenticator)(nil)
)

// KeyPrefix starts every memproxy client key, so a leaked one is
// recognisable (secret scanners) and never mistaken for an upstream key.
const KeyPrefix = "mpk_"

// HashKey is the stored form of a client key: lowercase hex SHA-256. Keys
// are 192 random bits, so a plain hash resists guessing without a KDF.
func HashKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

// NewKey returns a fresh client key.
func NewKey() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// keyCacheTTL bounds how long a key lookup is reused: a revocation made on
// another replica takes effect within it (on this one, at once).
const keyCacheTTL = 5 * time.Second

// maxKeyCache bounds the cache; it is cleared when full.
const maxKeyCache = 10000

// Authenticator checks memproxy client keys for the proxy (it implements
// proxy.Authenticator). Lookups are cached briefly so the hot path does not
// hit the database on every request; unknown keys are never cached, so a
// flood of wrong keys cannot grow it.
type Authenticator struct {
	keys memory.KeyStore
	now  func() time.Time

	mu    sync.Mutex
	cache map[string]cachedKey
}

type cachedKey struct {
	k       *memory.ClientKey
	expires time.Time
}

// NewAuthenticator returns an Authenticator over ks.
func NewAuthenticator(ks memory.KeyStore) *Authenticator {
	return &Authenticator{keys: ks, now: time.Now, cache: map[string]cachedKey{}}
}

// Authenticate reports the user a bearer token is bound to, whether it may
// name other users, and ok=false for anything that is not a live client
// key (an upstream key, a revoked key, garbage). err is only for store
// failures.
//
// A nil Authenticator (no key store) knows no keys, so wiring
// api.Authenticator() into the proxy is safe either way.
func (au *Authenticator) Authenticate(ctx context.Context, token string) (user string, allowNamedUsers, ok bool, err error) {
	if au == nil || !strings.HasPrefix(token, KeyPrefix) || len(token) > 256 {
		return "", false, false, nil
	}
	h := HashKey(token)
	now := au.now()
	au.mu.Lock()
	ck, hit := au.cache[h]
	au.mu.Unlock()
	if !hit || now.After(ck.expires) {
		k, err := au.keys.LookupKey(ctx, h)
		if errors.Is(err, memory.ErrNotFound) {
			return "", false, false, nil
		}
		if err != nil {
			return "", false, false, fmt.Errorf("look up client key: %w", err)
		}
		ck = cachedKey{k: k, expires: now.Add(keyCacheTTL)}
		au.mu.Lock()
		if len(au.cache) >= maxKeyCache {
			clear(au.cache)
		}
		au.cache[h] = ck
		au.mu.Unlock()
	}
	if ck.k.RevokedAt != nil && !ck.k.RevokedAt.After(now) {
		return "", false, false, nil
	}
	return ck.k.User, ck.k.AllowNamedUsers, true, nil
}

// IsClientKey reports that token is in the memproxy client key format
// (proxy.ClientKeyRecognizer): a revoked one is then refused, not
// forwarded upstream.
func (au *Authenticator) IsClientKey(token string) bool {
	return au != nil && strings.HasPrefix(token, KeyPrefix)
}

// forget drops cached lookups so a revocation applies at once here.
func (au *Authenticator) forget() {
	au.mu.Lock()
	clear(au.cache)
	au.mu.Unlock()
}

// keyRequest issues a key.
type keyRequest struct {
	User            string `json:"user"`
	AllowNamedUsers bool   `json:"allow_named_users"`
	Label           string `json:"label"`
}

// issuedKey is the one answer that carries the key itself.
type issuedKey struct {
	*memory.ClientKey
	Key string `json:"key"`
}

// POST /admin/v1/keys {user?, allow_named_users?, label?}
func (a *API) createKey(c echo.Context) error {
	if a.cfg.Keys == nil {
		return unavailable("client keys")
	}
	var req keyRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.User == "" && !req.AllowNamedUsers {
		return badParam("user", "is required unless allow_named_users is true")
	}
	if req.User != "" {
		if _, err := scopeFor(req.User, ""); err != nil {
			return err
		}
	}
	if len(req.Label) > 200 || !utf8.ValidString(req.Label) {
		return badParam("label", "must be valid UTF-8 of at most 200 bytes")
	}
	key := NewKey()
	k := &memory.ClientKey{
		ID: memory.NewID(), Prefix: key[:len(KeyPrefix)+6], Hash: HashKey(key),
		User: req.User, AllowNamedUsers: req.AllowNamedUsers, Label: req.Label, CreatedAt: a.now().UTC(),
	}
	ctx := c.Request().Context()
	if err := a.cfg.Keys.CreateKey(ctx, k); err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	a.audit(ctx, keyScope(k), "key_create", "", "", "", fmt.Sprintf(`{"key_id":%q,"allow_named_users":%t}`, k.ID, k.AllowNamedUsers))
	return c.JSON(http.StatusCreated, issuedKey{ClientKey: k, Key: key})
}

// keyScope is where a key's audit entries go: its user, or "*".
func keyScope(k *memory.ClientKey) memory.Scope {
	return memory.Scope{User: cmpOr(k.User, "*"), Namespace: "*"}
}

// GET /admin/v1/keys
func (a *API) listKeys(c echo.Context) error {
	if a.cfg.Keys == nil {
		return unavailable("client keys")
	}
	ks, err := a.cfg.Keys.ListKeys(c.Request().Context())
	if err != nil {
		return fmt.Errorf("list keys: %w", err)
	}
	if ks == nil {
		ks = []*memory.ClientKey{}
	}
	return c.JSON(http.StatusOK, listResponse[*memory.ClientKey]{Data: ks})
}

// DELETE /admin/v1/keys/{id} revokes a key (kept, marked revoked, for audit).
func (a *API) revokeKey(c echo.Context) error {
	if a.cfg.Keys == nil {
		return unavailable("client keys")
	}
	id, err := pathParam(c, "id")
	if err != nil {
		return err
	}
	if !idPattern.MatchString(id) {
		return badParam("id", fmt.Sprintf("%q is not a key id", id))
	}
	ctx := c.Request().Context()
	now := a.now().UTC()
	if err := a.cfg.Keys.RevokeKey(ctx, id, now); err != nil {
		if errors.Is(err, memory.ErrNotFound) {
			return notFound("key " + id)
		}
		return fmt.Errorf("revoke key: %w", err)
	}
	if a.auth != nil {
		a.auth.forget()
	}
	a.audit(ctx, memory.Scope{User: "*", Namespace: "*"}, "key_revoke", "", "", "", fmt.Sprintf(`{"key_id":%q}`, id))
	return c.JSON(http.StatusOK, map[string]any{"id": id, "revoked_at": now})
}
