package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// Options tune a PostgreSQL store beyond the embedder it is opened for.
// The zero value is the default.
type Options struct {
	// IndexBytes bounds the estimated memory of the in-process search
	// indexes (search.Options.IndexBytes): 0 means search.DefaultBytes
	// (512 MiB), negative means no bound.
	IndexBytes int64
	// Logger receives a debug line per unloaded scope; nil discards.
	Logger *slog.Logger
	// Pool bounds connections and their timeouts (zero: the defaults).
	Pool Pool
}

// feed is the store as the search engine reads it (search.Feed): the
// rows by id with the change feed of migrations 7 and 8. Each memories
// row carries the transaction that last changed what a search reads of
// it (xid) and a version (ver); a deleted row leaves its id and deleting
// transaction in memory_deletions. A position (snapMark) is what a read's
// snapshot could not see: transactions still running then, and every one
// from its xmax on. Those are exactly the transactions whose writes that
// read could not see, so nothing committed is ever skipped, however long
// a transaction runs, and nothing is read again once seen.
type feed struct{ s *Store }

// snapMark is what a read's snapshot could not see: transactions still
// running (xip) and every one from xmax on. A row whose stamp is among
// them is read again; any other was committed (or aborted) before the
// snapshot and read then, or before.
type snapMark struct {
	xmax uint64
	xip  []string // decimal xid8s
}

// Newer reports whether m is a later snapshot than o: a larger xmax, or
// the same xmax with fewer transactions still running (a later snapshot's
// running set at the same xmax is a subset of an earlier one's).
func (m snapMark) Newer(o search.Mark) bool {
	om, ok := o.(snapMark)
	return !ok || m.xmax > om.xmax || (m.xmax == om.xmax && len(m.xip) < len(om.xip))
}

// snapshotQuery is the statement's snapshot as xmin:xmax:xip,... (the
// text form of pg_snapshot).
const snapshotQuery = `SELECT pg_current_snapshot()::text`

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

func (f feed) Start(ctx context.Context) (search.Mark, error) {
	var snap string
	if err := f.s.db.QueryRowContext(ctx, snapshotQuery).Scan(&snap); err != nil {
		return nil, err
	}
	return parseSnapshot(snap)
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
		x.r, err = sqlkit.ScanIndexRow(sqlkit.Postgres, r, f.s.opts.Dim, &x.ver)
		return x, err
	}
	q := `SELECT ` + f.s.indexCols() + ` FROM memories WHERE user_id = $1 AND namespace = $2`
	if whole { // the memories whole, for the row cache
		q = `SELECT ` + f.s.cols + `, ver FROM memory_rows WHERE user_id = $1 AND namespace = $2`
		scan = func(r sqlkit.Scanner) (x row, err error) {
			if x.m, err = sqlkit.ScanMemory(sqlkit.Postgres, r, &x.ver); err == nil {
				x.r = search.RowOf(x.m, x.m.CreatedAt.UnixMicro())
			}
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
	mark, _ := since.(snapMark)
	// pq.Array sends a nil slice as NULL, and "xid = ANY(NULL)" is NULL:
	// the running list goes as an array, empty or not.
	rows, err := f.s.readStmt.QueryContext(ctx, sc.User, sc.Namespace, strconv.FormatUint(mark.xmax, 10),
		pq.Array(append([]string{}, mark.xip...)), pq.Array(need), pq.Array(stale))
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
		switch version {
		case -1:
			d.Gone = append(d.Gone, m.ID)
		case -2:
			if d.Usage == nil {
				d.Usage = make(map[string]*memory.Memory, len(stale))
			}
			d.Usage[m.ID] = m
		default:
			d.Rows = append(d.Rows, search.FeedRow{M: m, Ver: version, Changed: isNew})
		}
	}
	if err := rows.Err(); err != nil {
		return d, err
	}
	// Only a read that returned a row says what its snapshot was; one
	// that returned none has nothing to apply either.
	if snap != "" {
		next, err := parseSnapshot(snap)
		if err != nil {
			return d, err
		}
		d.Next = next
	}
	return d, nil
}
