package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/scopeindex"
)

// vecIndex is one scope's vectors in memory (scopeindex.Vec) under its
// lock. It holds no text: everything returned is re-read from the
// database.
type vecIndex struct {
	mu     sync.RWMutex
	loaded bool
	v      *scopeindex.Vec
	// bytes is v.Estimate() as of the last change, for the index budget
	// (read without the lock).
	bytes atomic.Int64
}

// index returns the scope's index, creating an unloaded one, and marks
// the scope recently searched.
func (s *Store) index(sc memory.Scope) *vecIndex {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	s.touchLocked(sc)
	ix, ok := s.idx[sc]
	if !ok {
		ix = &vecIndex{v: scopeindex.NewVec(s.dim)}
		s.idx[sc] = ix
	}
	return ix
}

// loadedIndex returns the scope's index if a search has loaded it.
func (s *Store) loadedIndex(sc memory.Scope) *vecIndex {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	return s.idx[sc]
}

const vecCols = `id, tier, valid_to IS NOT NULL OR archived_at IS NOT NULL, coalesce(expires_at, 0), consolidated_at IS NOT NULL, embedding, seq`

// ensure loads the index from the database if it is not loaded; callers
// then take the read lock.
func (s *Store) ensure(ctx context.Context, sc memory.Scope, ix *vecIndex) error {
	ix.mu.RLock()
	ok := ix.loaded
	ix.mu.RUnlock()
	if ok {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.loaded {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+vecCols+` FROM memories WHERE user = ? AND namespace = ? AND embedding IS NOT NULL`,
		sc.User, sc.Namespace)
	if err != nil {
		return err
	}
	ix.reset()
	if err := ix.scanRows(rows); err != nil {
		ix.reset()
		return err
	}
	ix.loaded = true
	ix.bytes.Store(ix.v.Estimate())
	return nil
}

func (ix *vecIndex) reset() {
	ix.v.Reset()
	ix.loaded = false
	ix.bytes.Store(0)
}

func (ix *vecIndex) scanRows(rows *sql.Rows) error {
	defer rows.Close()
	for rows.Next() {
		var (
			id, tier   string
			dead, cons bool
			expires    int64
			emb        []byte
			seq        int64
		)
		if err := rows.Scan(&id, &tier, &dead, &expires, &cons, &emb, &seq); err != nil {
			return err
		}
		ix.upsert(id, seq, scopeindex.NewMeta(memory.Tier(tier), dead, expires, cons), emb)
	}
	return rows.Err()
}

// upsert indexes the row's vector (SQLite's encoding); one of the wrong
// size is dropped.
func (ix *vecIndex) upsert(id string, seq int64, m scopeindex.Meta, emb []byte) {
	if len(emb) != 4*ix.v.Dim() {
		ix.v.Remove(id)
		return
	}
	ix.v.Upsert(id, seq, m, decodeVec(emb))
}

// refresh re-reads the given ids of the scope's loaded indexes (vector and
// lexical) from the database after a write committed, and drops them from
// the row cache. Reading the current rows (not applying the write) makes
// it order-independent: whichever refresh runs last saw the latest state.
// On error an index is dropped and reloads on the next search.
func (s *Store) refresh(ctx context.Context, sc memory.Scope, ids []string) {
	s.rows.drop(ids)
	if len(ids) == 0 {
		return
	}
	ix, lx, unlock := s.lockLoaded(sc)
	defer unlock()
	if ix == nil && lx == nil {
		return
	}
	fail := func() {
		if ix != nil {
			ix.reset()
		}
		if lx != nil {
			lx.reset()
		}
	}
	// The write already committed: finish the refresh even if the
	// caller's context ends now.
	ctx = context.WithoutCancel(ctx)
	seen := make(map[string]bool, len(ids))
	for _, part := range chunks(ids, batchSize) {
		args := append([]any{sc.User, sc.Namespace}, anys(part)...)
		rows, err := s.query(ctx, `SELECT `+vecCols+`, text, context FROM memories WHERE +user = ? AND +namespace = ? AND id IN (`+
			placeholders(len(part))+`)`, args...)
		if err != nil {
			fail()
			return
		}
		for rows.Next() {
			var (
				id, tier      string
				dead, cons    bool
				expires       int64
				emb           []byte
				seq           int64
				text, context string
			)
			if err := rows.Scan(&id, &tier, &dead, &expires, &cons, &emb, &seq, &text, &context); err != nil {
				rows.Close()
				fail()
				return
			}
			seen[id] = true
			m := scopeindex.NewMeta(memory.Tier(tier), dead, expires, cons)
			if ix != nil {
				ix.upsert(id, seq, m, emb)
			}
			if lx != nil {
				mm := memory.Memory{Text: text, Context: context}
				lx.x.Upsert(id, seq, m, mm.SearchText())
			}
		}
		if err := rows.Close(); err != nil || rows.Err() != nil {
			fail()
			return
		}
	}
	for _, id := range ids {
		if !seen[id] {
			if ix != nil {
				ix.v.Remove(id)
			}
			if lx != nil {
				lx.x.Remove(id)
			}
		}
	}
}

// lockLoaded write-locks the scope's loaded indexes (nil for one not
// loaded); unlock notes their new sizes, releases them and then accounts
// for the scope in the index budget.
func (s *Store) lockLoaded(sc memory.Scope) (*vecIndex, *lexIndex, func()) {
	ix, lx := s.loadedIndex(sc), s.loadedLexIndex(sc)
	if ix == nil && lx == nil {
		return nil, nil, func() {}
	}
	if ix != nil {
		ix.mu.Lock()
	}
	if lx != nil {
		lx.mu.Lock()
	}
	unlock := func() {
		if ix != nil {
			ix.bytes.Store(ix.v.Estimate())
			ix.mu.Unlock()
		}
		if lx != nil {
			lx.bytes.Store(lx.x.Estimate())
			lx.mu.Unlock()
		}
		s.account(sc)
	}
	if ix != nil && !ix.loaded {
		ix.mu.Unlock()
		ix = nil
	}
	if lx != nil && !lx.loaded {
		lx.mu.Unlock()
		lx = nil
	}
	return ix, lx, unlock
}

// writtenRow is a row as the transaction that wrote it left it.
type writtenRow struct {
	id   string
	seq  int64
	meta scopeindex.Meta
	emb  []byte
	text string // memory.Memory.SearchText
}

// refreshWritten applies rows a transaction just committed to the scope's
// loaded indexes without reading them back. The caller must still hold
// writeMu: refresh re-reads rows because it runs after the lock is
// released, when a later write of the same rows may already have been
// applied; under the lock none can have committed.
func (s *Store) refreshWritten(sc memory.Scope, rows []writtenRow) {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	s.rows.drop(ids)
	ix, lx, unlock := s.lockLoaded(sc)
	defer unlock()
	for _, r := range rows {
		if ix != nil {
			ix.upsert(r.id, r.seq, r.meta, r.emb)
		}
		if lx != nil {
			lx.x.Upsert(r.id, r.seq, r.meta, r.text)
		}
	}
}

// forgetUser unloads every index of user (of namespace ns when not empty)
// after a deletion committed.
func (s *Store) forgetUser(user, ns string) {
	s.rows.dropUser(user, ns)
	s.idxMu.Lock()
	var drop []unloaded
	for _, sc := range s.budget.Scopes() {
		if sc.User == user && (ns == "" || sc.Namespace == ns) {
			drop = append(drop, s.unloadLocked(sc))
		}
	}
	s.idxMu.Unlock()
	for _, v := range drop {
		v.reset()
	}
}
