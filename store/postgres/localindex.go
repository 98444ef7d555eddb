package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
)

// Options tune a PostgreSQL store beyond the embedder it is opened for.
// The zero value is the default.
type Options struct {
	// IndexBytes bounds the estimated memory of the in-process search
	// indexes (vector and lexical, per scope) loaded by searches. Past it,
	// the least recently searched scopes are unloaded and reload on their
	// next search; the scope being searched stays, even alone over the
	// bound. 0 means search.DefaultBytes (512 MiB); negative means no
	// bound.
	IndexBytes int64
	// Logger receives a debug line per unloaded scope; nil discards.
	Logger *slog.Logger
}

// IndexStats describe the loaded in-process indexes (Store.IndexStats).
type IndexStats = search.Stats

// The in-process indexes.
//
// With them, a search ranks the scope in this process (the quantised
// vector matrix or BM25 over the inverted index, as the SQLite store
// does) and reads from PostgreSQL only the rows it returns, one round
// trip: an exact scan of 10k halfvecs cost the server 8 ms, and HNSW with
// a scope filter over a million rows 150 ms at 100k memories in the scope.
//
// Every process (replica) keeps its own indexes coherent with every
// writer through the change stamps of migration 7: each memories row
// carries the transaction that last changed what a search reads of it
// (xid) and a version (ver). The query that reads a search's rows also
// returns every row of the scope whose stamp the index has not read yet
// (scopeIdx.mark): transactions that were still running at the index's
// last read, or began after it. Those are exactly the transactions whose
// writes that read could not see, so nothing committed is ever skipped,
// however long a transaction runs, and nothing is read again once seen.
// ver makes applying reads idempotent and order-independent, since two
// searches' reads may finish in either order; when the index changed
// after a search ranked (its read or another's), it ranks again. A deleted
// row leaves no stamp: the read finds it missing, and it is dropped from
// the index then. So a search sees every write committed before it
// began, whichever process made it, as a search in SQL would.
type scopeIdx struct {
	mu     sync.RWMutex
	loaded bool
	vec    *search.Vec
	lex    *search.Lex
	vers   map[string]int64 // applied row versions (memories.ver), by id
	rows   map[string]cachedRow
	// rowBytes is the cached rows' estimated memory.
	rowBytes int64
	mark     snapMark // which stamps are still to read
	// gen counts changes to the index: a search whose ranking is older
	// than the index ranks again (its read, or another search's, applied
	// rows it ranked without).
	gen atomic.Uint64
	// bytes is estimate() as of the last change, for the budget (read
	// without the lock).
	bytes atomic.Int64
}

// versBytes is a vers entry's estimated memory.
const versBytes = 16 + 16 + 8 + 48

func (ix *scopeIdx) estimate() int64 {
	return ix.vec.Estimate() + ix.lex.Estimate() + int64(len(ix.vers))*versBytes + ix.rowBytes
}

func (ix *scopeIdx) reset() {
	ix.vec.Reset()
	ix.lex.Reset()
	ix.vers = make(map[string]int64)
	ix.rows = make(map[string]cachedRow)
	ix.rowBytes = 0
	ix.mark = snapMark{}
	ix.loaded = false
	ix.gen.Add(1)
	ix.bytes.Store(0)
}

// localIndexes are a store's in-process indexes.
type localIndexes struct {
	mu     sync.Mutex // guards scopes and budget
	scopes map[memory.Scope]*scopeIdx
	budget *search.Budget
	log    *slog.Logger
	// changed counts the changed rows searches have read, refreshed the
	// cached rows whose usage counters searches read again (tests).
	changed, refreshed atomic.Int64
	// now is the clock of the row cache's rowTTL (tests move it).
	now func() time.Time
	// loadCacheBytes bounds the rows a load keeps whole in the row cache
	// (cacheAtLoad): 32 MiB, or a sixteenth of IndexBytes when that is
	// less; 20k rows at 256 dimensions.
	loadCacheBytes int64
	// fetched counts the candidate rows searches read whole (tests).
	fetched atomic.Int64
}

