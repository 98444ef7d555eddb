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
