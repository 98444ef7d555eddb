package memory

import (
	"context"
	"strings"
	"time"
)

// TurnSpool is the background queue's input: the turns the proxy captured
// and the admin import queued, in a table memproxy owns. Capture appends
// (concurrent appends share one commit); ingest claims a scope's pending
// turns with a short lease, renews it while it works and completes them.
// A lease that is not renewed (its worker died) expires and the turns are
// claimed again; a live lease is never taken. A completed turn keeps only
// its metadata (scope, request and response id, session, time): its text
// is gone from the spool, and lives on in the turn log when that is on.
//
// Every method but the operator-wide ones (PendingScopes, SpoolStats,
// AnyPending, DeleteSpoolUser) takes a scope.
type TurnSpool interface {
	HeldTurns
	// SpoolTurns commits the turns in one transaction, all or none (a turn
	// whose ID is spooled already is left as it is), and
	// sets each turn's ID (a random key when empty) and Time (now when
	// zero). The turn log is written later, by ingest, keyed by the ID.
	SpoolTurns(ctx context.Context, turns []*Turn) error
	// ClaimTurns leases up to limit pending turns of s, oldest first, to
	// owner until lease from now. It returns none while another owner
	// holds a live lease on a turn of s: a scope's turns are ingested by
	// one worker at a time, in order.
	ClaimTurns(ctx context.Context, s Scope, owner string, lease time.Duration, limit int) ([]*Turn, error)
	// RenewTurns extends owner's leases on the turns of s it still holds;
	// it returns how many it renewed.
	RenewTurns(ctx context.Context, s Scope, owner string, lease time.Duration) (int, error)
	// CompleteTurns marks owner's claimed turns done (their text dropped)
	// and returns how many; a turn whose lease owner lost is left alone.
	CompleteTurns(ctx context.Context, s Scope, owner string, ids []string) (int, error)
	// ReleaseTurns gives owner's leases on the turns back, so they are
	// claimed again at once (a failed attempt).
	ReleaseTurns(ctx context.Context, s Scope, owner string, ids []string) error
	// SessionByResponse returns the session of the turn whose reply had
	// the upstream response id (OpenAI Responses API
	// previous_response_id), ok=false when the scope has none.
	SessionByResponse(ctx context.Context, s Scope, responseID string) (session string, ok bool, err error)
	// RedactSpooled replaces, in the scope's pending and held turns, every
	// occurrence of each text with replacement; it returns the turns
	// changed (explicit forget).
	RedactSpooled(ctx context.Context, s Scope, texts []string, replacement string) (int, error)

	// PendingScopes lists scopes with turns that can be claimed now (no
	// lease or an expired one), at most limit.
	PendingScopes(ctx context.Context, limit int) ([]Scope, error)
	// SpoolStats counts the pending turns, and those under a live lease.
	SpoolStats(ctx context.Context) (pending, leased int, err error)
	// AnyPending reports whether any turn is pending, without counting
	// them (what a wait for the queue to empty asks, often).
	AnyPending(ctx context.Context) (bool, error)
	// DeleteSpoolUser removes a user's spooled turns (in one namespace
	// when ns is not empty), done ones included.
	DeleteSpoolUser(ctx context.Context, user, ns string) (int, error)
	// PruneSpool deletes completed turns done before t.
	PruneSpool(ctx context.Context, before time.Time) (int, error)
}

// PrepareSpooled gives t what a spooled turn must have: an ID (a random
// key when empty) and a Time (now when zero), in UTC.
func PrepareSpooled(t *Turn, now time.Time) {
	if t.ID == "" {
		t.ID = NewID()
	}
	if t.Time.IsZero() {
		t.Time = now
	}
	t.Time = t.Time.UTC()
}

// RedactTurnTexts replaces every occurrence of each text in the turn's
// user message, reply and context with replacement, and reports whether
// anything changed.
func RedactTurnTexts(t *Turn, texts []string, replacement string) bool {
	changed := false
	for _, f := range []*string{&t.User, &t.Assistant, &t.Context} {
		for _, x := range texts {
			if x != "" && strings.Contains(*f, x) {
				*f = strings.ReplaceAll(*f, x, replacement)
				changed = true
			}
		}
	}
	return changed
}

// Eraser removes forgotten text from the logs that keep copies of it
// (explicit forget: "forget my passport number"). The rows stay, without
// their text: the turn log keeps that a turn happened, the audit log who
// changed which memory and when. It also keeps deleted users'
// tombstones (forget-user): while one is fresh, the store drops writes
// for the user dated before the deletion, whichever replica makes them.
type Eraser interface {
	// EraseTurns replaces the texts (user message, reply, context) of the
	// scope's turn-log rows of the request ids with ErasedText; it returns
	// the rows changed.
	EraseTurns(ctx context.Context, s Scope, requestIDs []string) (int, error)
	// EraseAudit empties the before and after images of the scope's audit
	// entries of the memory ids; it returns the entries changed.
	EraseAudit(ctx context.Context, s Scope, memoryIDs []string) (int, error)
	// TombstoneUser records that user is being deleted now (before the
	// user's rows are), so every write that starts afterwards sees it.
	TombstoneUser(ctx context.Context, user string) error
	// ClearTombstone ends user's tombstone (an import restoring them).
	ClearTombstone(ctx context.Context, user string) error
}

// Erasing is a store that hands out its Eraser (both stores do).
type Erasing interface{ Eraser() Eraser }

// ErasedText stands for text removed on the user's request.
const ErasedText = "[forgotten]"
