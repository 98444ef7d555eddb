package search

import (
	"hash/maphash"
	"unsafe"
)

// idTable is an index's memory ids by slot and the slot of each id, kept
// without a pointer per row: the ids' bytes in one append-only slice, each
// slot's span of it, and an open-addressing table of slots. A
// map[string]int32 and a []string hold two pointers a row, which the
// garbage collector traces on every cycle, for every loaded scope (the
// request path's allocations pay for those cycles); these slices hold
// none.
//
// The strings get returns alias the bytes, which are never written in
// place: a slot given a new id appends it, and compaction copies the live
// ids into a new slice, leaving the old one to the strings that still
// alias it.
type idTable struct {
	bytes   []byte
	spans   []idSpan // by slot; n 0 for a free slot
	tab     []int32  // slot+1 by hash; 0 empty, tombstone for a deleted id
	used    int      // entries of tab holding a slot
	tombs   int      // tombstones in tab
	garbage int      // bytes no slot's span covers
	seed    maphash.Seed
}

type idSpan struct{ off, n uint32 }

const tombstone = -1

func newIDTable() idTable { return idTable{seed: maphash.MakeSeed()} }

// reset empties the table.
func (t *idTable) reset() {
	*t = idTable{seed: t.seed}
}

// slots is the number of slots, free ones included.
func (t *idTable) slots() int { return len(t.spans) }

// count is the number of ids held.
func (t *idTable) count() int { return t.used }

// get is the id at slot, "" for a free slot.
func (t *idTable) get(slot int32) string {
	s := t.spans[slot]
	if s.n == 0 {
		return ""
	}
	return unsafe.String(&t.bytes[s.off], int(s.n))
}

// find returns the slot holding id.
func (t *idTable) find(id string) (int32, bool) {
	if t.used == 0 {
		return 0, false
	}
	mask := uint64(len(t.tab) - 1)
	for i := maphash.String(t.seed, id) & mask; ; i = (i + 1) & mask {
		v := t.tab[i]
		if v == 0 {
			return 0, false
		}
		if v > 0 && t.get(v-1) == id {
			return v - 1, true
		}
	}
}

// addSlot appends a free slot and returns it.
func (t *idTable) addSlot() int32 {
	t.spans = append(t.spans, idSpan{})
	return int32(len(t.spans) - 1)
}

// put gives the free slot the id, which no slot holds and which is not
// empty ("" is a free slot's).
func (t *idTable) put(slot int32, id string) {
	if (t.used+t.tombs+1)*2 > len(t.tab) {
		t.rehash() // before the span is set: rehash inserts every held slot
	}
	t.spans[slot] = idSpan{off: uint32(len(t.bytes)), n: uint32(len(id))}
	t.bytes = append(t.bytes, id...)
	t.insert(slot)
	t.used++
}

// insert places slot (whose span is set) in tab, which has room.
func (t *idTable) insert(slot int32) {
	mask := uint64(len(t.tab) - 1)
	for i := maphash.String(t.seed, t.get(slot)) & mask; ; i = (i + 1) & mask {
		if t.tab[i] == 0 {
			t.tab[i] = slot + 1
			return
		}
	}
}

// rehash rebuilds tab for the ids held plus room to grow, dropping its
// tombstones, and compacts the bytes when most are garbage.
func (t *idTable) rehash() {
	if t.garbage > 4096 && t.garbage*2 > len(t.bytes) {
		b := make([]byte, 0, len(t.bytes)-t.garbage+len(t.bytes)/4)
		for i, s := range t.spans {
			if s.n > 0 {
				t.spans[i].off = uint32(len(b))
				b = append(b, t.bytes[s.off:s.off+s.n]...)
			}
		}
		t.bytes, t.garbage = b, 0
	}
	n := 16
	for n < (t.used+1)*4 {
		n *= 2
	}
	t.tab = make([]int32, n)
	t.tombs = 0
	for i, s := range t.spans {
		if s.n > 0 {
			t.insert(int32(i))
		}
	}
}

// entry is the position in tab of the entry for slot.
func (t *idTable) entry(slot int32) uint64 {
	mask := uint64(len(t.tab) - 1)
	for i := maphash.String(t.seed, t.get(slot)) & mask; ; i = (i + 1) & mask {
		if t.tab[i] == slot+1 {
			return i
		}
	}
}

// clear frees the slot, dropping its id.
func (t *idTable) clear(slot int32) {
	s := t.spans[slot]
	if s.n == 0 {
		return
	}
	t.tab[t.entry(slot)] = tombstone
	t.tombs++
	t.used--
	t.garbage += int(s.n)
	t.spans[slot] = idSpan{}
}

// moveLast moves the last slot's id into the free slot i and drops the
// last slot (i may be the last slot itself, which is then dropped).
func (t *idTable) moveLast(i int32) {
	last := int32(len(t.spans) - 1)
	if i != last {
		if t.spans[last].n > 0 {
			t.tab[t.entry(last)] = i + 1
		}
		t.spans[i] = t.spans[last]
	}
	t.spans = t.spans[:last]
}

// estimate is the table's memory in bytes.
func (t *idTable) estimate() int64 {
	return int64(cap(t.bytes)) + int64(cap(t.spans))*8 + int64(cap(t.tab))*4
}
