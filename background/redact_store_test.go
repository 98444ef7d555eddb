package background

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

func newPGTarget(t testing.TB) string { return testpg.New(t) }

// TestRedactionEverywhere: with redaction on, no secret reaches any table
// of the database (queue rows included), before and after ingest.
func TestRedactionEverywhere(t *testing.T) {
	secrets := []string{"jane.doe@example.com", "+1 415-555-0132", "sk-proj-Zx9abcdefghijklmnopqrs", "eyJhbGciOiJIUzI1NiJ9abcdef"}
	forBackends(t, func(t *testing.T, backend string) {
		pol := defaultPolicyRedact()
		e := newEnv(t, backend, envOpts{pol: pol})
		s := scope("leo")
		ctx := context.Background()
		msgs := []string{
			"My email is jane.doe@example.com and my phone is +1 415-555-0132",
			"Please remember that my API key is sk-proj-Zx9abcdefghijklmnopqrs",
			"The gateway wants Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdef for the Zephyr project",
		}
		for _, m := range msgs {
			tu := e.turn(s, m, "Sure, I will use jane.doe@example.com.")
			tu.Session = "s1"
			if err := e.q.Enqueue(ctx, tu); err != nil {
				t.Fatal(err)
			}
		}
		scan := func(stage string) {
			t.Helper()
			for _, hit := range e.scanEverything(backend, secrets) {
				t.Errorf("%s: secret found: %s", stage, hit)
			}
		}
		scan("queued") // the queue's rows themselves
		e.wait()
		scan("ingested")
		if n := len(e.list(s, memory.StateAny)); n == 0 {
			t.Fatal("nothing stored: the scan proves nothing")
		}
	})
}

// scanTables reads every text-like column of every table in the database
// (the test's schema on PostgreSQL) and reports cells holding a secret.
func scanTables(t *testing.T, db *sql.DB, backend string, secrets []string) []string {
	t.Helper()
	return scanDB(t, db, backend, secrets, true)
}

// scanDB is scanTables; needJobs asks that River's tables be among them.
func scanDB(t *testing.T, db *sql.DB, backend string, secrets []string, needJobs bool) []string {
	t.Helper()
	var tables []string
	q := `SELECT name FROM sqlite_master WHERE type='table'`
	if backend == "postgres" {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type='BASE TABLE'`
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	if len(tables) < 3 && needJobs {
		t.Fatalf("found only tables %v", tables)
	}
	var hits []string
	sawJobs := false
	for _, tb := range tables {
		if strings.HasPrefix(tb, "river_job") {
			sawJobs = true
		}
		sel := fmt.Sprintf(`SELECT * FROM %q`, tb)
		rs, err := db.Query(sel)
		if err != nil {
			continue // virtual-table shadows that cannot be read whole
		}
		cols, _ := rs.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rs.Next() {
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				var s string
				switch x := v.(type) {
				case string:
					s = x
				case []byte:
					s = string(x)
				default:
					continue
				}
				for _, sec := range secrets {
					if strings.Contains(s, sec) || strings.Contains(s, strings.ReplaceAll(sec, "+", `\u002b`)) {
						hits = append(hits, tb+"."+cols[i])
					}
				}
			}
		}
		rs.Close()
	}
	if needJobs && !sawJobs {
		t.Fatalf("river_job not among tables %v", tables)
	}
	return hits
}

func defaultPolicyRedact() *policy.Policy {
	p := policy.Default()
	p.Ingest.Redact = policy.Redact{Email: true, Phone: true, APIKey: true}
	return p
}
