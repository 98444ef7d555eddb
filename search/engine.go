package search

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Row is what the indexes keep of a memory: no text beyond the tokens, no
// vector beyond the quantised copy. Seq is the store's row order (newer
// rows higher), which breaks ties and bounds lexical matches to the
// newest; Vec is nil for a memory without an embedding.
type Row struct {
	ID   string
	Seq  int64
	Meta Meta
	Vec  []float32
	Text string // memory.Memory.SearchText
}

// RowOf is the index row of a memory at seq.
func RowOf(m *memory.Memory, seq int64) Row {
	return Row{ID: m.ID, Seq: seq, Meta: MetaOf(m), Vec: m.Embedding, Text: m.SearchText()}
}

// Source is the persistence an Engine reads: a store's rows by scope and
// by id. The engine holds no database handle and no SQL; the store tells
// it what its writes changed (Written, Changed, ForgetUser, the touch
// calls), which is the engine's change feed.
type Source interface {
	// Load calls add for every row of the scope (its first search).
	Load(ctx context.Context, sc memory.Scope, add func(Row)) error
	// IndexRows calls add for each of ids still in the scope, read
	// afresh; an id it does not report was deleted.
	IndexRows(ctx context.Context, sc memory.Scope, ids []string, add func(Row)) error
	// Memories reads the scope's memories ids, whose rows were indexed at
	// seqs (a store may look them up by seq; a seq reused by another row
	// is matched by id), keyed by id; an id missing was not found. The
	// memories become the engine's (the row cache keeps them).
	Memories(ctx context.Context, sc memory.Scope, ids []string, seqs []int64) (map[string]*memory.Memory, error)
}

// DefaultLimit is the candidate count when SearchOptions.Limit is 0.
const DefaultLimit = 50

// Options tune an Engine; the zero value is the default.
type Options struct {
	// IndexBytes bounds the estimated memory of the loaded scopes'
	// indexes (vector and lexical). Past it, the least recently searched
	// scopes are unloaded; such a scope reloads on its next search. The
	// scope being searched is never unloaded, so one scope larger than
	// the bound still works. 0 means DefaultBytes; negative means none.
	IndexBytes int64
	// RowCacheBytes bounds the row cache; 0 means RowCacheBytes.
	RowCacheBytes int
	// Logger receives a debug line per unloaded scope; nil discards.
	Logger *slog.Logger
}

// Engine is the in-process search of one store: per scope, a quantised
// vector matrix and a BM25 inverted index under one lock, loaded on the
// scope's first search; a bounded cache of the rows searches return; and
// the budget that unloads the least recently searched scopes. The
// database stays the source of truth: every row a search returns comes
// from the row cache or is read back through the Source.
//
// Coherence. A write reports what it changed once it committed, and the
// scope's loaded indexes follow: Written applies rows as the transaction
// wrote them (the caller still holds its write lock, so no later write of
// the same rows can have been applied), Changed re-reads the ids from the
// database under the index lock (order-independent: whichever runs last
// saw the latest state). Both drop the ids from the row cache, whose
// generations keep a search that read a row before the write from
// caching it after (see rowCache). Unloading a scope removes it from the
// map and then resets it under its write lock: a search already holding
// it finishes first, and one that took it just before finds it unloaded
// and starts over; a write's report reaches only the scopes in the map,
// and a scope loaded again reads the committed rows.
type Engine struct {
	src  Source // nil on a feed
	feed Feed   // nil on a Source (NewFeedEngine)
	dim  int
	log  *slog.Logger
	rows *rowCache

	// On a feed: the clock of RowTTL (tests move it), the bound on the
	// rows a load keeps whole, and what searches read (tests).
	now            func() time.Time
	LoadCacheBytes int64
	Counters       FeedCounters

	mu     sync.Mutex // guards scopes and budget; never held while taking a scope's lock
	scopes map[memory.Scope]*scopeIndex
	budget *Budget
}

