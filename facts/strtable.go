package facts

import (
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// strTable maps strings to pairs of uint32 with no pointer the garbage
// collector has to follow: the keys are one byte slice, the slots one
// slice of integers. The tagger's model (75k features, 2.5k words) held
// as Go maps of strings is some 150k objects the collector marks on
// every cycle, in a process whose cycles come every second or so under
// load; held here, it is three.
type strTable struct {
	keys  []byte
	slots []strSlot // open addressing, a power of two long, at most half full
	count int
	seed  maphash.Seed
}

type strSlot struct {
	off, n uint32 // the key: keys[off:off+n-1]; n == 0: empty
	a, b   uint32 // the value
}

// newStrTable returns a table sized for n keys of size bytes in all.
func newStrTable(n, size int) *strTable {
	return &strTable{
		keys:  make([]byte, 0, size),
		slots: make([]strSlot, 1<<bits.Len(uint(2*n))),
		seed:  maphash.MakeSeed(),
	}
}

// put adds k with the value (a, b); k must not be in the table yet.
func (t *strTable) put(k string, a, b uint32) {
	if 2*(t.count+1) > len(t.slots) {
		t.grow()
	}
	i := t.find(k)
	t.slots[i] = strSlot{off: uint32(len(t.keys)), n: uint32(len(k)) + 1, a: a, b: b}
	t.keys = append(t.keys, k...)
	t.count++
}

// get returns the value of k.
func (t *strTable) get(k string) (a, b uint32, ok bool) {
	s := &t.slots[t.find(k)]
	return s.a, s.b, s.n != 0
}

// getBytes is get for a key held in a byte slice (not kept).
func (t *strTable) getBytes(k []byte) (a, b uint32, ok bool) {
	return t.get(unsafe.String(unsafe.SliceData(k), len(k)))
}

// find returns the slot holding k, or the empty slot where it would go.
func (t *strTable) find(k string) int {
	mask := len(t.slots) - 1
	for i := int(maphash.String(t.seed, k)) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.n == 0 || int(s.n-1) == len(k) && string(t.keys[s.off:s.off+s.n-1]) == k {
			return i
		}
	}
}

func (t *strTable) grow() {
	old := t.slots
	t.slots = make([]strSlot, 2*len(old))
	for _, s := range old {
		if s.n != 0 {
			t.slots[t.find(string(t.keys[s.off:s.off+s.n-1]))] = s
		}
	}
}
