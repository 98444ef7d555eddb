package sqlite

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Users lists users holding memories or turns, ordered by user.
func (s *Store) Users(ctx context.Context, limit int, cursor string) (memory.Page[memory.UserInfo], error) {
	var page memory.Page[memory.UserInfo]
	if s.closed.Load() {
		return page, fmt.Errorf("list users: %w", memory.ErrClosed)
	}
	after := ""
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return page, fmt.Errorf("list users: %w: bad cursor", memory.ErrInvalid)
		}
		after = string(b)
	}
	if limit <= 0 {
		limit = 100
	}
	rows, err := s.db.QueryContext(ctx, `
		WITH scopes AS (
			SELECT user, namespace, count(*) AS n FROM memories WHERE user > ? GROUP BY user, namespace
			UNION ALL
			SELECT DISTINCT user, namespace, 0 FROM turns WHERE user > ?
		),
		users AS (SELECT DISTINCT user FROM scopes ORDER BY user LIMIT ?)
		SELECT user, namespace, sum(n) FROM scopes WHERE user IN (SELECT user FROM users)
		GROUP BY user, namespace ORDER BY user, namespace`, after, after, limit+1)
	if err != nil {
		return page, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var user, ns string
		var n int
		if err := rows.Scan(&user, &ns, &n); err != nil {
			return page, fmt.Errorf("list users: %w", err)
		}
		if len(page.Data) == 0 || page.Data[len(page.Data)-1].User != user {
			page.Data = append(page.Data, memory.UserInfo{User: user})
		}
		u := &page.Data[len(page.Data)-1]
		u.Namespaces = append(u.Namespaces, ns)
		u.Memories += n
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("list users: %w", err)
	}
	if len(page.Data) > limit {
		page.Data = page.Data[:limit]
		page.Next = base64.RawURLEncoding.EncodeToString([]byte(page.Data[limit-1].User))
	}
	return page, nil
}

// Scopes lists every scope holding memories, ordered by user, namespace.
func (s *Store) Scopes(ctx context.Context) ([]memory.Scope, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("list scopes: %w", memory.ErrClosed)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT user, namespace FROM memories ORDER BY user, namespace`)
	if err != nil {
		return nil, fmt.Errorf("list scopes: %w", err)
	}
	defer rows.Close()
	var out []memory.Scope
	for rows.Next() {
		var sc memory.Scope
		if err := rows.Scan(&sc.User, &sc.Namespace); err != nil {
			return nil, fmt.Errorf("list scopes: %w", err)
		}
		out = append(out, sc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list scopes: %w", err)
	}
	return out, nil
}

// DeleteUser removes everything of user (in namespace ns when not empty)
// in one transaction.
func (s *Store) DeleteUser(ctx context.Context, user, ns string) (memory.DeleteCounts, error) {
	var c memory.DeleteCounts
	check := memory.Scope{User: user, Namespace: ns}
	if ns == "" {
		check.Namespace = memory.DefaultNamespace
	}
	if err := s.check(check); err != nil {
		return c, fmt.Errorf("delete user: %w", err)
	}
	cond, args := "user = ?", []any{user}
	if ns != "" {
		cond, args = "user = ? AND namespace = ?", []any{user, ns}
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		for _, d := range []struct {
			table string
			n     *int
		}{{"memories", &c.Memories}, {"turns", &c.Turns}, {"audit", &c.Audit}, {"recall", &c.Recall}, {"gate_state", &c.Other}} {
			res, err := tx.ExecContext(ctx, `DELETE FROM `+d.table+` WHERE `+cond, args...)
			if err != nil {
				return fmt.Errorf("%s: %w", d.table, err)
			}
			n, _ := res.RowsAffected()
			*d.n = int(n)
		}
		return nil
	})
	if err != nil {
		return memory.DeleteCounts{}, fmt.Errorf("delete user: %w", err)
	}
	s.idx.ForgetUser(user, ns)
	return c, nil
}

// AuditAll reads the audit log across scopes (of one user when user is
// not empty), oldest first.
func (s *Store) AuditAll(ctx context.Context, user string, since time.Time, limit int) ([]*memory.AuditEntry, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("read audit: %w", memory.ErrClosed)
	}
	if limit <= 0 {
		limit = 100
	}
	var rows *sql.Rows
	var err error
	if user == "" {
		rows, err = s.db.QueryContext(ctx, `SELECT `+auditCols+` FROM audit WHERE time >= ? ORDER BY time, seq LIMIT ?`, sinceMicros(since), limit)
	} else {
		rows, err = s.db.QueryContext(ctx, `SELECT `+auditCols+` FROM audit WHERE user = ? AND time >= ? ORDER BY time, seq LIMIT ?`,
			user, sinceMicros(since), limit)
	}
	if err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	return scanAudit(rows)
}

// RecallSince reads recall rows of every scope from since, oldest first.
func (s *Store) RecallSince(ctx context.Context, since time.Time) ([]*memory.RecallRecord, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("read recall: %w", memory.ErrClosed)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+recallCols+` FROM recall WHERE time >= ? ORDER BY time, seq`, sinceMicros(since))
	if err != nil {
		return nil, fmt.Errorf("read recall: %w", err)
	}
	defer rows.Close()
	var out []*memory.RecallRecord
	for rows.Next() {
		r, err := scanRecall(rows)
		if err != nil {
			return nil, fmt.Errorf("read recall: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read recall: %w", err)
	}
	return out, nil
}

// FindRecall finds a request's latest recall row in any scope.
func (s *Store) FindRecall(ctx context.Context, requestID string) (*memory.RecallRecord, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("find recall: %w", memory.ErrClosed)
	}
	r, err := scanRecall(s.db.QueryRowContext(ctx, `SELECT `+recallCols+` FROM recall WHERE request_id = ? ORDER BY seq DESC LIMIT 1`, requestID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("find recall: %w: request %s", memory.ErrNotFound, requestID)
	}
	if err != nil {
		return nil, fmt.Errorf("find recall: %w", err)
	}
	return r, nil
}

// Meta reads an operator setting.
func (s *Store) Meta(ctx context.Context, key string) (string, bool, error) {
	if s.closed.Load() {
		return "", false, fmt.Errorf("read meta %s: %w", key, memory.ErrClosed)
	}
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read meta %s: %w", key, err)
	}
	return v, true, nil
}

// SetMetaIfAbsent stores v under key unless a value exists, and returns
// the value in force.
func (s *Store) SetMetaIfAbsent(ctx context.Context, key, v string) (string, error) {
	var cur string
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, v); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&cur)
	})
	if err != nil {
		return "", fmt.Errorf("set meta %s: %w", key, err)
	}
	return cur, nil
}