// scopeIndex is one scope's indexes under its lock.
type scopeIndex struct {
	mu     sync.RWMutex
	loaded bool
	// loading is the load in progress, shared by every search that needs
	// it (guarded by loadMu, not mu: the load holds mu).
	loadMu  sync.Mutex
	loading *loadCall
	feed    bool // fs is in use
	vec     *Vec
	lex     *Lex
	// bytes is the indexes' estimate as of the last change, for the
	// budget (read without the lock).
	bytes atomic.Int64
	fs    feedState // on a feed
}

// NewEngine returns an engine over src for vectors of dim dimensions.
func NewEngine(src Source, dim int, o Options) *Engine {
	if o.RowCacheBytes == 0 {
		o.RowCacheBytes = RowCacheBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Engine{src: src, dim: dim, log: o.Logger, rows: newRowCache(o.RowCacheBytes),
		scopes: make(map[memory.Scope]*scopeIndex), budget: NewBudget(o.IndexBytes)}
}

// vectorLimitOf is the vector list's length: o.VectorLimit when set.
func vectorLimitOf(o memory.SearchOptions) int {
	if o.VectorLimit > 0 {
		return o.VectorLimit
	}
	return limitOf(o)
}

func limitOf(o memory.SearchOptions) int {
	if o.Limit <= 0 {
		return DefaultLimit
	}
	return o.Limit
}

// Vector returns the scope's memories most similar (cosine) to vec, best
// first; a vector without direction finds nothing. The caller checks the
// vector's size.
func (e *Engine) Vector(ctx context.Context, sc memory.Scope, vec []float32, o memory.SearchOptions) ([]memory.Candidate, error) {
	q, ok := Normalise(vec)
	if !ok {
		return nil, nil
	}
	limit := vectorLimitOf(o)
	f := NewFilter(o)
	if e.feed != nil {
		ids, _, found, err := e.feedSearch(ctx, sc, func(ix *scopeIndex) ([]string, []float64) {
			return vectorRank(ix, q, &f, limit), nil
		})
		if err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		return Rescore(q, ids, found, &f, limit, o), nil
	}
	ix, err := e.rlock(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("vector search: load index: %w", err)
	}
	// The quantised scan ranks approximately: take a margin of extra
	// candidates and re-score them exactly.
	hits := ix.vec.Search(q, &f, limit+RerankMargin(limit), min(2, runtime.GOMAXPROCS(0)))
	ids := make([]string, len(hits))
	seqs := make([]int64, len(hits))
	for i, h := range hits {
		ids[i], seqs[i] = ix.vec.ID(h.Slot), ix.vec.Seq(h.Slot)
	}
	ix.mu.RUnlock()
	// The cached rows are scored from their encodings, and only what is
	// returned is decoded (the margin's rows were a third of what a recall
	// allocated) and copied out of the cache.
	bufs, us, at := e.rows.peekRaw(sc, ids)
	found, err := e.readMiss(ctx, sc, ids, seqs, at, map[string]*memory.Memory{})
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return rescoreRows(q, ids, bufs, us, found, &f, limit, o), nil
}

// Lexical ranks the scope's memories by BM25 over their lexical form
// (memory.LexicalForm); any query term may match (English function words
// aside, memory.ContentTerms). Scores are -bm25 as FTS5 computes it, over
// the scope's own counts: higher is better and positive.
func (e *Engine) Lexical(ctx context.Context, sc memory.Scope, query string, o memory.SearchOptions) ([]memory.Candidate, error) {
	terms := memory.ContentTerms(memory.QueryTerms(query))
	if len(terms) == 0 {
		return nil, nil
	}
	limit := limitOf(o)
	f := NewFilter(o)
	if e.feed != nil {
		ids, scores, found, err := e.feedSearch(ctx, sc, func(ix *scopeIndex) ([]string, []float64) {
			return lexicalRank(ix, terms, &f, limit)
		})
		if err != nil {
			return nil, fmt.Errorf("lexical search: %w", err)
		}
		return lexicalCandidates(ids, scores, found, &f, o), nil
	}
	ix, err := e.rlock(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("lexical search: load index: %w", err)
	}
	chosen, postings := PickTerms(terms, ix.lex.DF)
	hits := ix.lex.Search(chosen, postings, &f, limit)
	ids := make([]string, len(hits))
	seqs := make([]int64, len(hits))
	for i, h := range hits {
		ids[i], seqs[i] = ix.lex.ID(h.Slot), h.Seq
	}
	ix.mu.RUnlock()
	found, err := e.read(ctx, sc, ids, seqs)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	out := make([]memory.Candidate, 0, len(hits))
	for i, id := range ids {
		// A row changed between the ranking and the read is checked again.
		if m, ok := found[id]; ok && f.KeepMemory(m) {
			out = append(out, memory.Candidate{Memory: memory.SearchCopy(m, o), Score: hits[i].Score})
		}
	}
	return out, nil
}

// Hybrid is Vector and Lexical of one query (memory.HybridSearcher). On a
// feed both rank under one lock and their rows come in one read, one
// round trip instead of two. Otherwise one runs after the other, not side
// by side: both search in memory, where a second goroutine only adds
// scheduling. On 2 cores, sequential searches cut the 10k recall path's
// CPU by ~10% (BenchmarkRecallPath), and at 100k the vector scan already
// splits over the cores.
func (e *Engine) Hybrid(ctx context.Context, sc memory.Scope, vec []float32, query string, o memory.SearchOptions) (byVector, byText []memory.Candidate, err error) {
	if e.feed != nil {
		return e.feedHybrid(ctx, sc, vec, query, o)
	}
	if byVector, err = e.Vector(ctx, sc, vec, o); err != nil {
		return nil, nil, err
	}
	if byText, err = e.Lexical(ctx, sc, query, o); err != nil {
		return nil, nil, err
	}
	return byVector, byText, nil
}

// read returns the scope's memories ids (at seqs), keyed by id: from the
// row cache where it holds them, the rest read through the Source and
// kept in the cache. An id missing from the result was not found. The
// rows may alias the cache's encodings: callers copy (memory.SearchCopy)
// what they return and change nothing.
func (e *Engine) read(ctx context.Context, sc memory.Scope, ids []string, seqs []int64) (map[string]*memory.Memory, error) {
	found := make(map[string]*memory.Memory, len(ids))
	return e.readMiss(ctx, sc, ids, seqs, e.rows.peekInto(sc, ids, found), found)
}

// readMiss adds to found the rows of ids at the positions at, which the
// row cache does not hold, read from the source (and cached).
func (e *Engine) readMiss(ctx context.Context, sc memory.Scope, ids []string, seqs []int64, at []int, found map[string]*memory.Memory) (map[string]*memory.Memory, error) {
	if len(at) == 0 {
		return found, nil
	}
	missIDs, miss := make([]string, len(at)), make([]int64, len(at))
	for k, i := range at {
		missIDs[k], miss[k] = ids[i], seqs[i]
	}
	note := e.rows.note()
	read, err := e.src.Memories(ctx, sc, missIDs, miss)
	if err != nil {
		e.rows.put(note, nil)
		return nil, err
	}
	kept := make([]*memory.Memory, 0, len(read))
	for id, m := range read {
		kept = append(kept, m)
		found[id] = m
	}
	e.rows.put(note, kept)
	return found, nil
}

// rlock returns sc's indexes loaded and read-locked, marking the scope
// recently searched.
func (e *Engine) rlock(ctx context.Context, sc memory.Scope) (*scopeIndex, error) {
	for {
		ix := e.entry(sc)
		if err := e.ensure(ctx, sc, ix); err != nil {
			return nil, err
		}
		e.account(sc)
		ix.mu.RLock()
		if ix.loaded {
			return ix, nil
		}
		// Unloaded between the load and the lock: take the map's.
		ix.mu.RUnlock()
	}
}

// entry returns the scope's indexes, creating unloaded ones, and marks
// the scope recently searched.
func (e *Engine) entry(sc memory.Scope) *scopeIndex {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.budget.Touch(sc)
	ix, ok := e.scopes[sc]
	if !ok {
		ix = &scopeIndex{vec: NewVec(e.dim), lex: NewLex(), feed: e.feed != nil}
		ix.fs.reset()
		e.scopes[sc] = ix
	}
	return ix
}

// LoadTimeout bounds one scope's index load, which runs detached from the
// search that started it.
const LoadTimeout = 2 * time.Minute

// loadCall is one load of a scope's indexes.
type loadCall struct {
	done chan struct{}
	err  error
}

// ensure loads the scope's indexes if they are not loaded. The load is
// single-flighted and detached from ctx: a search whose deadline passes
// (the request path gives recall tens of milliseconds; a cold scope takes
// 0.2–3 s) returns ctx's error while the load goes on, so the next search
// finds the scope loaded instead of starting the load again.
func (e *Engine) ensure(ctx context.Context, sc memory.Scope, ix *scopeIndex) error {
	ix.loadMu.Lock()
	call := ix.loading
	if call == nil {
		// No load holds ix.mu: the check waits only for a brief write.
		ix.mu.RLock()
		ok := ix.loaded
		ix.mu.RUnlock()
		if ok {
			ix.loadMu.Unlock()
			return nil
		}
		call = &loadCall{done: make(chan struct{})}
		ix.loading = call
		go func() {
			lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), LoadTimeout)
			defer cancel()
			call.err = e.load(lctx, sc, ix)
			ix.loadMu.Lock()
			ix.loading = nil
			ix.loadMu.Unlock()
			close(call.done)
		}()
	}
	ix.loadMu.Unlock()
	select {
	case <-call.done:
		return call.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// load fills the scope's indexes unless another load already did.
func (e *Engine) load(ctx context.Context, sc memory.Scope, ix *scopeIndex) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.loaded {
		return nil
	}
	ix.reset()
	var err error
	if e.feed != nil {
		err = e.loadFeed(ctx, sc, ix)
	} else if rl, ok := e.src.(RowLoader); ok {
		err = e.loadRows(ctx, sc, ix, rl)
	} else {
		err = e.src.Load(ctx, sc, ix.upsert)
	}
	if err != nil {
		ix.reset()
		return err
	}
	ix.loaded = true
	ix.bytes.Store(ix.estimate())
	return nil
}

