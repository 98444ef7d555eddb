package sqlite

import (
	"context"
	"encoding/json"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// DefaultIndexBytes is the default bound on the memory the loaded scopes'
// search indexes hold (Options.IndexBytes).
const DefaultIndexBytes = search.DefaultBytes

// Options tune an SQLite store beyond the embedder it is opened for: its
// search engine's (IndexBytes bounds the loaded scopes' indexes, 0 meaning
// DefaultIndexBytes and negative no bound; Logger receives a debug line
// per unloaded scope). The zero value is the default.
type Options = search.Options

// IndexStats describe the loaded search indexes (Store.IndexStats).
type IndexStats = search.Stats

// source is the store's persistence as the search engine reads it.
type source struct{ s *Store }

var indexCols = sqlkit.SQLite.Rebind(sqlkit.IndexCols("seq", "embedding"))

func (src source) Load(ctx context.Context, sc memory.Scope, add func(search.Row)) error {
	return src.scan(ctx, add, `SELECT `+indexCols+` FROM memories WHERE user = ? AND namespace = ?`, sc.User, sc.Namespace)
}

func (src source) IndexRows(ctx context.Context, sc memory.Scope, ids []string, add func(search.Row)) error {
	cond, list := sqlkit.SQLite.In("id", ids)
	return src.scan(ctx, add, `SELECT `+indexCols+` FROM memories WHERE +user = ? AND +namespace = ? AND `+cond, sc.User, sc.Namespace, list)
}

var indexMetaCols = sqlkit.SQLite.Rebind(sqlkit.IndexMetaCols("seq"))

// IndexMeta reads the index metadata of ids still in the scope
// (search.MetaSource).
func (src source) IndexMeta(ctx context.Context, sc memory.Scope, ids []string, add func(string, int64, search.Meta)) error {
	cond, list := sqlkit.SQLite.In("id", ids)
	rows, err := src.s.db.QueryContext(ctx, `SELECT `+indexMetaCols+` FROM memories WHERE +user = ? AND +namespace = ? AND `+cond, sc.User, sc.Namespace, list)
	type meta struct {
		id  string
		seq int64
		m   search.Meta
	}
	return sqlkit.Each(rows, err, func(r sqlkit.Scanner) (x meta, err error) {
		x.id, x.seq, x.m, err = sqlkit.ScanIndexMeta(r)
		return x, err
	}, func(x meta) { add(x.id, x.seq, x.m) })
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
	return sqlkit.Each(rows, err, func(r sqlkit.Scanner) (search.Row, error) { return sqlkit.ScanIndexRow(sqlkit.SQLite, r) }, add)
}

// Count reports how many memories the scope holds, up to most+1
// (search.RowLoader).
func (src source) Count(ctx context.Context, sc memory.Scope, most int) (int, error) {
	return sqlkit.Count(ctx, src.s.Memories, sc, most+1)
}

// LoadRows is Load reading the rows whole, for the engine's row cache to
// keep (search.RowLoader).
func (src source) LoadRows(ctx context.Context, sc memory.Scope, add func(search.Row, *memory.Memory)) error {
	rows, err := src.s.db.QueryContext(ctx, `SELECT `+memCols+`, seq FROM memory_rows WHERE user = ? AND namespace = ?`, sc.User, sc.Namespace)
	type row struct {
		m   *memory.Memory
		seq int64
	}
	return sqlkit.Each(rows, err, func(r sqlkit.Scanner) (x row, err error) {
		x.m, err = sqlkit.ScanMemory(sqlkit.SQLite, r, &x.seq)
		return x, err
	}, func(x row) { add(search.RowOf(x.m, x.seq), x.m) })
}

var _ search.MetaSource = source{}
