package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Held turns (memory.HeldTurns) are turn_spool rows that are done, so no
// claim, count or pending scope sees them, but keep their data, owned by
// memory.HeldOwner. done_at is when the turn was held: PruneSpool drops
// one never released with the completed turns.

// HoldTurn implements memory.HeldTurns.
func (s *spool) HoldTurn(ctx context.Context, t *memory.Turn) error {
	if s.closed.Load() {
		return memory.ErrClosed
	}
	if t == nil || t.ResponseID == "" {
		return fmt.Errorf("hold turn: %w: a turn with a response id is required", memory.ErrInvalid)
	}
	if err := t.Scope.Validate(); err != nil {
		return fmt.Errorf("hold turn: %w", err)
	}
	memory.PrepareSpooled(t, time.Now())
	t.Time = micro(t.Time)
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("hold turn: %w", err)
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO turn_spool (tid, user_id, namespace, request_id, response_id, session, time, data, done, owner, done_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, true, $9, clock_timestamp()) ON CONFLICT (tid) DO NOTHING`,
		t.ID, t.Scope.User, t.Scope.Namespace, t.RequestID, t.ResponseID, t.Session, t.Time, string(b), memory.HeldOwner)
	if err != nil {
		return fmt.Errorf("hold turn: %w", err)
	}
	return nil
}

// HeldTurn implements memory.HeldTurns.
func (s *spool) HeldTurn(ctx context.Context, sc memory.Scope, responseID string) (*memory.Turn, bool, error) {
	if err := s.check(sc); err != nil {
		return nil, false, fmt.Errorf("held turn: %w", err)
	}
	if responseID == "" {
		return nil, false, nil
	}
	var data string
	err := s.db.QueryRowContext(ctx, `SELECT data FROM turn_spool WHERE user_id = $1 AND namespace = $2 AND response_id = $3
		AND done AND owner = $4 AND data IS NOT NULL ORDER BY seq DESC LIMIT 1`, sc.User, sc.Namespace, responseID, memory.HeldOwner).Scan(&data)
	switch {
	case err == sql.ErrNoRows:
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("held turn: %w", err)
	}
	var t memory.Turn
	if err := json.Unmarshal([]byte(data), &t); err != nil {
		return nil, false, fmt.Errorf("held turn: %w", err)
	}
	return &t, true, nil
}

// ReleaseTurn implements memory.HeldTurns.
func (s *spool) ReleaseTurn(ctx context.Context, t *memory.Turn) (bool, error) {
	if t == nil || t.ID == "" {
		return false, fmt.Errorf("release turn: %w: a held turn is required", memory.ErrInvalid)
	}
	if err := s.check(t.Scope); err != nil {
		return false, fmt.Errorf("release turn: %w", err)
	}
	t.Time = micro(t.Time)
	b, err := json.Marshal(t)
	if err != nil {
		return false, fmt.Errorf("release turn: %w", err)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE turn_spool SET done = false, owner = '', done_at = NULL, data = $1
		WHERE tid = $2 AND user_id = $3 AND namespace = $4 AND done AND owner = $5`,
		string(b), t.ID, t.Scope.User, t.Scope.Namespace, memory.HeldOwner)
	if err != nil {
		return false, fmt.Errorf("release turn: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