func newLocalIndexes(o Options) *localIndexes {
	l := &localIndexes{scopes: make(map[memory.Scope]*scopeIdx), budget: search.NewBudget(o.IndexBytes), log: o.Logger, now: time.Now,
		loadCacheBytes: 32 << 20}
	if o.IndexBytes > 0 {
		l.loadCacheBytes = min(l.loadCacheBytes, o.IndexBytes/16)
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	return l
}

// IndexStats reports the in-process indexes against their bound.
func (s *Store) IndexStats() IndexStats {
	s.local.mu.Lock()
	defer s.local.mu.Unlock()
	return s.local.budget.Stats()
}

// entry returns sc's index, creating an unloaded one, and marks the scope
// recently searched.
func (l *localIndexes) entry(sc memory.Scope, dim int) *scopeIdx {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.budget.Touch(sc)
	ix, ok := l.scopes[sc]
	if !ok {
		ix = &scopeIdx{vec: search.NewVec(dim), lex: search.NewLex(), vers: make(map[string]int64), rows: make(map[string]cachedRow)}
		l.scopes[sc] = ix
	}
	return ix
}

// account notes sc's size and unloads the least recently searched other
// scopes past the bound. The caller holds no index lock.
func (l *localIndexes) account(sc memory.Scope, ix *scopeIdx) {
	l.mu.Lock()
	var victims []*scopeIdx
	if l.scopes[sc] == ix {
		for _, v := range l.budget.Account(sc, ix.bytes.Load()) {
			victims = append(victims, l.scopes[v.Scope])
			delete(l.scopes, v.Scope)
			l.log.Debug("postgres: unloaded search indexes over budget", "user", v.Scope.User, "namespace", v.Scope.Namespace,
				"bytes", v.Bytes, "total", v.Total)
		}
	}
	l.mu.Unlock()
	for _, v := range victims {
		v.mu.Lock()
		v.reset()
		v.mu.Unlock()
	}
}

// forgetUser unloads the indexes of user (of namespace ns when not empty).
func (l *localIndexes) forgetUser(user, ns string) {
	l.mu.Lock()
	var drop []*scopeIdx
	for sc, ix := range l.scopes {
		if sc.User == user && (ns == "" || sc.Namespace == ns) {
			drop = append(drop, ix)
			delete(l.scopes, sc)
			l.budget.Remove(sc)
		}
	}
	l.mu.Unlock()
	for _, ix := range drop {
		ix.mu.Lock()
		ix.reset()
		ix.mu.Unlock()
	}
}

// loadedIndex returns sc's index, loaded from the database on first use.
// The caller takes its read lock and starts over (calls it again) if the
// index was unloaded meanwhile.
func (s *Store) loadedIndex(ctx context.Context, sc memory.Scope) (*scopeIdx, error) {
	ix := s.local.entry(sc, s.opts.Dim)
	ix.mu.RLock()
	ok := ix.loaded
	ix.mu.RUnlock()
	if !ok {
		if err := s.load(ctx, sc, ix); err != nil {
			return nil, err
		}
	}
	s.local.account(sc, ix)
	return ix, nil
}

// indexCols are the columns the index reads of a row at load: its
// metadata, creation time (the lexical order), embedding, search text and
// version.
func (s *Store) indexCols() string {
	emb := "halfvec_send(embedding::halfvec)"
	if s.vecTyp == "halfvec" {
		emb = "halfvec_send(embedding)"
	}
	return `id, tier, valid_to IS NOT NULL OR archived_at IS NOT NULL, expires_at, consolidated_at IS NOT NULL,
		created_at, ` + emb + `, text, context, ver`
}

// snapMark is what a read's snapshot could not see: transactions still
// running (xip) and every one from xmax on. A row whose stamp is among
// them is read again; any other was committed (or aborted) before the
// snapshot and read then, or before.
type snapMark struct {
	xmax uint64
	xip  []string // decimal xid8s
}

// snapshotQuery is the statement's snapshot as xmin:xmax:xip,... (the
// text form of pg_snapshot).
const snapshotQuery = `SELECT pg_current_snapshot()::text`

// tombstoneCols shape a memory_deletions row as memColsTemplate, for the
// UNION with the rows a search reads.
const tombstoneCols = `user_id, namespace, id, '', '', NULL::bytea, 0::float8, 0::float8, '', '{}'::jsonb, '', '', false,
	now(), now(), 0, now(), NULL::timestamptz, '', NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, ''`

func parseSnapshot(t string) (snapMark, error) {
	parts := strings.Split(t, ":")
	if len(parts) != 3 {
		return snapMark{}, fmt.Errorf("snapshot %q", t)
	}
	xmax, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return snapMark{}, fmt.Errorf("snapshot %q: %w", t, err)
	}
	m := snapMark{xmax: xmax}
	if parts[2] != "" {
		m.xip = strings.Split(parts[2], ",")
	}
	return m, nil
}

