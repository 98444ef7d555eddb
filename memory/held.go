package memory

import "context"

// HeldTurns keeps the turns of replies that finish later: an OpenAI
// Responses request with background: true is answered "queued", and its
// reply exists only when the app fetches the completed response. The
// turn is spooled held, under the upstream response id and without its
// reply; it is not claimed, counted as pending or ingested until it is
// released with the reply. Held in the spool, it is seen by every replica
// and survives a restart; a held turn never released (the app never
// fetched the response) is pruned with the completed turns
// (TurnSpool.PruneSpool), and deleted with its user (DeleteSpoolUser).
//
// The stores keep a held turn as a completed spool row (so nothing that
// reads pending turns sees it) that still has its text, owned by
// HeldOwner.
type HeldTurns interface {
	// HoldTurn spools t held under t.ResponseID (required), setting its
	// ID and Time as SpoolTurns does. A turn whose ID is spooled already
	// is left as it is.
	HoldTurn(ctx context.Context, t *Turn) error
	// HeldTurn returns the scope's turn held under responseID; ok is
	// false when none is (never held, released already, or pruned).
	HeldTurn(ctx context.Context, s Scope, responseID string) (t *Turn, ok bool, err error)
	// ReleaseTurn makes the held turn t (as HeldTurn returned it, its
	// reply filled in) pending, stored as t now is. It reports false and
	// writes nothing when the turn is not held any more (another replica
	// released it first), so a reply is captured once.
	ReleaseTurn(ctx context.Context, t *Turn) (released bool, err error)
}

// HeldOwner is the spool's owner of held turns (HeldTurns); no ingest
// worker has that name.
const HeldOwner = "memproxy:held"
