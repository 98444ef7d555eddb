package sqlite

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// DefaultIndexBytes is the default bound on the memory the loaded scopes'
// search indexes hold (Options.IndexBytes).
const DefaultIndexBytes = search.DefaultBytes

// Options tune an SQLite store beyond the embedder it is opened for. The
// zero value is the default.
type Options struct {
	// IndexBytes bounds the estimated memory of the per-scope search
	// indexes (search.Options.IndexBytes): 0 means DefaultIndexBytes,
	// negative means no bound.
	IndexBytes int64
	// Logger receives a debug line per unloaded scope; nil discards.
	Logger *slog.Logger
}

// IndexStats describe the loaded search indexes (Store.IndexStats).
type IndexStats = search.Stats

// source is the store's persistence as the search engine reads it.
type source struct{ s *Store }

const indexCols = `id, seq, tier, valid_to IS NOT NULL OR archived_at IS NOT NULL, coalesce(expires_at, 0), consolidated_at IS NOT NULL, embedding, text, context`

func (src source) Load(ctx context.Context, sc memory.Scope, add func(search.Row)) error {
	return src.scan(ctx, add, `SELECT `+indexCols+` FROM memories WHERE user = ? AND namespace = ?`, sc.User, sc.Namespace)
}

func (src source) IndexRows(ctx context.Context, sc memory.Scope, ids []string, add func(search.Row)) error {
	cond, list := sqlkit.SQLite.In("id", ids)
	return src.scan(ctx, add, `SELECT `+indexCols+` FROM memories WHERE +user = ? AND +namespace = ? AND `+cond, sc.User, sc.Namespace, list)
}

// Memories reads the rows by rowid (one B-tree seek each, where an id
// costs two), keyed by id, so a rowid reused by another row names that
// row, not the one asked for.
func (src source) Memories(ctx context.Context, sc memory.Scope, _ []string, seqs []int64) (map[string]*memory.Memory, error) {
	list, _ := json.Marshal(seqs)
	return sqlkit.ReadIn(ctx, src.s.Memories, sc, "seq IN (SELECT value FROM json_each(?))", string(list))
}

func (src source) scan(ctx context.Context, add func(search.Row), q string, args ...any) error {
	rows, err := src.s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			r             search.Row
			tier          string
			dead, cons    bool
			expires       int64
			emb           []byte
			text, context string
		)
		if err := rows.Scan(&r.ID, &r.Seq, &tier, &dead, &expires, &cons, &emb, &text, &context); err != nil {
			return err
		}
		r.Meta = search.NewMeta(memory.Tier(tier), dead, expires, cons)
		if len(emb) == 4*src.s.dim {
			r.Vec, _ = sqlkit.FromLittleEndian(emb)
		}
		mm := memory.Memory{Text: text, Context: context}
		r.Text = mm.SearchText()
		add(r)
	}
	return rows.Err()
}

// Count reports how many memories the scope holds, up to most+1
// (search.RowLoader).
func (src source) Count(ctx context.Context, sc memory.Scope, most int) (int, error) {
	return sqlkit.Count(ctx, src.s.Memories, sc, most+1)
}

// LoadRows is Load reading the rows whole, for the engine's row cache to
// keep (search.RowLoader).
func (src source) LoadRows(ctx context.Context, sc memory.Scope, add func(search.Row, *memory.Memory)) error {
	rows, err := src.s.db.QueryContext(ctx, `SELECT seq, `+memCols+` FROM memories WHERE user = ? AND namespace = ?`, sc.User, sc.Namespace)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		m, err := sqlkit.SQLite.ScanMemory(seqScanner{rows, &seq})
		if err != nil {
			return err
		}
		r := search.RowOf(m, seq)
		if len(m.Embedding) != src.s.dim {
			r.Vec = nil
		}
		add(r, m)
	}
	return rows.Err()
}

// seqScanner scans the row's seq before the memory's columns.
type seqScanner struct {
	r   sqlkit.Scanner
	seq *int64
}

func (s seqScanner) Scan(dest ...any) error { return s.r.Scan(append([]any{s.seq}, dest...)...) }