// newer reports whether m is a later snapshot than o: a larger xmax, or
// the same xmax with fewer transactions still running (a later snapshot's
// running set at the same xmax is a subset of an earlier one's). Keeping
// an older mark is always safe; it only reads more.
func (m snapMark) newer(o snapMark) bool {
	return m.xmax > o.xmax || (m.xmax == o.xmax && len(m.xip) < len(o.xip))
}

// load reads the scope whole (keeping a small scope's rows in the row
// cache). The mark is read first, in an earlier snapshot than the rows:
// an older mark only makes the next search read a few rows again.
func (s *Store) load(ctx context.Context, sc memory.Scope, ix *scopeIdx) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.loaded {
		return nil
	}
	ix.reset()
	var snap string
	if err := s.db.QueryRowContext(ctx, snapshotQuery).Scan(&snap); err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	mark, err := parseSnapshot(snap)
	if err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	whole, err := s.cacheAtLoad(ctx, sc)
	if err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	if whole {
		err = s.loadWhole(ctx, sc, ix)
	} else {
		err = s.loadIndexOnly(ctx, sc, ix)
	}
	if err != nil {
		ix.reset()
		return fmt.Errorf("load index: %w", err)
	}
	ix.mark = mark
	ix.loaded = true
	ix.bytes.Store(ix.estimate())
	return nil
}

// cacheAtLoad reports whether sc is small enough for its load to keep
// its rows whole in the row cache (localIndexes.loadCacheBytes): its
// searches then read no candidate rows until they change or rowTTL
// passes. A larger scope's load reads what the index needs alone.
func (s *Store) cacheAtLoad(ctx context.Context, sc memory.Scope) (bool, error) {
	most := int(s.local.loadCacheBytes / int64(4*s.opts.Dim+600))
	if most <= 0 {
		return false, nil
	}
	n, err := s.countUpTo(ctx, sc, most+1)
	if err != nil {
		return false, err
	}
	return n <= most, nil
}

// loadWhole indexes the scope's rows and keeps them in the row cache.
func (s *Store) loadWhole(ctx context.Context, sc memory.Scope, ix *scopeIdx) error {
	rows, err := s.db.QueryContext(ctx, `SELECT `+s.cols+`, ver FROM memory_rows WHERE user_id = $1 AND namespace = $2`,
		sc.User, sc.Namespace)
	if err != nil {
		return err
	}
	defer rows.Close()
	now := s.local.now()
	for rows.Next() {
		var ver int64
		m, err := scanMemory(rows, &ver)
		if err != nil {
			return err
		}
		ix.apply(m.ID, m.CreatedAt.UnixMicro(), search.MetaOf(m), m.Embedding, m.SearchText(), ver)
		ix.cache(m, ver, now)
	}
	return rows.Err()
}

