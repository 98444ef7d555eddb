package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
)

const keyCols = `id, prefix, hash, user_id, allow_named_users, label, created_at, revoked_at`

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
	k.CreatedAt = micro(k.CreatedAt)
	_, err := s.db.ExecContext(ctx, `INSERT INTO client_keys (`+keyCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		k.ID, k.Prefix, k.Hash, k.User, k.AllowNamedUsers, k.Label, k.CreatedAt, timeArg(k.RevokedAt))
	if err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	return nil
}

func scanKey(r scanner) (*memory.ClientKey, error) {
	var (
		k       memory.ClientKey
		revoked sql.NullTime
	)
	if err := r.Scan(&k.ID, &k.Prefix, &k.Hash, &k.User, &k.AllowNamedUsers, &k.Label, &k.CreatedAt, &revoked); err != nil {
		return nil, err
	}
	k.CreatedAt = k.CreatedAt.UTC()
	k.RevokedAt = nullTime(revoked)
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

// RevokeKey sets revoked_at=t.
func (s *keys) RevokeKey(ctx context.Context, id string, t time.Time) error {
	if s.closed.Load() {
		return fmt.Errorf("revoke key: %w", memory.ErrClosed)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE client_keys SET revoked_at = $2 WHERE id = $1`, id, micro(t))
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	return oneRow(res, "revoke key", id)
}

// LookupKey finds a key by its hash, revoked or not.
func (s *keys) LookupKey(ctx context.Context, hash string) (*memory.ClientKey, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("lookup key: %w", memory.ErrClosed)
	}
	k, err := scanKey(s.db.QueryRowContext(ctx, `SELECT `+keyCols+` FROM client_keys WHERE hash = $1`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("lookup key: %w", memory.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("lookup key: %w", err)
	}
	return k, nil
}
