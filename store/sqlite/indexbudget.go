package sqlite

import (
	"context"
	"log/slog"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/scopeindex"
)

// DefaultIndexBytes is the default bound on the memory the loaded scopes'
// search indexes hold (Options.IndexBytes).
const DefaultIndexBytes = scopeindex.DefaultBytes

// Options tune an SQLite store beyond the embedder it is opened for. The
// zero value is the default.
type Options struct {
	// IndexBytes bounds the estimated memory of the per-scope search
	// indexes (vector and lexical) loaded by searches. Past it, the least
	// recently searched scopes are unloaded; such a scope reloads from the
	// database on its next search, as on its first. The scope being
	// searched is never unloaded, so one scope larger than the bound still
	// works. 0 means DefaultIndexBytes; negative means no bound.
	IndexBytes int64
	// Logger receives a debug line per unloaded scope; nil discards.
	Logger *slog.Logger
}

// IndexStats describe the loaded search indexes (Store.IndexStats).
type IndexStats = scopeindex.Stats

// The index budget (Store.budget, guarded by Store.idxMu) tracks the
// loaded scopes in least recently searched order; the sizes it sums are
// the indexes' own (vecIndex.bytes, lexIndex.bytes), noted by account.
//
// Unloading a scope removes its indexes from Store.idx and Store.lex and
// then resets them under their write locks: a search already holding one
// finishes with it first, and one that took it just before finds it
// unloaded and starts over (rlockIndex). A write's refresh reaches only
// the indexes in the maps after its commit, so an index removed before
// it is never used again except by searches that started before the
// write returned, and a scope loaded again afterwards reads the committed
// rows: the refresh guarantees (see refresh) are unchanged.

// touchLocked marks sc most recently searched, adding its entry; the
// caller holds idxMu.
func (s *Store) touchLocked(sc memory.Scope) { s.budget.Touch(sc) }

// account notes the current size of sc's indexes and unloads the least
// recently searched other scopes while the total exceeds the bound. The
// caller holds no index lock.
func (s *Store) account(sc memory.Scope) {
	s.idxMu.Lock()
	var n int64
	if ix := s.idx[sc]; ix != nil {
		n += ix.bytes.Load()
	}
	if lx := s.lex[sc]; lx != nil {
		n += lx.bytes.Load()
	}
	var victims []unloaded
	for _, v := range s.budget.Account(sc, n) {
		victims = append(victims, s.unloadLocked(v.Scope))
		s.log.Debug("sqlite: unloaded search indexes over budget", "user", v.Scope.User, "namespace", v.Scope.Namespace,
			"bytes", v.Bytes, "total", v.Total)
	}
	s.idxMu.Unlock()
	for _, v := range victims {
		v.reset()
	}
}

// unloaded is a scope's indexes taken out of the maps, to reset.
type unloaded struct {
	ix *vecIndex
	lx *lexIndex
}

// unloadLocked removes sc's indexes from the maps and the budget; the
// caller holds idxMu and then resets them (without it).
func (s *Store) unloadLocked(sc memory.Scope) unloaded {
	s.budget.Remove(sc)
	v := unloaded{s.idx[sc], s.lex[sc]}
	delete(s.idx, sc)
	delete(s.lex, sc)
	return v
}

// reset empties the indexes once searches holding them are done.
func (v unloaded) reset() {
	if v.ix != nil {
		v.ix.mu.Lock()
		v.ix.reset()
		v.ix.mu.Unlock()
	}
	if v.lx != nil {
		v.lx.mu.Lock()
		v.lx.reset()
		v.lx.mu.Unlock()
	}
}

// rlockIndex returns sc's vector index loaded and read-locked.
func (s *Store) rlockIndex(ctx context.Context, sc memory.Scope) (*vecIndex, error) {
	for {
		ix := s.index(sc)
		if err := s.ensure(ctx, sc, ix); err != nil {
			return nil, err
		}
		s.account(sc)
		ix.mu.RLock()
		if ix.loaded {
			return ix, nil
		}
		// Unloaded between the load and the lock: take the map's.
		ix.mu.RUnlock()
	}
}

// rlockLexIndex returns sc's lexical index loaded and read-locked.
func (s *Store) rlockLexIndex(ctx context.Context, sc memory.Scope) (*lexIndex, error) {
	for {
		lx := s.lexIndexFor(sc)
		if err := s.ensureLex(ctx, sc, lx); err != nil {
			return nil, err
		}
		s.account(sc)
		lx.mu.RLock()
		if lx.loaded {
			return lx, nil
		}
		lx.mu.RUnlock()
	}
}

// IndexStats reports the loaded search indexes against their bound.
func (s *Store) IndexStats() IndexStats {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	return s.budget.Stats()
}

func logOrDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
