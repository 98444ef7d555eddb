package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/policy"
)

// fixtureDone marks a kept PostgreSQL fixture schema as completely loaded.
const fixtureDone = "bench.overhead.fixture"

// pgFixture prepares the run's schema on PostgreSQL: the users' memories
// are loaded once into a kept fixture schema (<pg-schema>_fx_<key>), and
// each run copies its tables into an empty run schema, table by table in
// SQL, so a run never starts from what an earlier run ingested. drop
// removes the run schema.
func pgFixture(ctx context.Context, o *overheadOpts, c *benchCorpus, pol *policy.Policy, log io.Writer) (dsn string, drop func(), cached bool, err error) {
	prefix := o.PGSchema + "_fx_"
	fx := prefix + fixtureKey(o, c, pol)
	existed, err := pgSchemaExists(ctx, o.DatabaseURL, fx)
	if err != nil {
		return "", nil, false, err
	}
	fxDSN, _, err := pgBenchSchema(ctx, o.DatabaseURL, fx, false)
	if err != nil {
		return "", nil, false, err
	}
	done := false
	if existed {
		// Opening the fixture migrates it to this build's schema first.
		if done, err = pgFixtureDone(ctx, fxDSN, pol); err != nil {
			return "", nil, false, err
		}
	}
	if !done {
		fmt.Fprintf(log, "bench overhead: postgres: loading the kept fixture %s…\n", fx)
		if err := pgDropSchemas(ctx, o.DatabaseURL, prefix); err != nil {
			return "", nil, false, err
		}
		if fxDSN, _, err = pgBenchSchema(ctx, o.DatabaseURL, fx, true); err != nil {
			return "", nil, false, err
		}
		if err := loadFixtureApp(ctx, &app.Options{DatabaseURL: fxDSN}, pol, c, o, fixtureDone); err != nil {
			return "", nil, false, err
		}
		if err := pgAnalyze(ctx, o.DatabaseURL, fx); err != nil {
			return "", nil, false, err
		}
	}
	dsn, dropRun, err := pgBenchSchema(ctx, o.DatabaseURL, o.PGSchema, true)
	if err != nil {
		return "", nil, false, err
	}
	ok := false
	defer func() {
		if !ok {
			dropRun()
		}
	}()
	// The run schema gets its tables from the migrations, then the rows.
	if err := loadFixtureApp(ctx, &app.Options{DatabaseURL: dsn}, pol, c, &overheadOpts{}, ""); err != nil {
		return "", nil, false, err
	}
	t := time.Now()
	err = pgCopySchema(ctx, o.DatabaseURL, fx, o.PGSchema)
	fmt.Fprintf(log, "bench overhead: postgres: copied %s in %.1f s\n", fx, time.Since(t).Seconds())
	if errors.Is(err, errNoCopy) {
		fmt.Fprintf(log, "bench overhead: postgres: %v; loading afresh\n", err)
		done = false
		if err := loadFixtureApp(ctx, &app.Options{DatabaseURL: dsn}, pol, c, o, ""); err != nil {
			return "", nil, false, err
		}
	} else if err != nil {
		return "", nil, false, err
	}
	t = time.Now()
	if err := pgAnalyze(ctx, o.DatabaseURL, o.PGSchema); err != nil {
		return "", nil, false, err
	}
	fmt.Fprintf(log, "bench overhead: postgres: analyzed in %.1f s\n", time.Since(t).Seconds())
	ok = true
	return dsn, dropRun, done, nil
}

func pgFixtureDone(ctx context.Context, dsn string, pol *policy.Policy) (bool, error) {
	a, err := app.New(ctx, app.Options{Upstream: "http://127.0.0.1:9/v1", DatabaseURL: dsn, Policy: pol, Logger: discardLogger(), NoWorkers: true})
	if err != nil {
		return false, err
	}
	defer a.Close()
	v, ok, err := a.Store.Meta(ctx, fixtureDone)
	return ok && v == "complete", err
}

func pgSchemaExists(ctx context.Context, base, schema string) (bool, error) {
	db, err := sql.Open("postgres", base)
	if err != nil {
		return false, err
	}
	defer db.Close()
	names, err := pgStrings(ctx, db, `SELECT nspname FROM pg_namespace WHERE nspname = $1`, schema)
	return len(names) > 0, err
}