func (ix *scopeIndex) upsert(r Row) {
	if r.Vec == nil {
		ix.vec.Remove(r.ID)
	} else {
		ix.vec.Upsert(r.ID, r.Seq, r.Meta, r.Vec)
	}
	ix.lex.Upsert(r.ID, r.Seq, r.Meta, r.Text)
}

func (ix *scopeIndex) remove(id string) {
	ix.vec.Remove(id)
	ix.lex.Remove(id)
}

func (ix *scopeIndex) estimate() int64 {
	return ix.vec.Estimate() + ix.lex.Estimate() + int64(len(ix.fs.vers))*versBytes + ix.fs.rowBytes
}

// reset empties the indexes (unloaded); the caller holds the write lock.
func (ix *scopeIndex) reset() {
	ix.vec.Reset()
	ix.lex.Reset()
	if ix.feed {
		ix.fs.reset()
	}
	ix.loaded = false
	ix.bytes.Store(0)
}

// account notes the current size of sc's indexes and unloads the least
// recently searched other scopes while the total exceeds the bound. The
// caller holds no index lock.
func (e *Engine) account(sc memory.Scope) {
	e.mu.Lock()
	var n int64
	if ix := e.scopes[sc]; ix != nil {
		n = ix.bytes.Load()
	}
	var victims []*scopeIndex
	for _, v := range e.budget.Account(sc, n) {
		victims = append(victims, e.scopes[v.Scope])
		delete(e.scopes, v.Scope)
		e.log.Debug("search: unloaded indexes over budget", "user", v.Scope.User, "namespace", v.Scope.Namespace,
			"bytes", v.Bytes, "total", v.Total)
	}
	e.mu.Unlock()
	unload(victims)
}

