package sqlite

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/memproxy/memproxy/memory"
)

// lexIndex is one scope's lexical index in memory: an inverted index over
// the same tokens memories_fts holds (memory.LexicalForm of text and
// context), ranked with FTS5's own BM25. Ranking in FTS5 read every
// match's size from its docsize table and walked each phrase's instances
// through the pure Go build of SQLite, which made lexical search the
// costliest half of recall; here it is a few hundred additions.
//
// memories_fts is still written and stays the reference: the ranking uses
// its table-wide row and token counts (FTS5's BM25 does), so scores are
// FTS5's, and TestLexicalIndexMatchesFTS5 compares the two. Like the vector
// index, the index is loaded on the scope's first search and kept coherent
// by re-reading the rows each write of this store touched; candidates are
// read from the row cache or the database, never from the index.
type lexIndex struct {
	mu     sync.RWMutex
	loaded bool
	slot   map[string]int32 // by memory id
	ids    []string         // "" for a free slot
	seqs   []int64
	meta   []vecMeta
	dl     []int32   // tokens in the row (FTS5's column size)
	docs   [][]lexTF // the row's distinct terms
	free   []int32
	terms  map[string]int32 // term → term id
	post   [][]lexPost      // by term id: the rows holding it
	npost  int64            // postings over all terms
	// bytes is estimate() as of the last change (see vecIndex.bytes).
	bytes atomic.Int64
}

type lexTF struct {
	term int32
	n    int32
}

type lexPost struct {
	slot int32
	n    int32 // occurrences in the row
}

// lexIndexFor returns the scope's lexical index, creating an unloaded
// one, and marks the scope recently searched.
func (s *Store) lexIndexFor(sc memory.Scope) *lexIndex {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	s.touchLocked(sc)
	lx, ok := s.lex[sc]
	if !ok {
		lx = &lexIndex{}
		s.lex[sc] = lx
	}
	return lx
}

// loadedLexIndex returns the scope's lexical index if it exists.
func (s *Store) loadedLexIndex(sc memory.Scope) *lexIndex {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	return s.lex[sc]
}

// lexCols are the columns a lexical index reads of a row.
const lexCols = `id, tier, valid_to IS NOT NULL OR archived_at IS NOT NULL, coalesce(expires_at, 0), consolidated_at IS NOT NULL, seq, text, context`

// ensureLex loads the scope's lexical index if it is not loaded.
func (s *Store) ensureLex(ctx context.Context, sc memory.Scope, lx *lexIndex) error {
	lx.mu.RLock()
	ok := lx.loaded
	lx.mu.RUnlock()
	if ok {
		return nil
	}
	lx.mu.Lock()
	defer lx.mu.Unlock()
	if lx.loaded {
		return nil
	}
	lx.reset()
	rows, err := s.db.QueryContext(ctx, `SELECT `+lexCols+` FROM memories WHERE user = ? AND namespace = ?`, sc.User, sc.Namespace)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		id, seq, m, text, err := scanLexRow(rows)
		if err != nil {
			lx.reset()
			return err
		}
		lx.upsert(id, seq, m, text)
	}
	if err := rows.Err(); err != nil {
		lx.reset()
		return err
	}
	lx.loaded = true
	lx.bytes.Store(lx.estimate())
	return nil
}

func scanLexRow(r scanner) (id string, seq int64, m vecMeta, searchText string, err error) {
	var (
		tier          string
		dead, cons    bool
		expires       int64
		text, context string
	)
	if err = r.Scan(&id, &tier, &dead, &expires, &cons, &seq, &text, &context); err != nil {
		return
	}
	mm := memory.Memory{Text: text, Context: context}
	return id, seq, newMeta(memory.Tier(tier), dead, expires, cons), mm.SearchText(), nil
}

// reset empties the index (unloaded); the caller holds the write lock.
func (lx *lexIndex) reset() {
	lx.loaded = false
	lx.slot, lx.terms = make(map[string]int32), make(map[string]int32)
	lx.ids, lx.seqs, lx.meta, lx.dl, lx.docs, lx.free, lx.post = nil, nil, nil, nil, nil, nil, nil
	lx.npost = 0
	lx.bytes.Store(0)
}

