package sqlkit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Held turns (memory.HeldTurns) are spool rows that are done, so no
// claim, count or pending scope sees them, but keep their data, owned by
// memory.HeldOwner. done_at is when the turn was held: PruneSpool drops
// one never released with the completed turns.

// HoldTurn implements memory.HeldTurns.
func (p *Spool) HoldTurn(ctx context.Context, t *memory.Turn) error {
	if err := p.c.open("hold turn"); err != nil {
		return err
	}
	if t == nil || t.ResponseID == "" {
		return fmt.Errorf("hold turn: %w: a turn with a response id is required", memory.ErrInvalid)
	}
	if err := t.Scope.Validate(); err != nil {
		return fmt.Errorf("hold turn: %w", err)
	}
	// Before its insert: the turns spooled earlier take the lower seqs.
	if err := p.sync(ctx, "hold turn", false); err != nil {
		return err
	}
	memory.PrepareSpooled(t, time.Now())
	t.Time = Micro(t.Time)
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("hold turn: %w", err)
	}
	now, args := p.d.Now(0)
	if _, err := p.c.exec(ctx, `INSERT INTO `+p.d.Table+` (tid, user_id, namespace, request_id, response_id, session, time, data,
		done, owner, done_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, true, ?, `+now+`) ON CONFLICT (tid) DO NOTHING`,
		append([]any{t.ID, t.Scope.User, t.Scope.Namespace, t.RequestID, t.ResponseID, t.Session, p.c.Time(t.Time), string(b),
			memory.HeldOwner}, args...)...); err != nil {
		return fmt.Errorf("hold turn: %w", err)
	}
	return nil
}

// HeldTurn implements memory.HeldTurns.
func (p *Spool) HeldTurn(ctx context.Context, sc memory.Scope, responseID string) (*memory.Turn, bool, error) {
	if err := p.c.check(sc); err != nil {
		return nil, false, fmt.Errorf("held turn: %w", err)
	}
	if responseID == "" {
		return nil, false, nil
	}
	if err := p.sync(ctx, "held turn", false); err != nil {
		return nil, false, err
	}
	var data string
	err := p.c.queryRow(ctx, `SELECT data FROM `+p.d.Table+` WHERE user_id = ? AND namespace = ? AND response_id = ?
		AND `+p.d.Done+` AND owner = ? AND data IS NOT NULL ORDER BY seq DESC LIMIT 1`,
		sc.User, sc.Namespace, responseID, memory.HeldOwner).Scan(&data)
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
	if err := p.c.check(t.Scope); err != nil {
		return false, fmt.Errorf("release turn: %w", err)
	}
	if err := p.sync(ctx, "release turn", false); err != nil {
		return false, err
	}
	t.Time = Micro(t.Time)
	b, err := json.Marshal(t)
	if err != nil {
		return false, fmt.Errorf("release turn: %w", err)
	}
	n, err := p.c.exec(ctx, `UPDATE `+p.d.Table+` SET done = false, owner = '', done_at = `+p.d.Unset+`, data = ?
		WHERE tid = ? AND user_id = ? AND namespace = ? AND `+p.d.Done+` AND owner = ?`,
		string(b), t.ID, t.Scope.User, t.Scope.Namespace, memory.HeldOwner)
	return Wrapped("release turn", n == 1, err)
}