// unload resets indexes taken out of the map, once searches holding them
// are done.
func unload(ixs []*scopeIndex) {
	for _, ix := range ixs {
		if ix != nil {
			ix.mu.Lock()
			ix.reset()
			ix.mu.Unlock()
		}
	}
}

// lockLoaded write-locks the scope's indexes if they are loaded (nil
// otherwise); unlock notes their new size, releases them and accounts for
// the scope in the budget.
func (e *Engine) lockLoaded(sc memory.Scope) (*scopeIndex, func()) {
	e.mu.Lock()
	ix := e.scopes[sc]
	e.mu.Unlock()
	if ix == nil {
		return nil, func() {}
	}
	ix.mu.Lock()
	if !ix.loaded {
		ix.mu.Unlock()
		return nil, func() {}
	}
	return ix, func() {
		ix.bytes.Store(ix.estimate())
		ix.mu.Unlock()
		e.account(sc)
	}
}

// Written applies rows a transaction just committed to the scope's loaded
// indexes without reading them back (inserts: reading them back cost as
// much as writing them), and caches fresh, the same rows whole (Encode),
// for the searches that find them next; rows without an encoding leave
// the row cache. The caller must still hold the lock that serialises its
// writes: Changed re-reads rows because it runs after that lock is
// released, when a later write of the same rows may already have been
// applied; under the lock none can have committed. On a Feed it does
// nothing: the feed brings every write.
func (e *Engine) Written(sc memory.Scope, rows []Row, fresh []Encoded) {
	if e.feed != nil {
		return
	}
	ids := make([]string, 0, len(rows))
	enc := make(map[string]bool, len(fresh))
	for _, b := range fresh {
		id, _ := rowHead(b)
		enc[id] = true
	}
	for _, r := range rows {
		if !enc[r.ID] {
			ids = append(ids, r.ID)
		}
	}
	e.rows.drop(ids)
	e.rows.putWritten(fresh)
	ix, unlock := e.lockLoaded(sc)
	defer unlock()
	if ix == nil {
		return
	}
	for _, r := range rows {
		ix.upsert(r)
	}
}

