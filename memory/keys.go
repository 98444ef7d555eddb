package memory

import (
	"context"
	"time"
)

// ClientKey is a memproxy client key: a credential an app presents instead
// of (or beside) its upstream key, bound to one user or allowed to name
// users (app backends acting for many users). Only the SHA-256 of the key
// is stored; the key itself is shown once, when it is issued.
type ClientKey struct {
	ID string `json:"id"`
	// Prefix is the start of the key, kept so operators can tell keys apart.
	Prefix string `json:"prefix"`
	// Hash is the lowercase hex SHA-256 of the whole key. Never serialised.
	Hash string `json:"-"`
	// User the key is bound to; "" when it may only name users.
	User string `json:"user,omitempty"`
	// AllowNamedUsers lets the caller name any user (headers, body user).
	AllowNamedUsers bool       `json:"allow_named_users"`
	Label           string     `json:"label,omitempty"`
	CreatedAt       time.Time  `json:"created_at"`
	RevokedAt       *time.Time `json:"revoked_at,omitempty"`
}

// KeyStore keeps client keys. It is operator-wide (keys are not scoped),
// so, like Admin, it is handed only to the management API and to the
// proxy's authenticator.
type KeyStore interface {
	// CreateKey stores k (ID, Hash and CreatedAt set by the caller).
	CreateKey(ctx context.Context, k *ClientKey) error
	// ListKeys returns every key, revoked ones included, newest first.
	ListKeys(ctx context.Context) ([]*ClientKey, error)
	// RevokeKey sets revoked_at=t; ErrNotFound when no key has the id.
	RevokeKey(ctx context.Context, id string, t time.Time) error
	// LookupKey finds a key by its hash, revoked or not; ErrNotFound when
	// none matches.
	LookupKey(ctx context.Context, hash string) (*ClientKey, error)
}