// loadIndexOnly indexes the scope's rows, reading what the index needs.
func (s *Store) loadIndexOnly(ctx context.Context, sc memory.Scope, ix *scopeIdx) error {
	rows, err := s.db.QueryContext(ctx, `SELECT `+s.indexCols()+` FROM memories WHERE user_id = $1 AND namespace = $2`,
		sc.User, sc.Namespace)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id, tier, text, context string
			dead, cons              bool
			expires                 sql.NullTime
			created                 time.Time
			emb                     []byte
			ver                     int64
		)
		if err := rows.Scan(&id, &tier, &dead, &expires, &cons, &created, &emb, &text, &context, &ver); err != nil {
			return err
		}
		var vec []float32
		if emb != nil {
			if vec, err = decodeVector(emb); err != nil {
				return fmt.Errorf("embedding of %s: %w", id, err)
			}
		}
		var exp int64
		if expires.Valid {
			exp = expires.Time.UnixMicro()
		}
		m := search.NewMeta(memory.Tier(tier), dead, exp, cons)
		mm := memory.Memory{Text: text, Context: context}
		ix.apply(id, created.UnixMicro(), m, vec, mm.SearchText(), ver)
	}
	return rows.Err()
}

// apply indexes one row read at version ver, unless a newer (or the same)
// version is already in; the caller holds the write lock.
func (ix *scopeIdx) apply(id string, seq int64, m search.Meta, vec []float32, searchText string, ver int64) bool {
	if v, ok := ix.vers[id]; ok && v >= ver {
		return false
	}
	ix.vers[id] = ver
	if vec == nil {
		ix.vec.Remove(id)
	} else {
		ix.vec.Upsert(id, seq, m, vec)
	}
	ix.lex.Upsert(id, seq, m, searchText)
	return true
}

// drop removes ids a read found deleted; the caller holds the write lock.
func (ix *scopeIdx) drop(ids []string) {
	for _, id := range ids {
		if r, ok := ix.rows[id]; ok {
			ix.rowBytes -= rowBytes(r.m)
			delete(ix.rows, id)
		}
		delete(ix.vers, id)
		ix.vec.Remove(id)
		ix.lex.Remove(id)
	}
}

// readQuery is readRows' statement. It is prepared (Store.readStmt) on
// connections set to plan_cache_mode=force_generic_plan, so each
// connection plans it once: planned for each search, as the server does
// for a custom plan, and does for this statement since the generic plan's
// estimate is the higher, it cost 0.35 ms of the server's time against
// 0.1 ms to run; the generic plan (partitions pruned as it starts) runs
// in 0.2 ms and plans in 0.03. Its parameters: the scope, the mark's xmax
// and running list, and the ids wanted.
func (s *Store) readQuery() string {
	return `SELECT ` + s.cols + `, (` + snapshotQuery + `), xid >= $3::xid8 OR xid = ANY($4::xid8[]), ver
		FROM memory_rows WHERE user_id = $1 AND namespace = $2 AND (xid >= $3::xid8 OR xid = ANY($4::xid8[]) OR id = ANY($5))
		UNION ALL SELECT ` + tombstoneCols + `, (` + snapshotQuery + `), true, -1
		FROM memory_deletions WHERE user_id = $1 AND namespace = $2 AND (xid >= $3::xid8 OR xid = ANY($4::xid8[]))
		UNION ALL SELECT ` + usageCols + `, (` + snapshotQuery + `), false, -2
		FROM memory_rows WHERE user_id = $1 AND namespace = $2 AND id = ANY($6)`
}

// usageCols shape a row's usage counters as memColsTemplate (the rest
// empty), for the UNION with the rows a search reads: what a cached row
// whose rowTTL passed reads again.
const usageCols = `user_id, namespace, id, '', '', NULL::bytea, 0::float8, 0::float8, '', '{}'::jsonb, '', '', false,
	now(), last_used_at, hits, now(), NULL::timestamptz, '', NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, ''`

