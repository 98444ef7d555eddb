package sqlkit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Store is what this package implements of a store: operator metadata,
// gate state, the turn, audit and recall logs, the admin listings and
// (Keys, Eraser) the client keys and the erasure of forgotten text. A
// store embeds it.
type Store struct{ *Conn }

// Keys is the store's client keys (memory.KeyStore), SHA-256 hashes only:
// a concern of their own, apart from the store's method set.
type Keys struct{ *Conn }

// Keys returns the store's client keys.
func (s Store) Keys() memory.KeyStore { return Keys{s.Conn} }

const keyCols = `id, prefix, hash, user_id, allow_named_users, label, created_at, revoked_at`

// CreateKey stores a client key (ID, Hash and CreatedAt set by the caller).
func (s Keys) CreateKey(ctx context.Context, k *memory.ClientKey) error {
	if err := s.open("create key"); err != nil {
		return err
	}
	if k == nil || k.ID == "" || k.Hash == "" {
		return fmt.Errorf("create key: %w: id and hash are required", memory.ErrInvalid)
	}
	if k.CreatedAt.IsZero() {
		k.CreatedAt = time.Now()
	}
	k.CreatedAt = Micro(k.CreatedAt)
	if _, err := s.exec(ctx, `INSERT INTO client_keys (`+keyCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.Prefix, k.Hash, k.User, k.AllowNamedUsers, k.Label, s.Time(k.CreatedAt), s.optTime(k.RevokedAt)); err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	return nil
}

func scanKey(r Scanner) (*memory.ClientKey, error) {
	var k memory.ClientKey
	err := r.Scan(&k.ID, &k.Prefix, &k.Hash, &k.User, &k.AllowNamedUsers, &k.Label, Time(&k.CreatedAt), OptTime(&k.RevokedAt))
	return &k, err
}

// ListKeys returns every key, revoked ones included, newest first.
func (s Keys) ListKeys(ctx context.Context) ([]*memory.ClientKey, error) {
	if err := s.open("list keys"); err != nil {
		return nil, err
	}
	rows, err := s.query(ctx, `SELECT `+keyCols+` FROM client_keys ORDER BY created_at DESC, id DESC`)
	out, err := Collect(rows, err, scanKey)
	return Wrapped("list keys", out, err)
}

// RevokeKey sets revoked_at=t; ErrNotFound when no key has the id.
func (s Keys) RevokeKey(ctx context.Context, id string, t time.Time) error {
	if err := s.open("revoke key"); err != nil {
		return err
	}
	n, err := s.exec(ctx, `UPDATE client_keys SET revoked_at = ? WHERE id = ?`, s.Time(t), id)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("revoke key %s: %w", id, memory.ErrNotFound)
	}
	return nil
}

// LookupKey finds a key by its hash, revoked or not.
func (s Keys) LookupKey(ctx context.Context, hash string) (*memory.ClientKey, error) {
	if err := s.open("lookup key"); err != nil {
		return nil, err
	}
	k, err := One(s.queryRow(ctx, `SELECT `+keyCols+` FROM client_keys WHERE hash = ?`, hash), scanKey, "key")
	return Wrapped("lookup key", k, err)
}

// Meta reads an operator setting.
func (s Store) Meta(ctx context.Context, key string) (string, bool, error) {
	if err := s.open("read meta " + key); err != nil {
		return "", false, err
	}
	var v string
	err := s.queryRow(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read meta %s: %w", key, err)
	}
	return v, true, nil
}

// SetMetaIfAbsent stores v under key unless a value exists, and returns
// the value in force. Concurrent callers all get the first writer's
// value: an insert that conflicts waits for the winner's commit, and the
// read after it is a statement of its own that sees it.
func (s Store) SetMetaIfAbsent(ctx context.Context, key, v string) (string, error) {
	if err := s.open("set meta " + key); err != nil {
		return "", err
	}
	var cur string
	err := s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.Rebind(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`), key, v); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, s.Rebind(`SELECT value FROM meta WHERE key = ?`), key).Scan(&cur)
	})
	if err != nil {
		return "", fmt.Errorf("set meta %s: %w", key, err)
	}
	return cur, nil
}

// Threshold returns the adaptive gate's stored threshold for the scope.
func (s Store) Threshold(ctx context.Context, sc memory.Scope) (float64, bool, error) {
	if err := s.check(sc); err != nil {
		return 0, false, fmt.Errorf("gate threshold: %w", err)
	}
	var v float64
	err := s.queryRow(ctx, `SELECT threshold FROM gate_state WHERE user_id = ? AND namespace = ?`, sc.User, sc.Namespace).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("gate threshold: %w", err)
	}
	return v, true, nil
}

// SetThreshold stores the scope's gate threshold.
func (s Store) SetThreshold(ctx context.Context, sc memory.Scope, v float64) error {
	if err := s.check(sc); err != nil {
		return fmt.Errorf("set gate threshold: %w", err)
	}
	if _, err := s.exec(ctx, `INSERT INTO gate_state (user_id, namespace, threshold) VALUES (?, ?, ?)
		ON CONFLICT (user_id, namespace) DO UPDATE SET threshold = excluded.threshold`, sc.User, sc.Namespace, v); err != nil {
		return fmt.Errorf("set gate threshold: %w", err)
	}
	return nil
}
