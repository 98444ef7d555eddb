package search

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/memproxy/memproxy/memory"
)

// Lex is one scope's lexical index: an inverted index over the tokens of
// memory.LexicalForm of each row's search text, ranked with BM25 as
// SQLite's FTS5 computes it (fts5Bm25Function), over the scope's own row
// and token counts (Totals; FTS5 counts the whole table's): one scope's
// memories never move another's scores.
type Lex struct {
	ids  idTable // by slot, "" for a free slot
	seqs []int64
	meta []Meta
	dl   []int32 // tokens in the row (FTS5's column size)
	// The rows' distinct terms, each row's a span of one slice (no
	// pointer a row for the collector to trace); a row reindexed appends
	// its terms anew, and the slice is compacted when most of it is no
	// row's.
	docs    []idSpan
	terms   []lexTF
	garbage int // entries of terms no row's span covers
	free    []int32
	termID  idTable     // term ids (their slots) by term, without a pointer a term
	post    [][]lexPost // by term id: the rows holding it
	npost   int64       // postings over all terms
	ntok    int64       // tokens over all rows
}

type lexTF struct {
	term int32
	n    int32
}

type lexPost struct {
	slot int32
	n    int32 // occurrences in the row
}

// NewLex returns an empty lexical index.
func NewLex() *Lex {
	lx := &Lex{ids: newIDTable(), termID: newIDTable()}
	lx.Reset()
	return lx
}

// Totals are the row and token counts BM25 uses (the average row length
// and the rarity of a term).
type Totals struct {
	Rows, Tokens int64
}

// Totals are the index's own counts.
func (lx *Lex) Totals() Totals { return Totals{Rows: int64(lx.ids.count()), Tokens: lx.ntok} }

// ID is the memory id at slot.
func (lx *Lex) ID(slot int32) string { return lx.ids.get(slot) }

// Has reports whether id is indexed.
func (lx *Lex) Has(id string) bool { _, ok := lx.ids.find(id); return ok }

// SetMeta gives an indexed row new metadata and row order, its terms
// unchanged; false when id is not indexed.
func (lx *Lex) SetMeta(id string, seq int64, m Meta) bool {
	i, ok := lx.ids.find(id)
	if ok {
		lx.seqs[i], lx.meta[i] = seq, m
	}
	return ok
}

// Estimate is the index's memory in bytes.
func (lx *Lex) Estimate() int64 {
	return int64(lx.ids.slots())*lexSlotBytes + lx.npost*lexPostBytes + int64(len(lx.post))*lexTermBytes
}

// Reset empties the index.
func (lx *Lex) Reset() {
	lx.ids.reset()
	lx.termID.reset()
	lx.seqs, lx.meta, lx.dl, lx.docs, lx.terms, lx.free, lx.post = nil, nil, nil, nil, nil, nil, nil
	lx.garbage, lx.npost, lx.ntok = 0, 0, 0
}

// doc is the distinct terms of the row at slot i.
func (lx *Lex) doc(i int32) []lexTF {
	s := lx.docs[i]
	return lx.terms[s.off : s.off+s.n : s.off+s.n]
}

// setDoc makes doc the terms of the row at slot i (nil: none).
func (lx *Lex) setDoc(i int32, doc []lexTF) {
	lx.garbage += int(lx.docs[i].n)
	lx.docs[i] = idSpan{}
	if len(doc) == 0 {
		return
	}
	if lx.garbage > 1024 && lx.garbage*2 > len(lx.terms) {
		t := make([]lexTF, 0, len(lx.terms)-lx.garbage+len(doc)+len(lx.terms)/4)
		for k, s := range lx.docs {
			if s.n > 0 {
				lx.docs[k].off = uint32(len(t))
				t = append(t, lx.terms[s.off:s.off+s.n]...)
			}
		}
		lx.terms, lx.garbage = t, 0
	}
	lx.docs[i] = idSpan{off: uint32(len(lx.terms)), n: uint32(len(doc))}
	lx.terms = append(lx.terms, doc...)
}