// readRows reads the scope's rows ids and every row whose stamp mark
// has not read, in one statement, and applies the changes (see scopeIdx).
// It returns the rows read by id.
func (s *Store) readRows(ctx context.Context, sc memory.Scope, ix *scopeIdx, mark snapMark, ids []string) (map[string]*memory.Memory, error) {
	found := make(map[string]*memory.Memory, len(ids))
	var need, stale []string
	now := s.local.now()
	ix.mu.RLock()
	for _, id := range ids {
		r, ok := ix.rows[id]
		switch {
		case !ok:
			need = append(need, id)
		case now.Sub(r.at) < rowTTL:
			found[id] = r.m
		default:
			// Everything but the usage counters reached the cache
			// through the stamps: those alone are read again.
			stale = append(stale, id)
		}
	}
	ix.mu.RUnlock()
	s.local.fetched.Add(int64(len(need)))
	// pq.Array sends a nil slice as NULL, and "xid = ANY(NULL)" is NULL:
	// the running list goes as an array, empty or not.
	rows, err := s.readStmt.QueryContext(ctx, sc.User, sc.Namespace, strconv.FormatUint(mark.xmax, 10),
		pq.Array(append([]string{}, mark.xip...)), pq.Array(need), pq.Array(stale))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		read     []*memory.Memory // rows read, changed or asked for
		vers     []int64
		isChange []bool
		gone     []string                  // deleted since the mark
		usage    map[string]*memory.Memory // counters of the stale rows
		snap     string
	)
	for rows.Next() {
		var (
			isNew   bool
			version int64
		)
		m, err := scanMemory(rows, &snap, &isNew, &version)
		if err != nil {
			return nil, err
		}
		switch version {
		case -1:
			gone = append(gone, m.ID)
			continue
		case -2:
			if usage == nil {
				usage = make(map[string]*memory.Memory, len(stale))
			}
			usage[m.ID] = m
			continue
		}
		read, vers, isChange = append(read, m), append(vers, version), append(isChange, isNew)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Only a read that returned a row says what its snapshot was; one
	// that returned none has nothing to apply either.
	var next snapMark
	if snap != "" {
		if next, err = parseSnapshot(snap); err != nil {
			return nil, err
		}
	}
	nChanged := 0
	for _, c := range isChange {
		if c {
			nChanged++
		}
	}
	s.local.changed.Add(int64(nChanged))
	if len(read) == 0 && len(gone) == 0 && len(need) == 0 && len(stale) == 0 {
		// Every candidate was cached and nothing changed: the common
		// case, which needs no write lock.
		return found, nil
	}
	ix.mu.Lock()
	defer func() {
		ix.bytes.Store(ix.estimate())
		ix.mu.Unlock()
	}()
	for _, m := range read {
		found[m.ID] = m
	}
	for _, id := range gone {
		delete(found, id)
	}
	if !ix.loaded {
		// Unloaded meanwhile: the next search loads it afresh.
		return found, nil
	}
	for _, id := range stale {
		if _, ok := found[id]; ok {
			continue // changed: read whole
		}
		u, ok := usage[id]
		r, cached := ix.rows[id]
		if !ok || !cached {
			need = append(need, id) // gone: dropped below
			continue
		}
		c := *r.m // cached rows are shared read-only: a copy
		c.Hits, c.LastUsedAt = u.Hits, u.LastUsedAt
		r.m, r.at = &c, now
		ix.rows[id] = r
		found[id] = &c
		s.local.refreshed.Add(1)
	}
	var missing []string
	for _, id := range need {
		if _, ok := found[id]; !ok {
			missing = append(missing, id)
		}
	}
	moved := len(missing) > 0 || len(gone) > 0
	ix.drop(missing)
	ix.drop(gone)
	for i, m := range read {
		if isChange[i] && ix.apply(m.ID, m.CreatedAt.UnixMicro(), search.MetaOf(m), m.Embedding, m.SearchText(), vers[i]) {
			moved = true
		}
		ix.cache(m, vers[i], now)
	}
	if moved {
		ix.gen.Add(1)
	}
	if next.newer(ix.mark) {
		ix.mark = next
	}
	return found, nil
}

