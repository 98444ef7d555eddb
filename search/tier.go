package search

import (
	"context"
	"fmt"

	"github.com/memproxy/memproxy/memory"
)

// Tier returns the scope's memories of tier that pass o's state filters
// (live at o.At unless o.IncludeDead; consolidated ones left out with
// o.ExcludeConsolidated), in no particular order, read as a search reads
// its rows: from the row cache, else through the Source. It walks the
// loaded index's metadata, not the database: the request path asks for a
// scope's profile on every request, and a store's listing walks the
// scope's rows to find the few of one tier.
//
// When more than most rows match, or the scope's index is not loaded, it
// reads none and returns ok false: the caller lists them from the store,
// which orders and pages them. A scope not loaded starts loading, so the
// next call (and the recall that usually follows) finds it loaded.
func (e *Engine) Tier(ctx context.Context, sc memory.Scope, tier memory.Tier, o memory.SearchOptions, most int) (ms []*memory.Memory, ok bool, err error) {
	f := NewFilter(memory.SearchOptions{Tiers: []memory.Tier{tier}, At: o.At, IncludeDead: o.IncludeDead, ExcludeConsolidated: o.ExcludeConsolidated})
	over := false
	collect := func(ix *scopeIndex) ([]string, []int64) {
		var ids []string
		var seqs []int64
		lx := ix.lex
		for i := range int32(lx.ids.slots()) {
			id := lx.ids.get(i)
			if id == "" || !f.Keep(&lx.meta[i]) {
				continue
			}
			if len(ids) == most {
				over = true
				return nil, nil
			}
			ids, seqs = append(ids, id), append(seqs, lx.seqs[i])
		}
		return ids, seqs
	}
	if !e.loadedOrStart(sc) {
		// A cold scope's load takes longer than a request waits: the
		// caller lists from the store this once, and the load goes on.
		return nil, false, nil
	}
	var ids []string
	var found map[string]*memory.Memory
	if e.feed != nil {
		ids, _, found, err = e.feedSearch(ctx, sc, func(ix *scopeIndex) ([]string, []float64) {
			over = false
			ids, _ := collect(ix)
			return ids, nil
		})
		if err != nil {
			return nil, false, fmt.Errorf("tier %s: %w", tier, err)
		}
	} else {
		ix, err := e.rlock(ctx, sc)
		if err != nil {
			return nil, false, fmt.Errorf("tier %s: load index: %w", tier, err)
		}
		var seqs []int64
		ids, seqs = collect(ix)
		ix.mu.RUnlock()
		if !over && len(ids) > 0 {
			if found, err = e.read(ctx, sc, ids, seqs); err != nil {
				return nil, false, fmt.Errorf("tier %s: %w", tier, err)
			}
		}
	}
	if over {
		return nil, false, nil
	}
	ms = make([]*memory.Memory, 0, len(ids))
	for _, id := range ids {
		// A row changed between the walk and the read is checked again.
		if m, ok := found[id]; ok && f.KeepMemory(m) {
			ms = append(ms, memory.SearchCopy(m, o))
		}
	}
	return ms, true, nil
}

// loadedOrStart reports whether sc's indexes are loaded; when they are
// not and no load is running, it starts one without waiting for it.
func (e *Engine) loadedOrStart(sc memory.Scope) bool {
	ix := e.entry(sc)
	ix.loadMu.Lock()
	loading := ix.loading != nil
	ix.loadMu.Unlock()
	if loading {
		return false
	}
	ix.mu.RLock()
	ok := ix.loaded
	ix.mu.RUnlock()
	if ok {
		return true
	}
	// ensure detaches the load from its context: a done one starts it and
	// returns at once.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	_ = e.ensure(done, sc, ix)
	return false
}
