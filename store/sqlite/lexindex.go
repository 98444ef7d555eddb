package sqlite

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/scopeindex"
)

// lexIndex is one scope's lexical index in memory (scopeindex.Lex) under
// its lock: an inverted index over the same tokens memories_fts holds
// (memory.LexicalForm of text and context), ranked with FTS5's own BM25.
// Ranking in FTS5 read every match's size from its docsize table and
// walked each phrase's instances through the pure Go build of SQLite,
// which made lexical search the costliest half of recall; here it is a
// few hundred additions.
//
// memories_fts is still written and stays the reference for the formula:
// BM25 as FTS5 computes it, but with the scope's own row and token counts
// where FTS5 uses the whole table's, so one user's memories never move
// another's scores (and both stores score alike; LoCoMo dev R@5 0.705 →
// 0.714, @10 0.806 → 0.825). With one scope in the table the two agree,
// which TestLexicalIndexMatchesFTS5 checks. Like the vector
// index, the index is loaded on the scope's first search and kept coherent
// by re-reading the rows each write of this store touched; candidates are
// read from the row cache or the database, never from the index.
type lexIndex struct {
	mu     sync.RWMutex
	loaded bool
	x      *scopeindex.Lex
	// bytes is x.Estimate() as of the last change (see vecIndex.bytes).
	bytes atomic.Int64
}

// lexIndexFor returns the scope's lexical index, creating an unloaded
// one, and marks the scope recently searched.
func (s *Store) lexIndexFor(sc memory.Scope) *lexIndex {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	s.touchLocked(sc)
	lx, ok := s.lex[sc]
	if !ok {
		lx = &lexIndex{x: scopeindex.NewLex()}
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
		lx.x.Upsert(id, seq, m, text)
	}
	if err := rows.Err(); err != nil {
		lx.reset()
		return err
	}
	lx.loaded = true
	lx.bytes.Store(lx.x.Estimate())
	return nil
}

func scanLexRow(r scanner) (id string, seq int64, m scopeindex.Meta, searchText string, err error) {
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
	return id, seq, scopeindex.NewMeta(memory.Tier(tier), dead, expires, cons), mm.SearchText(), nil
}

// reset empties the index (unloaded); the caller holds the write lock.
func (lx *lexIndex) reset() {
	lx.x.Reset()
	lx.loaded = false
	lx.bytes.Store(0)
}