// rowTTL is how long a cached row's usage counters are served without
// reading them again. Every change a search reads (text, vector, state:
// migration 7's stamps) and every deletion (migration 8's) reaches the
// cache at once; only a touch by another process (hits, last_used_at,
// kept in memory_usage) waits for the counters to be read again, and
// they are read alone (readQuery). A touch by this process updates the
// cache itself.
const rowTTL = 30 * time.Second

// cachedRow is a memory as a search last read it.
type cachedRow struct {
	m   *memory.Memory
	ver int64
	at  time.Time
}

// cache keeps m (read at version ver at t) unless a newer version is in;
// the caller holds the write lock.
func (ix *scopeIdx) cache(m *memory.Memory, ver int64, t time.Time) {
	if r, ok := ix.rows[m.ID]; ok {
		if r.ver > ver {
			return
		}
		ix.rowBytes -= rowBytes(r.m)
	}
	ix.rows[m.ID] = cachedRow{m: m, ver: ver, at: t}
	ix.rowBytes += rowBytes(m)
}

// rowBytes estimates a cached row's memory.
func rowBytes(m *memory.Memory) int64 {
	return int64(len(m.Text)+len(m.Context)+len(m.Key)+len(m.Session)+4*len(m.Embedding)) + 400
}

// touched applies a touch this process committed to the cached rows:
// copies with hits+1 and last_used_at t, since searches may still hold
// the old ones.
func (l *localIndexes) touched(sc memory.Scope, ids []string, t time.Time) {
	l.mu.Lock()
	ix := l.scopes[sc]
	l.mu.Unlock()
	if ix == nil {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, id := range ids {
		if r, ok := ix.rows[id]; ok {
			c := r.m.Clone()
			c.Hits++
			if t.After(c.LastUsedAt) {
				c.LastUsedAt = t.UTC()
			}
			r.m = c
			ix.rows[id] = r
		}
	}
}

// rankFunc ranks the scope's loaded index: ids best first with their
// scores. The caller holds the read lock.
type rankFunc func(ix *scopeIdx) ([]string, []float64)

// localSearch ranks with rank and reads the rows ranked, ranking again
// (up to twice) when the index changed meanwhile: by this read's changes
// or another search's. A read that brings a change another search applied
// first still sees it in the index's generation. It returns
// the ids and scores of the last ranking and the rows read for them.
func (s *Store) localSearch(ctx context.Context, sc memory.Scope, rank rankFunc) ([]string, []float64, map[string]*memory.Memory, error) {
	found := map[string]*memory.Memory{}
	for try := 0; ; try++ {
		ix, err := s.loadedIndex(ctx, sc)
		if err != nil {
			return nil, nil, nil, err
		}
		ix.mu.RLock()
		if !ix.loaded {
			// Unloaded between the load and the lock: take the map's.
			ix.mu.RUnlock()
			continue
		}
		ids, scores := rank(ix)
		mark, gen := ix.mark, ix.gen.Load()
		ix.mu.RUnlock()
		var need []string
		for _, id := range ids {
			if _, ok := found[id]; !ok {
				need = append(need, id)
			}
		}
		if try > 0 && len(need) == 0 {
			return ids, scores, found, nil
		}
		got, err := s.readRows(ctx, sc, ix, mark, need)
		if err != nil {
			return nil, nil, nil, err
		}
		for id, m := range got {
			found[id] = m
		}
		if ix.gen.Load() == gen || try == 2 {
			return ids, scores, found, nil
		}
	}
}

// vectorRank is the vector ranking of a loaded index: the quantised scan
// takes a margin of extra candidates, which Rescore scores exactly from
// the full vectors read back. The caller holds the read lock.
func vectorRank(ix *scopeIdx, q []float32, f *search.Filter, limit int) []string {
	hits := ix.vec.Search(q, f, limit+search.RerankMargin(limit), min(2, runtime.GOMAXPROCS(0)))
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = ix.vec.ID(h.Slot)
	}
	return ids
}