// pgDropSchemas drops every schema whose name starts with prefix (kept
// fixtures of other corpora, sizes or months).
func pgDropSchemas(ctx context.Context, base, prefix string) error {
	db, err := sql.Open("postgres", base)
	if err != nil {
		return err
	}
	defer db.Close()
	names, err := pgStrings(ctx, db, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`, prefix)
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, err := db.ExecContext(ctx, `DROP SCHEMA `+pq.QuoteIdentifier(n)+` CASCADE`); err != nil {
			return err
		}
	}
	return nil
}

// errNoCopy: the role may not copy a schema's rows without their triggers
// (session_replication_role needs a superuser or, from PostgreSQL 15, the
// SET privilege on it); the run then loads its memories afresh.
var errNoCopy = errors.New("cannot copy the fixture without triggers")

// pgCopySchema copies the rows of memproxy's tables (River's excepted)
// from schema from into the same tables of schema to, which the same
// migrations created: referenced tables first, the columns both have
// (generated ones excepted), and the sequences moved past the copied ids.
func pgCopySchema(ctx context.Context, base, from, to string) error {
	db, err := sql.Open("postgres", base)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The store keeps derived tables in step with triggers; the copy takes
	// them as they are, so no trigger (and no foreign key check) runs.
	if _, err := tx.ExecContext(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
		return fmt.Errorf("%w: %w", errNoCopy, err)
	}
	tables, err := pgStrings(ctx, tx, `SELECT c.relname FROM pg_class c
		WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
		AND c.relname NOT LIKE 'river\_%' AND c.relname <> 'schema_migrations' ORDER BY 1`, to)
	if err != nil {
		return err
	}
	edges, err := pgStrings(ctx, tx, `SELECT a.relname || ' ' || b.relname FROM pg_constraint k
		JOIN pg_class a ON a.oid = k.conrelid JOIN pg_class b ON b.oid = k.confrelid
		WHERE k.contype = 'f' AND a.relnamespace = $1::regnamespace AND a.oid <> b.oid`, to)
	if err != nil {
		return err
	}
	tables = parentsFirst(tables, edges)
	q := func(schema, name string) string { return pq.QuoteIdentifier(schema) + "." + pq.QuoteIdentifier(name) }
	var all []string
	for _, t := range tables {
		all = append(all, q(to, t))
	}
	if _, err := tx.ExecContext(ctx, `TRUNCATE `+strings.Join(all, ", ")+` CASCADE`); err != nil {
		return fmt.Errorf("truncate: %w", err)
	}
	colsQ := `SELECT column_name FROM information_schema.columns
		WHERE table_schema = $1 AND table_name = $2 AND is_generated = 'NEVER' ORDER BY ordinal_position`
	for _, t := range tables {
		dst, err := pgStrings(ctx, tx, colsQ, to, t)
		if err != nil {
			return err
		}
		src, err := pgStrings(ctx, tx, colsQ, from, t)
		if err != nil {
			return err
		}
		var cols []string
		for _, col := range dst {
			if slicesContains(src, col) {
				cols = append(cols, pq.QuoteIdentifier(col))
			}
		}
		if len(cols) == 0 {
			continue
		}
		list := strings.Join(cols, ", ")
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+q(to, t)+` (`+list+`) OVERRIDING SYSTEM VALUE SELECT `+list+` FROM `+q(from, t)); err != nil {
			return fmt.Errorf("copy %s: %w", t, err)
		}
	}
	seqs, err := pgStrings(ctx, tx, `SELECT table_name || ' ' || column_name FROM information_schema.columns
		WHERE table_schema = $1 AND (column_default LIKE 'nextval(%' OR is_identity = 'YES')`, to)
	if err != nil {
		return err
	}
	for _, tc := range seqs {
		t, col, _ := strings.Cut(tc, " ")
		if !slicesContains(tables, t) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT max(`+pq.QuoteIdentifier(col)+`) FROM `+q(to, t)+`), 0) + 1, false)`,
			q(to, t), col); err != nil {
			return fmt.Errorf("sequence of %s.%s: %w", t, col, err)
		}
	}
	return tx.Commit()
}

// parentsFirst orders tables so that a table comes after those its foreign
// keys reference; edges are "child parent".
func parentsFirst(tables, edges []string) []string {
	parents := map[string][]string{}
	for _, e := range edges {
		c, p, _ := strings.Cut(e, " ")
		parents[c] = append(parents[c], p)
	}
	var out []string
	seen := map[string]bool{}
	var visit func(t string)
	visit = func(t string) {
		if seen[t] {
			return
		}
		seen[t] = true
		for _, p := range parents[t] {
			if slicesContains(tables, p) {
				visit(p)
			}
		}
		out = append(out, t)
	}
	for _, t := range tables {
		visit(t)
	}
	return out
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func pgStrings(ctx context.Context, db querier, query string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
