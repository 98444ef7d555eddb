package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// TestLookupsUseTheIDIndex guards the id lookups: without the unary plus on
// the scope columns SQLite's planner prefers the scope index and scans the
// whole scope for every GetMany.
func TestLookupsUseTheIDIndex(t *testing.T) {
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), memory.OpenOptions{Model: "m", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	byIDs, _ := sqlkit.SQLite.ByIDs(memory.Scope{User: "u", Namespace: "n"}, nil)
	in, _ := sqlkit.SQLite.In("id", []string{"a", "b", "c"})
	for _, q := range []string{
		`SELECT ` + memCols + ` FROM memory_rows WHERE +user = ? AND +namespace = ? AND ` + in,
		`UPDATE memories SET valid_to = 1 WHERE ` + byIDs,
		`SELECT ` + memCols + ` FROM memory_rows WHERE +user = ? AND +namespace = ? AND id = ?`,
	} {
		plan := queryPlan(t, st, q, "u", "n", `["a","b","c"]`)
		if p := strings.Join(plan, "; "); !strings.Contains(p, "sqlite_autoindex_memories") {
			t.Errorf("plan for %q does not use the id index: %s", q, p)
		}
	}
}

// TestBatchTouchUsesTheIDIndex: a batch's touches, added up in one
// statement a scope, find each memory by its id, and a read of whole
// memories finds each one's usage row by its key.
func TestBatchTouchUsesTheIDIndex(t *testing.T) {
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), memory.OpenOptions{Model: "m", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plan := queryPlan(t, st, touchSQL, "u", "n", `[["a",1,5],["b",2,6]]`)
	if p := strings.Join(plan, "; "); !strings.Contains(p, "USING COVERING INDEX sqlite_autoindex_memories") || strings.Contains(p, "SCAN m") {
		t.Errorf("the batch touch does not check ids against the id index alone: %s", p)
	}
	in, _ := sqlkit.SQLite.In("id", []string{"a"})
	plan = queryPlan(t, st, `SELECT `+memCols+` FROM memory_rows WHERE +user = ? AND +namespace = ? AND `+in, "u", "n", `["a"]`)
	if p := strings.Join(plan, "; "); !strings.Contains(p, "SEARCH u USING PRIMARY KEY") {
		t.Errorf("a read does not look its usage row up by key: %s", p)
	}
}

// TestKeyLookupsUseTheKeyIndex guards History (every fact the background
// reconciles): the key index is partial, and without its condition in the
// query SQLite walks the scope's rows instead.
func TestKeyLookupsUseTheKeyIndex(t *testing.T) {
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), memory.OpenOptions{Model: "m", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plan := queryPlan(t, st, `SELECT `+memCols+` FROM memory_rows WHERE `+sqlkit.SQLite.Rebind(sqlkit.HistoryWhere)+` ORDER BY valid_from, created_at, id`, "u", "n", "user.name")
	if p := strings.Join(plan, "; "); !strings.Contains(p, "memories_scope_key") {
		t.Errorf("History's plan does not use the key index: %s", p)
	}
}

// queryPlan is the detail column of EXPLAIN QUERY PLAN for q with args.
func queryPlan(t *testing.T, st interface{ DB() *sql.DB }, q string, args ...any) []string {
	t.Helper()
	rows, err := st.DB().Query(`EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return plan
}

// TestSpoolLeasesUseTheLeasedIndex: the lease bookkeeping (a claim's
// check for another worker's lease, complete, release, renew) reads a
// scope's leased rows through spool_leased, never the scope's whole
// backlog of pending ones through spool_pending, which made a drain
// round's cost grow with the backlog (BenchmarkSpoolClaim).
func TestSpoolLeasesUseTheLeasedIndex(t *testing.T) {
	p, err := OpenSpool(context.Background(), SpoolPath(filepath.Join(t.TempDir(), "m.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	in, _ := sqlkit.SQLite.In("tid", []string{"a", "b"})
	for _, q := range []string{
		`SELECT count(*) FROM (SELECT 1 FROM spool WHERE user = ? AND namespace = ? AND done = 0 AND owner <> '' AND owner <> ? AND lease_until > ? LIMIT 1) b`,
		`UPDATE spool SET done = true, data = NULL, owner = '', lease_until = 0, done_at = ? WHERE ` + in + ` AND user = ? AND namespace = ? AND done = 0 AND owner <> '' AND owner = ?`,
		`UPDATE spool SET lease_until = ? WHERE user = ? AND namespace = ? AND done = 0 AND owner <> '' AND owner = ?`,
	} {
		plan := queryPlan(t, p, q, 1, 2, 3, 4, 5)
		if p := strings.Join(plan, "; "); !strings.Contains(p, "USING INDEX spool_leased") {
			t.Errorf("plan for %q does not read the leased rows alone: %s", q, p)
		}
	}
}
