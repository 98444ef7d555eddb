package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
)

// Users lists distinct users holding memories, ordered by user. The cursor
// is the last user of the previous page.
func (s *Store) Users(ctx context.Context, limit int, cursor string) (memory.Page[memory.UserInfo], error) {
	var page memory.Page[memory.UserInfo]
	if s.closed.Load() {
		return page, fmt.Errorf("list users: %w", memory.ErrClosed)
	}
	limit = limitOr100(limit)
	rows, err := s.db.QueryContext(ctx, `SELECT user_id, array_agg(DISTINCT namespace ORDER BY namespace), count(*)
		FROM memories WHERE user_id > $1 GROUP BY user_id ORDER BY user_id LIMIT $2`, cursor, limit+1)
	if err != nil {
		return page, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u memory.UserInfo
		if err := rows.Scan(&u.User, pq.Array(&u.Namespaces), &u.Memories); err != nil {
			return page, fmt.Errorf("list users: %w", err)
		}
		page.Data = append(page.Data, u)
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("list users: %w", err)
	}
	if len(page.Data) > limit {
		page.Data = page.Data[:limit]
		page.Next = page.Data[limit-1].User
	}
	return page, nil
}

// Scopes lists every scope that holds memories, for maintenance sweeps.
func (s *Store) Scopes(ctx context.Context) ([]memory.Scope, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("list scopes: %w", memory.ErrClosed)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT user_id, namespace FROM memories ORDER BY 1, 2`)
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

// DeleteUser removes everything of a user (in one namespace when ns is not
// empty) in one transaction.
func (s *Store) DeleteUser(ctx context.Context, user, ns string) (memory.DeleteCounts, error) {
	var c memory.DeleteCounts
	if s.closed.Load() {
		return c, fmt.Errorf("delete user: %w", memory.ErrClosed)
	}
	sc := memory.Scope{User: user, Namespace: ns}
	if ns == "" {
		sc.Namespace = memory.DefaultNamespace // validate the user part only
	}
	if err := sc.Validate(); err != nil {
		return c, fmt.Errorf("delete user: %w", err)
	}
	targets := []struct {
		table string
		n     *int
	}{
		{"memories", &c.Memories}, {"turns", &c.Turns}, {"audit", &c.Audit}, {"recall", &c.Recall}, {"gate_state", &c.Other},
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, tg := range targets {
			res, err := tx.ExecContext(ctx, `DELETE FROM `+tg.table+` WHERE user_id = $1 AND ($2 = '' OR namespace = $2)`, user, ns)
			if err != nil {
				return fmt.Errorf("%s: %w", tg.table, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("%s: %w", tg.table, err)
			}
			*tg.n += int(n)
		}
		return nil
	})
	if err != nil {
		return memory.DeleteCounts{}, fmt.Errorf("delete user: %w", err)
	}
	// Searches would drop the rows as they found them gone; this frees
	// the memory now.
	s.local.ForgetUser(user, ns)
	return c, nil
}

// AuditAll reads the audit log across scopes (user "" = all users), oldest
// first.
func (s *Store) AuditAll(ctx context.Context, user string, since time.Time, limit int) ([]*memory.AuditEntry, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("read audit: %w", memory.ErrClosed)
	}
	w := &where{}
	if user != "" {
		w.add("user_id = %s", user)
	}
	if !since.IsZero() {
		w.add("time >= %s", since.UTC())
	}
	return s.audit(ctx, w, limit)
}

// RecallSince reads recall rows across scopes from since, oldest first.
func (s *Store) RecallSince(ctx context.Context, since time.Time) ([]*memory.RecallRecord, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("read recall: %w", memory.ErrClosed)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+recallCols+` FROM recall WHERE time >= $1 ORDER BY time, seq`, since.UTC())
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

// FindRecall finds a request's recall row without knowing its scope.
func (s *Store) FindRecall(ctx context.Context, requestID string) (*memory.RecallRecord, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("find recall: %w", memory.ErrClosed)
	}
	r, err := scanRecall(s.db.QueryRowContext(ctx, `SELECT `+recallCols+` FROM recall WHERE request_id = $1
		ORDER BY time DESC LIMIT 1`, requestID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("find recall %s: %w", requestID, memory.ErrNotFound)
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
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = $1`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read meta %s: %w", key, err)
	}
	return v, true, nil
}

// SetMetaIfAbsent stores v under key unless a value exists, and returns the
// value in force. Concurrent callers all get the first writer's value: the
// read after a conflicting insert is a new statement, so it sees the winner's
// committed row.
func (s *Store) SetMetaIfAbsent(ctx context.Context, key, v string) (string, error) {
	if s.closed.Load() {
		return "", fmt.Errorf("set meta %s: %w", key, memory.ErrClosed)
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, key, v)
	if err != nil {
		return "", fmt.Errorf("set meta %s: %w", key, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 1 {
		return v, nil
	}
	cur, ok, err := s.Meta(ctx, key)
	if err != nil {
		return "", fmt.Errorf("set meta %s: %w", key, err)
	}
	if !ok {
		return "", fmt.Errorf("set meta %s: value vanished after a conflicting insert", key)
	}
	return cur, nil
}