// Upsert (re)indexes the row id from its search text; a row without an
// id is not indexed.
func (lx *Lex) Upsert(id string, seq int64, m Meta, text string) {
	if id == "" {
		return
	}
	counts := make(map[string]int32)
	var order []string
	n := int32(0)
	for tok := range strings.FieldsSeq(memory.LexicalForm(text)) {
		if counts[tok] == 0 {
			order = append(order, tok)
		}
		counts[tok]++
		n++
	}
	doc := make([]lexTF, len(order))
	for i, tok := range order {
		tid, ok := lx.termID.find(tok)
		if !ok {
			tid = lx.termID.addSlot()
			lx.termID.put(tid, tok)
			lx.post = append(lx.post, nil)
		}
		doc[i] = lexTF{tid, counts[tok]}
	}
	i, ok := lx.ids.find(id)
	if ok && slices.Equal(lx.doc(i), doc) {
		// Same tokens (a write that left the text alone).
		lx.seqs[i], lx.meta[i] = seq, m
		return
	}
	if ok {
		lx.unpost(i)
		lx.ntok -= int64(lx.dl[i])
	} else {
		if k := len(lx.free); k > 0 {
			i, lx.free = lx.free[k-1], lx.free[:k-1]
		} else {
			i = lx.ids.addSlot()
			lx.seqs, lx.meta = append(lx.seqs, 0), append(lx.meta, Meta{})
			lx.dl, lx.docs = append(lx.dl, 0), append(lx.docs, idSpan{})
		}
		lx.ids.put(i, id)
	}
	lx.seqs[i], lx.meta[i], lx.dl[i] = seq, m, n
	lx.setDoc(i, doc)
	for _, t := range doc {
		lx.post[t.term] = append(lx.post[t.term], lexPost{i, t.n})
	}
	lx.npost += int64(len(doc))
	lx.ntok += int64(n)
}

// unpost takes slot i out of its terms' postings.
func (lx *Lex) unpost(i int32) {
	for _, t := range lx.doc(i) {
		p := lx.post[t.term]
		if k := slices.IndexFunc(p, func(x lexPost) bool { return x.slot == i }); k >= 0 {
			p[k] = p[len(p)-1]
			lx.post[t.term] = p[:len(p)-1]
			lx.npost--
		}
	}
	lx.setDoc(i, nil)
}

// Remove drops id from the index.
func (lx *Lex) Remove(id string) {
	i, ok := lx.ids.find(id)
	if !ok {
		return
	}
	lx.unpost(i)
	lx.ntok -= int64(lx.dl[i])
	lx.ids.clear(i)
	lx.seqs[i], lx.meta[i], lx.dl[i] = 0, Meta{}, 0
	lx.free = append(lx.free, i)
}

// DF is the number of the scope's rows holding term (FTS5's document
// count of the scope-prefixed term).
func (lx *Lex) DF(term string) int {
	if tid, ok := lx.termID.find(term); ok {
		return len(lx.post[tid])
	}
	return 0
}

// LexHit is one ranked row of a lexical search.
type LexHit struct {
	Slot  int32
	Seq   int64
	Score float64 // -bm25: higher is better
}

// Search ranks the scope's rows for the chosen terms (rarest first, as
// PickTerms returns them) exactly as the FTS5 query did: any term may
// match; when the terms' postings exceed the budget only the newest
// LexNewest matches are ranked, unless the filter leaves fewer than limit
// of them; the best limit that pass f, best first. The caller holds the
// read lock.
func (lx *Lex) Search(chosen []string, postings int, f *Filter, limit int) []LexHit {
	tot := lx.Totals()
	if len(chosen) == 0 || tot.Rows <= 0 {
		return nil
	}
	// The matches, each with its count of every chosen term.
	// Sized for every posting up front (the most distinct matches there
	// can be), so neither the map nor the slices grow while they fill.
	n := min(postings, lx.ids.slots())
	sc := lexScratchPool.Get().(*lexScratch)
	defer lexScratchPool.Put(sc)
	// pos[slot] is 1 + the match's index in slots (0: not matched yet),
	// cleared again for the matched slots when the search ends.
	if len(sc.pos) < lx.ids.slots() {
		sc.pos = make([]int32, lx.ids.slots())
	}
	pos := sc.pos
	slots := slices.Grow(sc.slots[:0], n)
	freq := slices.Grow(sc.freq[:0], n)
	defer func() {
		for _, sl := range slots {
			pos[sl] = 0
		}
		sc.slots, sc.freq = slots[:0], freq[:0]
	}()
	for ti, t := range chosen {
		tid, _ := lx.termID.find(t) // PickTerms chose terms some row holds
		for _, p := range lx.post[tid] {
			k := pos[p.slot] - 1
			if k < 0 {
				k = int32(len(slots))
				pos[p.slot] = k + 1
				slots = append(slots, p.slot)
				freq = append(freq, [lexMaxTerms]int32{})
			}
			freq[k][ti] = p.n
		}
	}
	var lo int64
	if postings > LexNewest && len(slots) >= LexNewest {
		lo = lx.newestBound(slots)
	}
	// BM25 as FTS5's fts5Bm25Function computes it, term by term in the
	// query's order, so the sums round the same way.
	const k1, b = 1.2, 0.75
	avgdl := float64(tot.Tokens) / float64(tot.Rows)
	idf := make([]float64, len(chosen))
	for i, t := range chosen {
		nHit := int64(lx.DF(t))
		v := math.Log((float64(tot.Rows-nHit) + 0.5) / (float64(nHit) + 0.5))
		if v <= 0 {
			v = 1e-6
		}
		idf[i] = v
	}
	rank := func(lo int64) []LexHit {
		h := make(lexHeap, 0, limit+1)
		for k, sl := range slots {
			d := float64(lx.dl[sl])
			var score float64
			for i := range chosen {
				if freq[k][i] == 0 {
					continue // adds 0: the sum is the same to the bit
				}
				fr := float64(freq[k][i])
				score += idf[i] * ((fr * (k1 + 1.0)) / (fr + k1*(1-b+b*d/avgdl)))
			}
			// Once the heap is full most matches score under its worst:
			// the row's seq and filter (scattered reads, a cache miss
			// apiece in a large scope) are read only for one that may
			// enter.
			if len(h) == limit && score < h[0].Score {
				continue
			}
			if lx.seqs[sl] < lo || !f.Keep(&lx.meta[sl]) {
				continue
			}
			x := LexHit{sl, lx.seqs[sl], score}
			if len(h) < limit {
				hPush(&h, x)
			} else if worse(h[0], x) {
				h[0] = x
				hFix(h, 0)
			}
		}
		out := make([]LexHit, len(h))
		for i := len(h) - 1; i >= 0; i-- {
			out[i] = hPop(&h)
		}
		return out
	}
	out := rank(lo)
	if len(out) < limit && lo > 0 {
		// The newest matches ran out under the filter: rank them all.
		out = rank(0)
	}
	return out
}

