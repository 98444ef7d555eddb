package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

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

// RecallSince reads recall rows of every scope from since, oldest first.
func (s *Store) RecallSince(ctx context.Context, since time.Time) ([]*memory.RecallRecord, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("read recall: %w", memory.ErrClosed)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+recallCols+` FROM recall WHERE time >= ? ORDER BY time, seq`, micros(since))
	out, err := sqlkit.Collect(rows, err, scanRecall)
	if err != nil {
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
