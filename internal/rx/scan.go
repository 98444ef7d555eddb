package rx

import (
	"sync"
	"sync/atomic"
)

// One scan a text. Fact extraction asks some 170 patterns of each
// sentence whether it may match; each asking looked for each of its
// literals in the whole sentence, a pass per literal and per case of its
// first letter (a quarter of extraction's CPU on LoCoMo's messages). A
// text is now read once for the literals of every pattern: an index from
// the two first bytes of every literal (ASCII letters folded) to the
// literals beginning so, and at each position of the text the few
// literals its two bytes begin are compared. The literals found are a
// bit set; a pattern may match when one of its literals' bits is set.
// The last few texts' sets are kept (by content: a text is compared with
// a copy of itself, never by address), so the patterns asking about one
// sentence share one scan.

// litIndex is the literals of the patterns compiled so far (a snapshot:
// patterns compiled later rebuild it).
type litIndex struct {
	n    int             // patterns indexed (all[:n])
	pats [][]int32       // each pattern's literal ids, by Regexp.n
	lits []string        // literal by id
	head [1 << 10]uint64 // bit per folded first two bytes some literal begins with
	by   map[uint16][]int32
}

var (
	index   atomic.Pointer[litIndex]
	indexMu sync.Mutex // serialises rebuilds
)

// currentIndex is the index of every pattern compiled so far.
func currentIndex() *litIndex {
	mu.Lock()
	n := len(all)
	mu.Unlock()
	if ix := index.Load(); ix != nil && ix.n == n {
		return ix
	}
	indexMu.Lock()
	defer indexMu.Unlock()
	if ix := index.Load(); ix != nil && ix.n == n {
		return ix
	}
	mu.Lock()
	pats := append([]*Regexp(nil), all...)
	mu.Unlock()
	ix := &litIndex{n: len(pats), pats: make([][]int32, len(pats)), by: map[uint16][]int32{}}
	ids := map[string]int32{}
	for i, re := range pats {
		for _, l := range re.need {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ix.lits))
				ids[l] = id
				ix.lits = append(ix.lits, l)
				k := bigram(l[0], l[1])
				ix.head[k/64] |= 1 << (k % 64)
				ix.by[k] = append(ix.by[k], id)
			}
			ix.pats[i] = append(ix.pats[i], id)
		}
	}
	index.Store(ix)
	return ix
}

// bigram is the index key of two bytes, ASCII letters folded to lower case.
func bigram(a, b byte) uint16 { return uint16(foldByte(a))<<8 | uint16(foldByte(b)) }

func foldByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// scanned is a text's literals found, for one index.
type scanned struct {
	text string // a copy
	ix   *litIndex
	hits []uint64 // bit per literal id
}

// scan finds the index's literals in s.
func (ix *litIndex) scan(s string) []uint64 {
	hits := make([]uint64, (len(ix.lits)+63)/64)
	for i := 0; i+1 < len(s); i++ {
		k := bigram(s[i], s[i+1])
		if ix.head[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, id := range ix.by[k] {
			l := ix.lits[id]
			if i+len(l) <= len(s) && restFold(s[i+2:i+len(l)], l[2:]) {
				hits[id/64] |= 1 << (id % 64)
			}
		}
	}
	return hits
}

// recent is the last scans, newest first.
var recent struct {
	sync.Mutex
	ring [recentScans]*scanned
	next int
}

// recentScans is how many texts' scans are kept: a sentence, its
// message, and what the patterns asking about them cut from them.
const recentScans = 16

// scanOf returns s's scan with the current index.
func scanOf(s string) *scanned {
	ix := currentIndex()
	recent.Lock()
	for _, e := range recent.ring {
		if e != nil && e.ix == ix && len(e.text) == len(s) && e.text == s {
			recent.Unlock()
			return e
		}
	}
	recent.Unlock()
	e := &scanned{text: string([]byte(s)), ix: ix, hits: ix.scan(s)}
	recent.Lock()
	recent.ring[recent.next] = e
	recent.next = (recent.next + 1) % recentScans
	recent.Unlock()
	return e
}

// mayScanned reports whether s holds one of re's literals, by s's scan.
func (re *Regexp) mayScanned(s string) bool {
	e := scanOf(s)
	if re.n >= len(e.ix.pats) {
		return re.mayDirect(s) // compiled after the index was read
	}
	for _, id := range e.ix.pats[re.n] {
		if e.hits[id/64]&(1<<(id%64)) != 0 {
			return true
		}
	}
	return false
}

// mayDirect reports whether s holds one of re's literals, looking for each.
func (re *Regexp) mayDirect(s string) bool {
	for _, l := range re.need {
		if containsFold(s, l) {
			return true
		}
	}
	return false
}
