package admin

import (
	"context"
	"fmt"
)

// Tombstones is a store that keeps deleted users' tombstones: while one
// is fresh, the store drops writes for the user dated before the
// deletion, whichever replica makes them (both stores implement it).
type Tombstones interface {
	TombstoneUser(ctx context.Context, user string) error
	ClearTombstone(ctx context.Context, user string) error
}

// tombstone marks user as deleted, before forget-user deletes the rows.
func (a *API) tombstone(ctx context.Context, user string) error {
	if t, ok := a.st.(Tombstones); ok {
		if err := t.TombstoneUser(ctx, user); err != nil {
			return fmt.Errorf("delete user: %w", err)
		}
	}
	return nil
}

// reopen ends user's tombstone before an import writes for them: the
// operator restores the user on purpose, rows dated before the deletion
// included.
func (a *API) reopen(ctx context.Context, user string) error {
	if t, ok := a.st.(Tombstones); ok {
		if err := t.ClearTombstone(ctx, user); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	return nil
}
