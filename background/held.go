package background

import (
	"context"
	"fmt"

	"github.com/memproxy/memproxy/memory"
)

// The turns of background responses (OpenAI Responses, background: true)
// wait in the spool, held, until the app fetches the completed response
// (memory.HeldTurns): any replica can release them, and a restart loses
// none. The proxy holds and releases them through the Queue, so they are
// redacted as every captured turn is and ingest wakes when one is
// released.

// HoldTurn spools t, its reply still to come, held under t.ResponseID;
// secrets are redacted before the row is written.
func (q *Queue) HoldTurn(ctx context.Context, t *memory.Turn) error {
	if t == nil {
		return fmt.Errorf("background: hold turn: %w: nil turn", memory.ErrInvalid)
	}
	rt := q.red.Turn(t)
	memory.PrepareSpooled(rt, q.now())
	if err := q.spool.HoldTurn(ctx, rt); err != nil {
		return fmt.Errorf("background: hold turn: %w", err)
	}
	return nil
}

// HeldTurn returns the scope's turn held under responseID.
func (q *Queue) HeldTurn(ctx context.Context, s memory.Scope, responseID string) (*memory.Turn, bool, error) {
	return q.spool.HeldTurn(ctx, s, responseID)
}

// ReleaseTurn queues the held turn t, its reply filled in (redacted
// first), for ingest; false when another caller released it first.
func (q *Queue) ReleaseTurn(ctx context.Context, t *memory.Turn) (bool, error) {
	if t == nil {
		return false, fmt.Errorf("background: release turn: %w: nil turn", memory.ErrInvalid)
	}
	ok, err := q.spool.ReleaseTurn(ctx, q.red.Turn(t))
	if err != nil {
		return false, fmt.Errorf("background: release turn: %w", err)
	}
	if ok {
		q.met.enqueued.Inc()
		q.dispatch.notify([]memory.Scope{t.Scope})
	}
	return ok, nil
}
