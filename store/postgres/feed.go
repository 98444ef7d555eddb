package postgres

import (
	"context"
	"strconv"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// Options tune a PostgreSQL store beyond the embedder it is opened for:
// its search engine (search.Options: IndexBytes bounds the in-process
// indexes, 0 meaning search.DefaultBytes and negative no bound; Logger
// receives a debug line per unloaded scope) and its pools (zero: the
// defaults). The zero value is the default.
type Options struct {
	search.Options
	Pool Pool
}

// feed is the store as the search engine reads it (search.Feed): the
// rows by id with the change feed of migrations 7 and 8. Each memories
// row carries the transaction that last changed what a search reads of
// it (xid) and a version (ver); a deleted row leaves its id and deleting
// transaction in memory_deletions. A position is the snapshot of a read
// (search.Snapshot): a read brings every row stamped by a transaction
// that snapshot could not see.
type feed struct{ s *Store }

// snapshotQuery is the statement's snapshot as xmin:xmax:xip,... (the
// text form of pg_snapshot, search.ParseSnapshot).
const snapshotQuery = `SELECT pg_current_snapshot()::text`

func (f feed) Start(ctx context.Context) (search.Mark, error) {
	var snap string
	if err := f.s.db.QueryRowContext(ctx, snapshotQuery).Scan(&snap); err != nil {
		return nil, err
	}
	return search.ParseSnapshot(snap)
}

func (f feed) Count(ctx context.Context, sc memory.Scope, bound int) (int, error) {
	return sqlkit.Count(ctx, f.s.Memories, sc, bound)
}

// indexCols are the columns the index reads of a row at load (its
// creation time is the lexical order) and its version.
func (s *Store) indexCols() string {
	emb := "halfvec_send(embedding::halfvec)"
	if s.vecTyp == "halfvec" {
		emb = "halfvec_send(embedding)"
	}
	return sqlkit.IndexCols("created_at", emb) + `, ver`
}

func (f feed) Load(ctx context.Context, sc memory.Scope, whole bool, add func(search.Row, *memory.Memory, int64)) error {
	type row struct {
		r   search.Row
		m   *memory.Memory
		ver int64
	}
	scan := func(r sqlkit.Scanner) (x row, err error) {
		x.r, err = sqlkit.ScanIndexRow(sqlkit.Postgres, r, &x.ver)
		return x, err
	}
	q := `SELECT ` + f.s.indexCols() + ` FROM memories WHERE user_id = $1 AND namespace = $2`
	if whole { // the memories whole, for the row cache
		q = `SELECT ` + f.s.cols + `, ver FROM memory_rows WHERE user_id = $1 AND namespace = $2`
		scan = func(r sqlkit.Scanner) (x row, err error) {
			x.m, err = sqlkit.ScanMemory(sqlkit.Postgres, r, &x.ver)
			return x, err
		}
	}
	rows, err := f.s.db.QueryContext(ctx, q, sc.User, sc.Namespace)
	return sqlkit.Each(rows, err, scan, func(x row) { add(x.r, x.m, x.ver) })
}

// tombstoneCols shape a memory_deletions row as sqlkit.MemCols, for the
// UNION with the rows a search reads.
const tombstoneCols = `user_id, namespace, id, '', '', NULL::bytea, 0::float8, 0::float8, '', '{}'::jsonb, '', '', false,
	now(), now(), 0, now(), NULL::timestamptz, '', NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, '', ''`

// usageCols shape a row's usage counters as sqlkit.MemCols (the rest
// empty), for the UNION with the rows a search reads: what a cached row
// whose search.RowTTL passed reads again.
const usageCols = `user_id, namespace, id, '', '', NULL::bytea, 0::float8, 0::float8, '', '{}'::jsonb, '', '', false,
	now(), last_used_at, hits, now(), NULL::timestamptz, '', NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, '', ''`

// readQuery is Read's statement. It is prepared (Store.readStmt) on
// connections set to plan_cache_mode=force_generic_plan, so each
// connection plans it once: planned for each search, as the server does
// for a custom plan, and does for this statement since the generic plan's
// estimate is the higher, it cost 0.35 ms of the server's time against
// 0.1 ms to run; the generic plan (partitions pruned as it starts) runs
// in 0.2 ms and plans in 0.03. Its parameters: the scope, the mark's xmax
// and running list, the ids wanted whole and those whose counters are.
// A deletion comes at version -1 (search.VerGone), a row's counters at -2
// (search.VerUsage).
//
// Each branch is bound by one index whatever the statistics: the rows
// stamped since the mark through memories_changed (a range from the
// least of xmax and the running transactions' xids, the rest filtered),
// the ids wanted through the primary key, the deletions through
// memory_deletions_scope. As one branch with "xid >= ... OR xid = ANY
// ... OR id = ANY ...", the generic plan could only bind the scope and
// filter the rest: on a database with few users it read a 100k scope
// whole at every search (1.1 s, docs/benchmarks.md).
func (s *Store) readQuery() string {
	const changed = `xid >= (SELECT least($3::xid8, min(x)) FROM unnest($4::xid8[]) x)
		AND (xid >= $3::xid8 OR xid = ANY($4::xid8[]))`
	return `SELECT ` + s.cols + `, (` + snapshotQuery + `), true, ver
		FROM memory_rows WHERE user_id = $1 AND namespace = $2 AND ` + changed + `
		UNION ALL SELECT ` + s.cols + `, (` + snapshotQuery + `), false, ver
		FROM memory_rows WHERE user_id = $1 AND namespace = $2 AND id = ANY($5) AND NOT (xid >= $3::xid8 OR xid = ANY($4::xid8[]))
		UNION ALL SELECT ` + tombstoneCols + `, (` + snapshotQuery + `), true, -1
		FROM memory_deletions WHERE user_id = $1 AND namespace = $2 AND ` + changed + `
		UNION ALL SELECT ` + usageCols + `, (` + snapshotQuery + `), false, -2
		FROM memory_rows WHERE user_id = $1 AND namespace = $2 AND id = ANY($6)`
}

// Read reads, in one statement, the rows need, the counters of stale and
// every row stamped (changed or deleted) by a transaction since's
// snapshot could not see.
func (f feed) Read(ctx context.Context, sc memory.Scope, since search.Mark, need, stale []string) (search.Delta, error) {
	var d search.Delta
	mark, _ := since.(search.Snapshot)
	// pq.Array sends a nil slice as NULL, and "xid = ANY(NULL)" is NULL:
	// the running list goes as an array, empty or not.
	rows, err := f.s.readStmt.QueryContext(ctx, sc.User, sc.Namespace, strconv.FormatUint(mark.Xmax, 10),
		pq.Array(append([]string{}, mark.Running...)), pq.Array(need), pq.Array(stale))
	if err != nil {
		return d, err
	}
	defer rows.Close()
	var snap string
	for rows.Next() {
		var (
			isNew   bool
			version int64
		)
		m, err := sqlkit.ScanMemory(sqlkit.Postgres, rows, &snap, &isNew, &version)
		if err != nil {
			return d, err
		}
		d.Add(m, version, isNew)
	}
	if err := rows.Err(); err != nil {
		return d, err
	}
	// Only a read that returned a row says what its snapshot was; one
	// that returned none has nothing to apply either.
	if snap != "" {
		next, err := search.ParseSnapshot(snap)
		if err != nil {
			return d, err
		}
		d.Next = next
	}
	return d, nil
}