// Changed re-reads ids of the scope's loaded indexes through the Source
// after a write to them committed (updates, deletions, state changes),
// and drops them from the row cache. Reading the current rows (not
// applying the write) makes it order-independent: whichever runs last saw
// the latest state. On error the scope is unloaded and reloads on its next
// search. On a Feed it does nothing: the feed brings every write.
func (e *Engine) Changed(ctx context.Context, sc memory.Scope, ids []string) {
	e.follow(ctx, sc, ids, func(ctx context.Context, ix *scopeIndex) { e.reindex(ctx, ix, sc, ids) })
}

// follow is what Changed and MetaChanged share: nothing on a Feed; else
// ids leave the row cache and, the scope's indexes loaded, apply updates
// them under the write lock. The write already committed: apply finishes
// even if the caller's context ends now.
func (e *Engine) follow(ctx context.Context, sc memory.Scope, ids []string, apply func(context.Context, *scopeIndex)) {
	if e.feed != nil {
		return
	}
	e.rows.drop(ids)
	if len(ids) == 0 {
		return
	}
	ix, unlock := e.lockLoaded(sc)
	defer unlock()
	if ix == nil {
		return
	}
	apply(context.WithoutCancel(ctx), ix)
}

// reindex reads ids' rows afresh into ix (write-locked).
func (e *Engine) reindex(ctx context.Context, ix *scopeIndex, sc memory.Scope, ids []string) {
	refresh(ix, ids, func(found func(string)) error {
		return e.src.IndexRows(ctx, sc, ids, func(r Row) {
			found(r.ID)
			ix.upsert(r)
		})
	})
}

// refresh runs read, which reports through found each of ids still in
// the scope, and removes from ix (write-locked) the ids it did not report
// (deleted); a failed read unloads the scope. It reports whether the read
// succeeded.
func refresh(ix *scopeIndex, ids []string, read func(found func(id string)) error) bool {
	seen := make(map[string]bool, len(ids))
	if err := read(func(id string) { seen[id] = true }); err != nil {
		ix.reset()
		return false
	}
	for _, id := range ids {
		if !seen[id] {
			ix.remove(id)
		}
	}
	return true
}