// lexScratch is a search's table of matches, kept between searches: at
// 10k rows it is some 20 KB a search, most of what recall allocates.
type lexScratch struct {
	pos   []int32 // by slot: 1 + the match's index (a map here was half a search's time)
	slots []int32
	freq  [][lexMaxTerms]int32
}

var lexScratchPool = sync.Pool{New: func() any { return new(lexScratch) }}

// worse orders hits by score, then the older row (lower seq) first.
func worse(a, b LexHit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Seq > b.Seq
}

// newestBound is the lowest seq among the newest LexNewest of slots.
func (lx *Lex) newestBound(slots []int32) int64 {
	h := make(seqHeap, 0, LexNewest+1)
	for _, sl := range slots {
		q := lx.seqs[sl]
		if len(h) < LexNewest {
			hPush(&h, q)
		} else if q > h[0] {
			h[0] = q
			hFix(h, 0)
		}
	}
	return h[0]
}

// lexHeap keeps the best hits with the worst on top.
type lexHeap []LexHit

func (h lexHeap) Less(i, j int) bool { return worse(h[i], h[j]) }

type seqHeap []int64

func (h seqHeap) Less(i, j int) bool { return h[i] < h[j] }

// PickTerms returns the terms to match, rarest first, and the sum of their
// document frequencies (df), under the postings budget; terms no row
// holds are dropped: they cannot match.
func PickTerms(terms []string, df func(string) int) ([]string, int) {
	if len(terms) > LexMaxQueryTerms {
		terms = terms[:LexMaxQueryTerms]
	}
	cand := make([]lexTerm, 0, len(terms))
	for i, t := range terms {
		if d := df(t); d > 0 {
			cand = append(cand, lexTerm{term: t, df: d, pos: i})
		}
	}
	slices.SortFunc(cand, func(a, b lexTerm) int { return cmp.Or(cmp.Compare(a.df, b.df), cmp.Compare(a.pos, b.pos)) })
	var out []string
	sum := 0
	for _, c := range cand {
		if len(out) >= lexMaxTerms || (len(out) >= lexMinTerms && sum+c.df > lexPostings) {
			break
		}
		out = append(out, c.term)
		sum += c.df
	}
	return out, sum
}

// A long chat message has dozens of content terms, most of them common in
// a large scope; matching all of them ranks nearly every row. Lexical
// search therefore matches the rarest terms within a postings budget.
// BM25 gives a term an IDF that falls to nothing as it approaches half the
// scope, so the terms left out are the ones that move the ranking least,
// and a query whose terms all fit the budget (every query on a small
// scope) is matched whole.
const (
	// lexPostings is the budget: the sum of the chosen terms' document
	// frequencies.
	lexPostings = 600
	// lexMaxTerms is the most terms a query is matched with.
	lexMaxTerms = 10
	// lexMinTerms are always matched (the rarest that match at all), over
	// the budget if need be.
	lexMinTerms = 2
	// LexMaxQueryTerms bounds the frequency lookup of a pasted document:
	// its first distinct content terms.
	LexMaxQueryTerms = 64
	// LexNewest bounds how many of the chosen terms' matches are ranked
	// when even they exceed the budget: the newest ones.
	LexNewest = lexPostings
)

// lexTerm is one query term with its document frequency in the scope.
type lexTerm struct {
	term string
	df   int
	pos  int // order in the query
}
