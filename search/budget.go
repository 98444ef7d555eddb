package search

import (
	"container/list"

	"github.com/memproxy/memproxy/memory"
)

// DefaultBytes is the default bound on the memory of a store's loaded
// scope indexes.
const DefaultBytes = 512 << 20

// ScopeOverhead is what a scope's entry costs before anything is loaded,
// so the entries of scopes that never load are bounded too.
const ScopeOverhead = 512

// Budget tracks a store's loaded scopes in least recently searched order
// and picks the ones to unload when their sizes exceed the bound. It does
// not lock: the store guards it with the mutex of its scope map.
type Budget struct {
	limit     int64 // 0: no bound
	total     int64
	lru       list.List // of *scopeUse, most recent first
	use       map[memory.Scope]*list.Element
	evictions int64
}

type scopeUse struct {
	sc    memory.Scope
	bytes int64 // as last accounted
}

// NewBudget bounds the scopes' total at limit bytes: 0 means
// DefaultBytes, negative means no bound.
func NewBudget(limit int64) *Budget {
	b := &Budget{limit: limit, use: make(map[memory.Scope]*list.Element)}
	if b.limit == 0 {
		b.limit = DefaultBytes
	} else if b.limit < 0 {
		b.limit = 0
	}
	return b
}

// Touch marks sc most recently searched, adding its entry.
func (b *Budget) Touch(sc memory.Scope) {
	if e, ok := b.use[sc]; ok {
		b.lru.MoveToFront(e)
		return
	}
	b.use[sc] = b.lru.PushFront(&scopeUse{sc: sc, bytes: ScopeOverhead})
	b.total += ScopeOverhead
}

// Account notes that sc's indexes now take bytes (plus ScopeOverhead) and
// returns the least recently searched other scopes to unload while the
// total exceeds the bound, already taken out of the budget. The scope in
// use stays, even alone over the bound. A scope without an entry (unloaded
// meanwhile) is not added.
func (b *Budget) Account(sc memory.Scope, bytes int64) []Victim {
	if e, ok := b.use[sc]; ok {
		u := e.Value.(*scopeUse)
		n := ScopeOverhead + bytes
		b.total += n - u.bytes
		u.bytes = n
	}
	var out []Victim
	for b.limit > 0 && b.total > b.limit {
		e := b.lru.Back()
		if e == nil {
			break
		}
		if e.Value.(*scopeUse).sc == sc {
			if e = e.Prev(); e == nil {
				break
			}
		}
		u := e.Value.(*scopeUse)
		out = append(out, Victim{Scope: u.sc, Bytes: u.bytes, Total: b.total - u.bytes})
		b.Remove(u.sc)
		b.evictions++
	}
	return out
}

// Victim is a scope Account unloaded: its size and the total after.
type Victim struct {
	Scope        memory.Scope
	Bytes, Total int64
}

// Remove takes sc out of the budget.
func (b *Budget) Remove(sc memory.Scope) {
	if e, ok := b.use[sc]; ok {
		b.total -= e.Value.(*scopeUse).bytes
		b.lru.Remove(e)
		delete(b.use, sc)
	}
}

// Scopes lists the scopes with an entry.
func (b *Budget) Scopes() []memory.Scope {
	out := make([]memory.Scope, 0, len(b.use))
	for sc := range b.use {
		out = append(out, sc)
	}
	return out
}

// Stats describe the loaded indexes against the bound.
type Stats struct {
	// Scopes with an entry (loaded, or being loaded).
	Scopes int
	// Bytes is the estimated memory of their indexes.
	Bytes int64
	// Limit is the bound; 0 means none.
	Limit int64
	// Evictions counts scopes unloaded to stay under Limit.
	Evictions int64
}

// Stats reports the budget.
func (b *Budget) Stats() Stats {
	return Stats{Scopes: b.lru.Len(), Bytes: b.total, Limit: b.limit, Evictions: b.evictions}
}

// SetLimit changes the bound (tests); it applies at the next Account.
func (b *Budget) SetLimit(n int64) { b.limit = n }