// upsert (re)indexes the row id from its search text.
func (lx *lexIndex) upsert(id string, seq int64, m vecMeta, text string) {
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
		tid, ok := lx.terms[tok]
		if !ok {
			tid = int32(len(lx.post))
			lx.terms[tok] = tid
			lx.post = append(lx.post, nil)
		}
		doc[i] = lexTF{tid, counts[tok]}
	}
	i, ok := lx.slot[id]
	if ok && slices.Equal(lx.docs[i], doc) {
		// Same tokens (a write that left the text alone).
		lx.seqs[i], lx.meta[i] = seq, m
		return
	}
	if ok {
		lx.unpost(i)
	} else if k := len(lx.free); k > 0 {
		i, lx.free = lx.free[k-1], lx.free[:k-1]
	} else {
		i = int32(len(lx.ids))
		lx.ids, lx.seqs, lx.meta = append(lx.ids, ""), append(lx.seqs, 0), append(lx.meta, vecMeta{})
		lx.dl, lx.docs = append(lx.dl, 0), append(lx.docs, nil)
	}
	lx.slot[id] = i
	lx.ids[i], lx.seqs[i], lx.meta[i], lx.dl[i], lx.docs[i] = id, seq, m, n, doc
	for _, t := range doc {
		lx.post[t.term] = append(lx.post[t.term], lexPost{i, t.n})
	}
	lx.npost += int64(len(doc))
}

// unpost takes slot i out of its terms' postings.
func (lx *lexIndex) unpost(i int32) {
	for _, t := range lx.docs[i] {
		p := lx.post[t.term]
		if k := slices.IndexFunc(p, func(x lexPost) bool { return x.slot == i }); k >= 0 {
			p[k] = p[len(p)-1]
			lx.post[t.term] = p[:len(p)-1]
			lx.npost--
		}
	}
	lx.docs[i] = nil
}

// remove drops id from the index.
func (lx *lexIndex) remove(id string) {
	i, ok := lx.slot[id]
	if !ok {
		return
	}
	lx.unpost(i)
	delete(lx.slot, id)
	lx.ids[i], lx.seqs[i], lx.meta[i], lx.dl[i] = "", 0, vecMeta{}, 0
	lx.free = append(lx.free, i)
}

// df is the number of the scope's rows holding term (FTS5's document
// count of the scope-prefixed term).
func (lx *lexIndex) df(term string) int {
	if tid, ok := lx.terms[term]; ok {
		return len(lx.post[tid])
	}
	return 0
}

// lexHit is one ranked row of a lexical search.
type lexHit struct {
	slot  int32
	seq   int64
	score float64 // -bm25: higher is better
}

// ftsTotals are FTS5's table-wide counts BM25 uses: rows, and tokens
// over all rows (for the average row length).
type ftsTotals struct {
	rows, tokens int64
}

