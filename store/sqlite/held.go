package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/memproxy/memproxy/memory"
)

// Held turns (memory.HeldTurns) are spool rows that are done, so no
// claim, count or pending scope sees them, but keep their data, owned by
// memory.HeldOwner. done_at is when the turn was held: PruneSpool drops
// one never released with the completed turns.

// HoldTurn implements memory.HeldTurns.
func (p *Spool) HoldTurn(ctx context.Context, t *memory.Turn) error {
	if t == nil || t.ResponseID == "" {
		return fmt.Errorf("hold turn: %w: a turn with a response id is required", memory.ErrInvalid)
	}
	if err := t.Scope.Validate(); err != nil {
		return fmt.Errorf("hold turn: %w", err)
	}
	err := p.write(ctx, func(tx *sql.Tx) error {
		now := p.now()
		memory.PrepareSpooled(t, now)
		data, err := json.Marshal(t)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO spool (tid, user, namespace, request_id, response_id, session, time, data, done, owner, done_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (tid) DO NOTHING`,
			t.ID, t.Scope.User, t.Scope.Namespace, t.RequestID, t.ResponseID, t.Session, micros(t.Time), string(data),
			memory.HeldOwner, micros(now))
		return err
	})
	if err != nil {
		return fmt.Errorf("hold turn: %w", err)
	}
	return nil
}

// HeldTurn implements memory.HeldTurns.
func (p *Spool) HeldTurn(ctx context.Context, s memory.Scope, responseID string) (*memory.Turn, bool, error) {
	if err := s.Validate(); err != nil {
		return nil, false, fmt.Errorf("held turn: %w", err)
	}
	if p.closed.Load() {
		return nil, false, memory.ErrClosed
	}
	if responseID == "" {
		return nil, false, nil
	}
	var data string
	err := p.db.QueryRowContext(ctx, `SELECT data FROM spool WHERE user = ? AND namespace = ? AND response_id = ?
		AND done = 1 AND owner = ? AND data IS NOT NULL ORDER BY seq DESC LIMIT 1`, s.User, s.Namespace, responseID, memory.HeldOwner).Scan(&data)
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
func (p *Spool) ReleaseTurn(ctx context.Context, t *memory.Turn) (bool, error) {
	if t == nil || t.ID == "" {
		return false, fmt.Errorf("release turn: %w: a held turn is required", memory.ErrInvalid)
	}
	if err := t.Scope.Validate(); err != nil {
		return false, fmt.Errorf("release turn: %w", err)
	}
	data, err := json.Marshal(t)
	if err != nil {
		return false, fmt.Errorf("release turn: %w", err)
	}
	var n int64
	err = p.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE spool SET done = 0, owner = '', done_at = 0, data = ?
			WHERE tid = ? AND user = ? AND namespace = ? AND done = 1 AND owner = ?`,
			string(data), t.ID, t.Scope.User, t.Scope.Namespace, memory.HeldOwner)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("release turn: %w", err)
	}
	return n == 1, nil
}
