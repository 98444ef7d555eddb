package search

import (
	"slices"
	"sync"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Meta is what a search filters a row on. It holds no pointer (a tier
// this build does not know is kept as its number in unknownTiers), so the
// indexes' metadata slices are not traced by the garbage collector.
type Meta struct {
	expires      int64  // unix micros, 0 = never
	other        uint32 // tierBit 128: the tier's number in unknownTiers
	tierBit      uint8  // tierBits(tier): filters test a bit, not a string
	dead         bool   // superseded or archived
	consolidated bool
}

// NewMeta is a row's index metadata; expires is in unix microseconds, 0
// for never.
func NewMeta(tier memory.Tier, dead bool, expires int64, consolidated bool) Meta {
	m := Meta{tierBit: tierBits(tier), dead: dead, expires: expires, consolidated: consolidated}
	if m.tierBit == 128 {
		m.other = unknownTiers.number(tier)
	}
	return m
}

// unknownTiers numbers the tier names this build does not know (rows
// from a newer version, imports), for Meta.
var unknownTiers = tierTable{num: map[memory.Tier]uint32{}}

type tierTable struct {
	mu    sync.RWMutex
	num   map[memory.Tier]uint32
	names []memory.Tier
}

func (t *tierTable) number(tier memory.Tier) uint32 {
	t.mu.RLock()
	n, ok := t.num[tier]
	t.mu.RUnlock()
	if ok {
		return n
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, ok := t.num[tier]; ok {
		return n
	}
	n = uint32(len(t.names))
	t.num[tier] = n
	t.names = append(t.names, tier)
	return n
}

func (t *tierTable) name(n uint32) memory.Tier {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.names[n]
}

// MetaOf is the metadata of a memory.
func MetaOf(m *memory.Memory) Meta {
	var exp int64
	if m.ExpiresAt != nil {
		exp = m.ExpiresAt.UnixMicro()
	}
	return NewMeta(m.Tier, m.ValidTo != nil || m.ArchivedAt != nil, exp, m.ConsolidatedAt != nil)
}

// tierBits maps a tier to its bit in a filter's tier mask; an unknown tier
// gets the bit no known tier has, and is then compared by name.
func tierBits(t memory.Tier) uint8 {
	switch t {
	case memory.TierEvent:
		return 1
	case memory.TierEpisodic:
		return 2
	case memory.TierSemantic:
		return 4
	case memory.TierProfile:
		return 8
	}
	return 128
}

// Filter is a search's predicate over index metadata.
type Filter struct {
	tiers        []memory.Tier
	tierMask     uint8 // the known tiers' bits (tierBits)
	includeDead  bool
	at           int64
	exclConsolid bool
}

// NewFilter is the predicate of o's filters; a zero o.At means now.
func NewFilter(o memory.SearchOptions) Filter {
	at := o.At
	if at.IsZero() {
		at = time.Now()
	}
	f := Filter{tiers: o.Tiers, includeDead: o.IncludeDead, at: at.UnixMicro(), exclConsolid: o.ExcludeConsolidated}
	for _, t := range o.Tiers {
		if b := tierBits(t); b != 128 {
			f.tierMask |= b
		}
	}
	return f
}

// Keep reports whether a row with metadata m passes.
func (f *Filter) Keep(m *Meta) bool {
	if !f.includeDead && (m.dead || (m.expires != 0 && m.expires <= f.at)) {
		return false
	}
	if f.exclConsolid && m.consolidated {
		return false
	}
	if len(f.tiers) > 0 {
		if m.tierBit&f.tierMask != 0 {
			return true
		}
		if m.tierBit != 128 {
			return false
		}
		// A tier this build does not know: compare names.
		return slices.Contains(f.tiers, unknownTiers.name(m.other))
	}
	return true
}

// Flags pack what Keep reads of a row's Meta into 16 bits, so a scan that
// asks the filter of a few hundred scattered rows reads a small array
// instead of each row's Meta (a cache miss apiece once the scopes
// outgrow the caches): the tier bit, dead, consolidated, and keepSlow for
// a row whose expiry or unknown tier only Keep can judge.
const (
	keepDead         = 1 << 8
	keepConsolidated = 1 << 9
	keepSlow         = 1 << 10
)

func (m *Meta) flags() uint16 {
	fl := uint16(m.tierBit)
	if m.dead {
		fl |= keepDead
	}
	if m.consolidated {
		fl |= keepConsolidated
	}
	if m.expires != 0 || m.tierBit == 128 {
		fl |= keepSlow
	}
	return fl
}

// keepFlags is Keep for a row with flags fl and metadata m (read only for
// a slow row).
func (f *Filter) keepFlags(fl uint16, m *Meta) bool {
	switch {
	case fl&keepSlow != 0:
		return f.Keep(m)
	case !f.includeDead && fl&keepDead != 0:
		return false
	case f.exclConsolid && fl&keepConsolidated != 0:
		return false
	case len(f.tiers) > 0:
		return uint8(fl)&f.tierMask != 0
	}
	return true
}

// KeepMemory applies the same filter to a memory re-read from the
// database.
func (f *Filter) KeepMemory(m *memory.Memory) bool {
	vm := MetaOf(m)
	return f.Keep(&vm)
}