// MetaSource is a Source that also reads rows' index metadata alone
// (without text or vector), for MetaChanged.
type MetaSource interface {
	IndexMeta(ctx context.Context, sc memory.Scope, ids []string, add func(id string, seq int64, m Meta)) error
}

// MetaChanged is Changed for a committed write that left the rows' text,
// context and embedding as they were (memories archived, restored or
// marked consolidated): the indexes take the rows' new metadata without
// reading and tokenising their text and vectors again, which a
// consolidation's marking of its events did for each. A Source that is
// not a MetaSource, or a row the indexes do not hold, is read whole.
func (e *Engine) MetaChanged(ctx context.Context, sc memory.Scope, ids []string) {
	ms, ok := e.src.(MetaSource)
	if !ok {
		e.Changed(ctx, sc, ids)
		return
	}
	e.follow(ctx, sc, ids, func(ctx context.Context, ix *scopeIndex) {
		var whole []string
		ok := refresh(ix, ids, func(found func(string)) error {
			return ms.IndexMeta(ctx, sc, ids, func(id string, seq int64, m Meta) {
				found(id)
				// Every indexed row is in the lexical index; the vector
				// index lacks a row without a vector.
				if !ix.lex.SetMeta(id, seq, m) {
					whole = append(whole, id)
					return
				}
				ix.vec.SetMeta(id, seq, m)
			})
		})
		if ok && len(whole) > 0 {
			e.reindex(ctx, ix, sc, whole)
		}
	})
}

// ForgetUser unloads every index of user (of namespace ns when not empty)
// and drops the user's cached rows, after a deletion committed.
func (e *Engine) ForgetUser(user, ns string) {
	e.rows.dropUser(user, ns)
	e.mu.Lock()
	var drop []*scopeIndex
	for _, sc := range e.budget.Scopes() {
		if sc.User == user && (ns == "" || sc.Namespace == ns) {
			e.budget.Remove(sc)
			drop = append(drop, e.scopes[sc])
			delete(e.scopes, sc)
		}
	}
	e.mu.Unlock()
	unload(drop)
}

// BeginTouch is called before a touch's transaction begins (hits+1 and
// last use of ids), EndTouch after it ended: committed, the cached rows
// take the touch in place (search results keep coming from the cache);
// otherwise they are dropped. Reads in between do not cache the rows.
func (e *Engine) BeginTouch(ids []string) { e.rows.beginTouch(ids) }

// EndTouch ends a touch BeginTouch began; t is its last-use time.
func (e *Engine) EndTouch(sc memory.Scope, ids []string, t time.Time, committed bool) {
	e.rows.endTouch(sc, ids, t, committed)
	if e.feed != nil && committed {
		e.touchedFeed(sc, ids, t)
	}
}

// Stats reports the loaded indexes against their bound.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.budget.Stats()
}

// SetLimit changes the indexes' bound (tests); it applies at the next
// search or write.
func (e *Engine) SetLimit(n int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.budget.SetLimit(n)
}

// Loaded lists the scopes whose indexes are in the map (loaded or
// loading), for tests.
func (e *Engine) Loaded() []memory.Scope {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.budget.Scopes()
}

// Cached reports whether the row cache holds id's row (tests).
func (e *Engine) Cached(id string) bool { return e.rows.has(id) }

// Indexed reports whether the scope's loaded indexes hold id (tests).
func (e *Engine) Indexed(sc memory.Scope, id string) bool {
	e.mu.Lock()
	ix := e.scopes[sc]
	e.mu.Unlock()
	if ix == nil {
		return false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.vec.Has(id) || ix.lex.Has(id)
}

// SetClock replaces the clock of RowTTL (tests).
func (e *Engine) SetClock(now func() time.Time) { e.now = now }
