package sqlite

import (
	"context"
	"database/sql"
	"errors"
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
// memories_fts is still written and stays the reference: the ranking uses
// its table-wide row and token counts (FTS5's BM25 does), so scores are
// FTS5's, and TestLexicalIndexMatchesFTS5 compares the two. Like the vector
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
	t   scopeindex.Totals
}

// totals returns FTS5's table-wide row and token counts.
func (s *Store) totals(ctx context.Context) (scopeindex.Totals, error) {
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
func (s *Store) readTotals(ctx context.Context) (scopeindex.Totals, error) {
	var blob []byte
	err := s.queryRow(ctx, `SELECT block FROM memories_fts_data WHERE id = ?`, ftsAveragesRowid).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return scopeindex.Totals{}, nil
	}
	if err != nil {
		return scopeindex.Totals{}, err
	}
	// One column (lex): the row count, then its token total. A short
	// record (no rows) reads as zeros, as in FTS5.
	var t scopeindex.Totals
	var n int
	t.Rows, n = ftsVarint(blob)
	t.Tokens, _ = ftsVarint(blob[n:])
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
