package admin

import (
	"context"
	"fmt"

	"github.com/memproxy/memproxy/memory"
)

// tombstone marks user as deleted, before forget-user deletes the rows:
// while the tombstone is fresh, the store drops writes for the user dated
// before the deletion, whichever replica makes them (memory.Eraser; both
// stores keep tombstones).
func (a *API) tombstone(ctx context.Context, user string) error {
	if t, ok := a.st.(memory.Erasing); ok {
		if err := t.Eraser().TombstoneUser(ctx, user); err != nil {
			return fmt.Errorf("delete user: %w", err)
		}
	}
	return nil
}

// reopen ends user's tombstone before an import writes for them: the
// operator restores the user on purpose, rows dated before the deletion
// included.
func (a *API) reopen(ctx context.Context, user string) error {
	if t, ok := a.st.(memory.Erasing); ok {
		if err := t.Eraser().ClearTombstone(ctx, user); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	return nil
}
