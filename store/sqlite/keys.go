package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
)

var _ memory.KeyStore = (*Store)(nil)

// keysMigration (version 5) is the client_keys table: memproxy client keys,
// stored as SHA-256 hashes only.
const keysMigration = `
CREATE TABLE client_keys (
	id                TEXT PRIMARY KEY,
	prefix            TEXT NOT NULL,
	hash              TEXT NOT NULL UNIQUE,
	user              TEXT NOT NULL DEFAULT '',
	allow_named_users INTEGER NOT NULL DEFAULT 0,
	label             TEXT NOT NULL DEFAULT '',
	created_at        INTEGER NOT NULL,
	revoked_at        INTEGER
) STRICT;
`

const keyCols = `id, prefix, hash, user, allow_named_users, label, created_at, revoked_at`

// CreateKey stores a client key (ID, Hash and CreatedAt set by the caller).
func (s *keys) CreateKey(ctx context.Context, k *memory.ClientKey) error {
	if s.closed.Load() {
		return fmt.Errorf("create key: %w", memory.ErrClosed)
	}
	if k == nil || k.ID == "" || k.Hash == "" {
		return fmt.Errorf("create key: %w: id and hash are required", memory.ErrInvalid)
	}
	if k.CreatedAt.IsZero() {
		k.CreatedAt = time.Now()
	}
	k.CreatedAt = fromMicros(micros(k.CreatedAt))
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO client_keys (`+keyCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			k.ID, k.Prefix, k.Hash, k.User, k.AllowNamedUsers, k.Label, micros(k.CreatedAt), nullMicros(k.RevokedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	return nil
}

func scanKey(r scanner) (*memory.ClientKey, error) {
	var (
		k       memory.ClientKey
		created int64
		revoked sql.NullInt64
	)
	if err := r.Scan(&k.ID, &k.Prefix, &k.Hash, &k.User, &k.AllowNamedUsers, &k.Label, &created, &revoked); err != nil {
		return nil, err
	}
	k.CreatedAt = fromMicros(created)
	k.RevokedAt = fromNullMicros(revoked)
	return &k, nil
}

// ListKeys returns every key, revoked ones included, newest first.
func (s *keys) ListKeys(ctx context.Context) ([]*memory.ClientKey, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("list keys: %w", memory.ErrClosed)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+keyCols+` FROM client_keys ORDER BY created_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	var out []*memory.ClientKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return out, nil
}

// RevokeKey sets revoked_at=t; ErrNotFound when no key has the id.
func (s *keys) RevokeKey(ctx context.Context, id string, t time.Time) error {
	if s.closed.Load() {
		return fmt.Errorf("revoke key: %w", memory.ErrClosed)
	}
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE client_keys SET revoked_at = ? WHERE id = ?`, micros(t), id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("revoke key %s: %w", id, memory.ErrNotFound)
	}
	return nil
}

// LookupKey finds a key by its hash, revoked or not.
func (s *keys) LookupKey(ctx context.Context, hash string) (*memory.ClientKey, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("lookup key: %w", memory.ErrClosed)
	}
	k, err := scanKey(s.db.QueryRowContext(ctx, `SELECT `+keyCols+` FROM client_keys WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("lookup key: %w", memory.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("lookup key: %w", err)
	}
	return k, nil
}
