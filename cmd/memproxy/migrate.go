package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/postgres"
	"github.com/memproxy/memproxy/store/sqlite"
)

// migrateCmd brings the store's schema and the background queue's (River)
// tables up to date and says which versions they are at. Serve does the
// same at start; running it ahead lets an operator migrate once before
// rolling several replicas. Running it again changes nothing.
func migrateCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseStoreCmd("migrate", args, os.Getenv, stderr, nil)
	if err != nil {
		if isHelp(err) {
			return nil
		}
		return err
	}
	db, err := f.rawDB(false)
	if err != nil {
		return err
	}
	defer db.Close()
	before, err := f.schemaVersion(ctx, db)
	if err != nil {
		return err
	}
	if err := f.migrateStore(ctx, db); err != nil {
		return err
	}
	after, err := f.schemaVersion(ctx, db)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "store %s: schema version %d%s\n", f.backend(), after, appliedNote(before, after))

	qBefore, qAfter, err := f.migrateQueue(ctx, db)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "queue river: version %d%s\n", qAfter, appliedNote(qBefore, qAfter))

	rec, ok, err := f.recordedEmbedder(ctx, db)
	switch {
	case err != nil:
		return err
	case ok:
		fmt.Fprintf(stdout, "embedder %s, %d dimensions\n", rec.Model, rec.Dim)
	default:
		fmt.Fprintln(stdout, "embedder not recorded yet (the first serve records it)")
	}
	return nil
}

func appliedNote(before, after int) string {
	if after == before {
		return " (up to date)"
	}
	return fmt.Sprintf(" (migrated from %d)", before)
}

// migrateStore runs the store's migrations. PostgreSQL bakes the vector
// dimension into the first migration, so a fresh database needs the
// policy's embedder (an existing one keeps its own); SQLite does not.
func (f *storeFlags) migrateStore(ctx context.Context, db *sql.DB) error {
	if f.DatabaseURL == "" {
		return sqlite.Migrate(ctx, db)
	}
	o, ok, err := f.recordedEmbedder(ctx, db)
	if err != nil {
		return err
	}
	if !ok {
		e, _, err := policyEmbedder(f)
		if err != nil {
			return err
		}
		o = memory.OpenOptions{Model: e.Model(), Dim: e.Dim()}
		closeEmbedder(e)
	}
	// Open also creates the vector extension when it is missing.
	st, err := postgres.Open(ctx, f.DatabaseURL, o)
	if err != nil {
		return fmt.Errorf("migrate postgres: %w", err)
	}
	return st.Close()
}

// migrateQueue runs River's migrations on the queue's database: the same
// PostgreSQL database, or the SQLite file through River's own pool.
func (f *storeFlags) migrateQueue(ctx context.Context, db *sql.DB) (before, after int, err error) {
	if f.DatabaseURL != "" {
		return riverMigrate(ctx, riverdatabasesql.New(db))
	}
	rdb, err := sqlite.OpenRiverDB(f.DB)
	if err != nil {
		return 0, 0, err
	}
	defer rdb.Close()
	return riverMigrate(ctx, riversqlite.New(rdb))
}

func riverMigrate[TTx any](ctx context.Context, d riverdriver.Driver[TTx]) (before, after int, err error) {
	m, err := rivermigrate.New(d, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("queue migrator: %w", err)
	}
	version := func() (int, error) {
		vs, err := m.ExistingVersions(ctx)
		if err != nil {
			return 0, fmt.Errorf("queue version: %w", err)
		}
		if len(vs) == 0 {
			return 0, nil
		}
		return vs[len(vs)-1].Version, nil
	}
	// A database River never touched has no river_migration table yet.
	if before, err = version(); err != nil {
		before = 0
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return 0, 0, fmt.Errorf("queue migrate: %w", err)
	}
	after, err = version()
	return before, after, err
}
