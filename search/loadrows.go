package search

import (
	"context"

	"github.com/memproxy/memproxy/memory"
)

// RowLoader is a Source that can load a scope with its rows whole. A scope
// small enough for a share of the row cache (rowLoadShare) is loaded that
// way and its rows kept in the cache: the searches that follow (recall's
// candidates, the background's duplicate and cluster checks) then read
// none of them back, where a cold cache read a hundred rows per recall
// from the database. A larger scope loads its index only.
type RowLoader interface {
	// Count reports how many memories the scope holds, counting at most
	// most+1.
	Count(ctx context.Context, sc memory.Scope, most int) (int, error)
	// LoadRows calls add for every row of the scope with its memory.
	LoadRows(ctx context.Context, sc memory.Scope, add func(Row, *memory.Memory)) error
}

// rowLoadShare is the share of the row cache one scope's rows may take
// when it loads whole.
const rowLoadShare = 8

// loadRows fills the scope's indexes through rl, whole when the scope is
// small enough; the caller holds the write lock.
func (e *Engine) loadRows(ctx context.Context, sc memory.Scope, ix *scopeIndex, rl RowLoader) error {
	most := e.rows.max / rowLoadShare / (4*e.dim + 600)
	n, err := rl.Count(ctx, sc, most)
	if err != nil {
		return err
	}
	if n > most {
		return e.src.Load(ctx, sc, ix.upsert)
	}
	note := e.rows.note()
	kept := make([]*memory.Memory, 0, n)
	err = rl.LoadRows(ctx, sc, func(r Row, m *memory.Memory) {
		ix.upsert(r)
		kept = append(kept, m)
	})
	if err != nil {
		kept = nil
	}
	// Rows changed since the note are left out (rowCache.put).
	e.rows.put(note, kept)
	return err
}