// search ranks the scope's rows for the chosen terms (rarest first, as
// pickTerms returns them) exactly as the FTS5 query did: any term may
// match; when the terms' postings exceed the budget only the newest
// lexNewest matches are ranked, unless the filter leaves fewer than limit
// of them; the best limit that pass f, best first. The caller holds the
// read lock.
func (lx *lexIndex) search(chosen []string, postings int, f *filter, limit int, tot ftsTotals) []lexHit {
	if len(chosen) == 0 || tot.rows <= 0 {
		return nil
	}
	// The matches, each with its count of every chosen term.
	idx := make(map[int32]int32)
	var slots []int32
	var freq [][lexMaxTerms]int32
	for ti, t := range chosen {
		for _, p := range lx.post[lx.terms[t]] {
			k, ok := idx[p.slot]
			if !ok {
				k = int32(len(slots))
				idx[p.slot] = k
				slots = append(slots, p.slot)
				freq = append(freq, [lexMaxTerms]int32{})
			}
			freq[k][ti] = p.n
		}
	}
	var lo int64
	if postings > lexNewest && len(slots) >= lexNewest {
		lo = lx.newestBound(slots)
	}
	// BM25 as FTS5's fts5Bm25Function computes it, term by term in the
	// query's order, so the sums round the same way.
	const k1, b = 1.2, 0.75
	avgdl := float64(tot.tokens) / float64(tot.rows)
	idf := make([]float64, len(chosen))
	for i, t := range chosen {
		nHit := int64(lx.df(t))
		v := math.Log((float64(tot.rows-nHit) + 0.5) / (float64(nHit) + 0.5))
		if v <= 0 {
			v = 1e-6
		}
		idf[i] = v
	}
	rank := func(lo int64) []lexHit {
		h := make(lexHeap, 0, limit+1)
		for k, sl := range slots {
			if lx.seqs[sl] < lo || !f.keep(&lx.meta[sl]) {
				continue
			}
			d := float64(lx.dl[sl])
			var score float64
			for i := range chosen {
				fr := float64(freq[k][i])
				score += idf[i] * ((fr * (k1 + 1.0)) / (fr + k1*(1-b+b*d/avgdl)))
			}
			x := lexHit{sl, lx.seqs[sl], score}
			if len(h) < limit {
				heap.Push(&h, x)
			} else if worse(h[0], x) {
				h[0] = x
				heap.Fix(&h, 0)
			}
		}
		out := make([]lexHit, len(h))
		for i := len(h) - 1; i >= 0; i-- {
			out[i] = heap.Pop(&h).(lexHit)
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

// worse orders hits by score, then the older row (lower seq) first.
func worse(a, b lexHit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.seq > b.seq
}

// newestBound is the lowest seq among the newest lexNewest of slots.
func (lx *lexIndex) newestBound(slots []int32) int64 {
	h := make(seqHeap, 0, lexNewest+1)
	for _, sl := range slots {
		q := lx.seqs[sl]
		if len(h) < lexNewest {
			heap.Push(&h, q)
		} else if q > h[0] {
			h[0] = q
			heap.Fix(&h, 0)
		}
	}
	return h[0]
}

// lexHeap keeps the best hits with the worst on top.
type lexHeap []lexHit

func (h lexHeap) Len() int           { return len(h) }
func (h lexHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h lexHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lexHeap) Push(x any)        { *h = append(*h, x.(lexHit)) }
func (h *lexHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type seqHeap []int64

func (h seqHeap) Len() int           { return len(h) }
func (h seqHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h seqHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *seqHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *seqHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// pickTerms returns the terms to match, rarest first, and the sum of their
// document frequencies (df), under the postings budget; terms no row
// holds are dropped: they cannot match.
func pickTerms(terms []string, df func(string) int) ([]string, int) {
	if len(terms) > lexMaxQueryTerms {
		terms = terms[:lexMaxQueryTerms]
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

// ftsAveragesRowid is the memories_fts_data record holding FTS5's row
// count and per-column token totals (FTS5_AVERAGES_ROWID).
const ftsAveragesRowid = 1

// lexTotalsCache keeps FTS5's counts between the writes that change them,
// so a search reads nothing from the database: after another connection's
// write, SQLite empties a connection's page cache at its next read, which
// in the pure Go build costs more than the read itself.
type lexTotalsCache struct {
	gen atomic.Uint64 // bumped after every write to memories (refresh)
	mu  sync.Mutex
	at  uint64 // gen the counts were read at
	ok  bool
	t   ftsTotals
}

// totals returns FTS5's table-wide row and token counts.
func (s *Store) totals(ctx context.Context) (ftsTotals, error) {
	c := &s.lexTotals
	g := c.gen.Load()
	c.mu.Lock()
	if c.ok && c.at == g {
		t := c.t
		c.mu.Unlock()
		return t, nil
	}
	c.mu.Unlock()
	// Read after noting g: a write committing meanwhile bumps gen after,
	// and the next search reads again.
	t, err := s.readTotals(ctx)
	if err != nil {
		return t, err
	}
	c.mu.Lock()
	c.at, c.ok, c.t = g, true, t
	c.mu.Unlock()
	return t, nil
}

// readTotals reads FTS5's averages record.
func (s *Store) readTotals(ctx context.Context) (ftsTotals, error) {
	var blob []byte
	err := s.queryRow(ctx, `SELECT block FROM memories_fts_data WHERE id = ?`, ftsAveragesRowid).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return ftsTotals{}, nil
	}
	if err != nil {
		return ftsTotals{}, err
	}
	// One column (lex): the row count, then its token total. A short
	// record (no rows) reads as zeros, as in FTS5.
	var t ftsTotals
	var n int
	t.rows, n = ftsVarint(blob)
	t.tokens, _ = ftsVarint(blob[n:])
	return t, nil
}

// ftsVarint decodes SQLite's variable-length integer (big-endian groups of
// 7 bits, the ninth byte whole); n is 0 when b is too short.
func ftsVarint(b []byte) (v int64, n int) {
	var u uint64
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0 // too short
		}
		if i == 8 {
			return int64(u<<8 | uint64(b[i])), 9
		}
		u = u<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return int64(u), i + 1
		}
	}
	return 0, 0
}
