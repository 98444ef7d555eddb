package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

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

// RecallSince reads recall rows across scopes from since, oldest first.
func (s *Store) RecallSince(ctx context.Context, since time.Time) ([]*memory.RecallRecord, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("read recall: %w", memory.ErrClosed)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+recallCols+` FROM recall WHERE time >= $1 ORDER BY time, seq`, since.UTC())
	out, err := sqlkit.Collect(rows, err, scanRecall)
	if err != nil {
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
