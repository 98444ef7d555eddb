package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/store/postgres"
	"github.com/memproxy/memproxy/store/sqlite"
)

// storeFlags locate the store for the maintenance commands (migrate,
// export, reembed) the way serve does: --db / MEMPROXY_DB for SQLite,
// MEMPROXY_DATABASE_URL (PostgreSQL) winning when set, and --policy /
// MEMPROXY_POLICY (./policy.yaml when present) for the embedder.
type storeFlags struct {
	PolicyFile  string
	DB          string
	DatabaseURL string
}

func (f *storeFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&f.PolicyFile, "policy", getenv("MEMPROXY_POLICY"), "policy file (MEMPROXY_POLICY; default ./policy.yaml if present, else built-in defaults)")
	fs.StringVar(&f.DB, "db", envOr(getenv, "MEMPROXY_DB", "./memproxy.db"), "embedded SQLite database (MEMPROXY_DB; MEMPROXY_DATABASE_URL wins)")
}

// resolve fills what flags do not set; call it after parsing.
func (f *storeFlags) resolve(getenv func(string) string) {
	f.DatabaseURL = getenv("MEMPROXY_DATABASE_URL")
	if f.PolicyFile == "" {
		if _, err := os.Stat("policy.yaml"); err == nil {
			f.PolicyFile = "policy.yaml"
		}
	}
}

// backend names the store for messages.
func (f *storeFlags) backend() string {
	if f.DatabaseURL != "" {
		return "postgres"
	}
	return "sqlite:" + f.DB
}

// parseStoreCmd parses a maintenance command's flags; extra registers the
// command's own.
func parseStoreCmd(name string, args []string, getenv func(string) string, stderr io.Writer, extra func(fs *flag.FlagSet)) (*storeFlags, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &storeFlags{}
	f.register(fs, getenv)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%s: unexpected argument %q", name, fs.Arg(0))
	}
	f.resolve(getenv)
	return f, nil
}

// rawDB opens the store's database without migrating or checking the
// embedder. A SQLite file must exist: the maintenance commands other than
// migrate never create one by accident.
func (f *storeFlags) rawDB(mustExist bool) (*sql.DB, error) {
	if f.DatabaseURL != "" {
		c, err := pq.NewConnector(f.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("postgres: parse MEMPROXY_DATABASE_URL: %w", err)
		}
		return sql.OpenDB(c), nil
	}
	if mustExist {
		if _, err := os.Stat(f.DB); err != nil {
			return nil, fmt.Errorf("no database at %s (set --db or MEMPROXY_DB): %w", f.DB, err)
		}
	}
	return sqlite.OpenDB(f.DB)
}

// hasTable reports whether the database has table name (in the current
// schema for PostgreSQL).
func (f *storeFlags) hasTable(ctx context.Context, db *sql.DB, name string) (bool, error) {
	q := `SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?`
	if f.DatabaseURL != "" {
		q = `SELECT to_regclass($1) IS NOT NULL`
	}
	var ok bool
	if err := db.QueryRowContext(ctx, q, name).Scan(&ok); err != nil {
		return false, fmt.Errorf("look for table %s: %w", name, err)
	}
	return ok, nil
}

// recordedEmbedder reads the embedder the store was created for; ok is
// false when none is recorded yet (a fresh database).
func (f *storeFlags) recordedEmbedder(ctx context.Context, db *sql.DB) (o memory.OpenOptions, ok bool, err error) {
	if has, err := f.hasTable(ctx, db, "meta"); err != nil || !has {
		return o, false, err
	}
	q := `SELECT key, value FROM meta WHERE key IN (?, ?)`
	if f.DatabaseURL != "" {
		q = `SELECT key, value FROM meta WHERE key IN ($1, $2)`
	}
	rows, err := db.QueryContext(ctx, q, memory.MetaEmbedModel, memory.MetaEmbedDim)
	if err != nil {
		return o, false, fmt.Errorf("read embedder: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return o, false, fmt.Errorf("read embedder: %w", err)
		}
		n++
		if k == memory.MetaEmbedModel {
			o.Model = v
		} else {
			o.Dim, _ = strconv.Atoi(v)
		}
	}
	if err := rows.Err(); err != nil {
		return o, false, fmt.Errorf("read embedder: %w", err)
	}
	return o, n == 2, nil
}

// schemaVersion is the store's highest applied migration (0: none).
func (f *storeFlags) schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	if has, err := f.hasTable(ctx, db, "schema_migrations"); err != nil || !has {
		return 0, err
	}
	var v int
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// memoryStore is what export reads.
type memoryStore interface {
	memory.Store
	memory.Admin
	Close() error
}

// openStore opens the configured store for o (migrating it as serve does).
func (f *storeFlags) openStore(ctx context.Context, o memory.OpenOptions) (memoryStore, error) {
	if f.DatabaseURL != "" {
		return postgres.Open(ctx, f.DatabaseURL, o)
	}
	return sqlite.Open(ctx, f.DB, o)
}

// policyEmbedder builds the embedder the policy configures; close it with
// closeEmbedder.
func policyEmbedder(f *storeFlags) (embed.Embedder, *policy.Policy, error) {
	pol, err := loadPolicy(f.PolicyFile)
	if err != nil {
		return nil, nil, err
	}
	e, err := embed.FromPolicy(pol.Embedder, os.Getenv)
	if err != nil {
		return nil, nil, fmt.Errorf("embedder: %w", err)
	}
	return e, pol, nil
}

func closeEmbedder(e embed.Embedder) {
	if c, ok := e.(io.Closer); ok {
		_ = c.Close()
	}
}

// errUsage marks a flag error already printed by the flag package.
func isHelp(err error) bool { return errors.Is(err, flag.ErrHelp) }