// lexicalRank is the BM25 ranking of a loaded index, as FTS5 computes
// it, with the scope's own row and token counts. The caller holds the
// read lock.
func lexicalRank(ix *scopeIdx, terms []string, f *search.Filter, limit int) ([]string, []float64) {
	chosen, postings := search.PickTerms(terms, ix.lex.DF)
	hits := ix.lex.Search(chosen, postings, f, limit)
	ids := make([]string, len(hits))
	scores := make([]float64, len(hits))
	for i, h := range hits {
		ids[i], scores[i] = ix.lex.ID(h.Slot), h.Score
	}
	return ids, scores
}

// lexicalCandidates are the lexical ranking's rows that pass the filter.
func lexicalCandidates(ids []string, scores []float64, found map[string]*memory.Memory, f *search.Filter, o memory.SearchOptions) []memory.Candidate {
	out := make([]memory.Candidate, 0, len(ids))
	for i, id := range ids {
		if m, ok := found[id]; ok && f.KeepMemory(m) {
			out = append(out, memory.Candidate{Memory: memory.SearchCopy(m, o), Score: scores[i]})
		}
	}
	return out
}

// vectorLocal is VectorSearch over the in-process index.
func (s *Store) vectorLocal(ctx context.Context, sc memory.Scope, vec []float32, o memory.SearchOptions, limit int) ([]memory.Candidate, error) {
	q, ok := search.Normalise(vec)
	if !ok {
		return nil, nil
	}
	f := search.NewFilter(o)
	ids, _, found, err := s.localSearch(ctx, sc, func(ix *scopeIdx) ([]string, []float64) {
		return vectorRank(ix, q, &f, limit), nil
	})
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return search.Rescore(q, ids, found, &f, limit, o), nil
}

// lexicalLocal is LexicalSearch over the in-process index.
func (s *Store) lexicalLocal(ctx context.Context, sc memory.Scope, terms []string, o memory.SearchOptions) ([]memory.Candidate, error) {
	f := search.NewFilter(o)
	limit := limitOf(o)
	ids, scores, found, err := s.localSearch(ctx, sc, func(ix *scopeIdx) ([]string, []float64) {
		return lexicalRank(ix, terms, &f, limit)
	})
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	return lexicalCandidates(ids, scores, found, &f, o), nil
}

// hybridLocal is HybridSearch over the in-process indexes: both rankings
// under one read lock (side by side), and one read for the rows of both.
func (s *Store) hybridLocal(ctx context.Context, sc memory.Scope, vec []float32, terms []string, o memory.SearchOptions) (vecOut, lexOut []memory.Candidate, err error) {
	q, hasVec := search.Normalise(vec)
	f := search.NewFilter(o)
	limit := limitOf(o)
	var (
		vids, lids []string
		lscores    []float64
	)
	_, _, found, err := s.localSearch(ctx, sc, func(ix *scopeIdx) ([]string, []float64) {
		vids, lids, lscores = nil, nil, nil
		var wg sync.WaitGroup
		if hasVec {
			wg.Go(func() { vids = vectorRank(ix, q, &f, limit) })
		}
		if len(terms) > 0 {
			lids, lscores = lexicalRank(ix, terms, &f, limit)
		}
		wg.Wait()
		union := append(make([]string, 0, len(vids)+len(lids)), vids...)
		seen := make(map[string]struct{}, len(vids))
		for _, id := range vids {
			seen[id] = struct{}{}
		}
		for _, id := range lids {
			if _, ok := seen[id]; !ok {
				union = append(union, id)
			}
		}
		return union, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("hybrid search: %w", err)
	}
	if hasVec {
		vecOut = search.Rescore(q, vids, found, &f, limit, o)
	}
	return vecOut, lexicalCandidates(lids, lscores, found, &f, o), nil
}
