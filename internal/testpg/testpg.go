// Package testpg gives each test its own PostgreSQL schema, so tests and
// packages running in parallel never share migrations or rows.
//
// The database is TEST_DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable). Tests never
// skip: when the database is unreachable they fail and say how to fix it,
// because CI must run everything.
package testpg

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/lib/pq" // the "postgres" database/sql driver
)

// DefaultURL is the database used when TEST_DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// URL returns the test database URL.
func URL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// New creates a fresh schema with a random name, makes sure the vector
// extension exists, and returns a DSN whose search_path is that schema then
// public (where the extension lives). The schema is dropped when t ends.
func New(t testing.TB) string {
	t.Helper()
	dsn, drop, err := create(URL())
	if err != nil {
		t.Fatalf("testpg: %v\n(set TEST_DATABASE_URL to a reachable PostgreSQL with pgvector installed: scripts/install-pgvector.sh)", err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("testpg: %v", err)
		}
	})
	return dsn
}

// NewNamed is New for a schema the caller names and keeps: it is created
// when missing and never dropped. Benchmarks use it to reuse expensive
// fixtures across runs.
func NewNamed(t testing.TB, schema string) string {
	t.Helper()
	dsn, err := createNamed(URL(), schema)
	if err != nil {
		t.Fatalf("testpg: %v\n(set TEST_DATABASE_URL to a reachable PostgreSQL with pgvector installed: scripts/install-pgvector.sh)", err)
	}
	return dsn
}

func create(base string) (dsn string, drop func() error, err error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "test_" + hex.EncodeToString(b[:])
	dsn, err = createNamed(base, schema)
	if err != nil {
		return "", nil, err
	}
	drop = func() error {
		db, err := sql.Open("postgres", base)
		if err != nil {
			return err
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			return fmt.Errorf("drop schema %s: %w", schema, err)
		}
		return nil
	}
	return dsn, drop, nil
}

func createNamed(base, schema string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("postgres", base)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", redact(base), err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return "", fmt.Errorf("connect to %s: %w", redact(base), err)
	}
	// CREATE EXTENSION is not safe to race across parallel test packages;
	// an advisory lock serialises the first ones.
	if _, err := db.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext('memproxy.testpg.extension'));
		CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;
		SELECT pg_advisory_unlock(hashtext('memproxy.testpg.extension'))`); err != nil {
		return "", fmt.Errorf("create extension vector in %s: %w", redact(base), err)
	}
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS `+schema); err != nil {
		return "", fmt.Errorf("create schema %s: %w", schema, err)
	}
	return withSearchPath(base, schema)
}

// DSN returns the test database URL with search_path set to schema then
// public, for reopening a schema New or NewNamed created.
func DSN(schema string) string {
	dsn, _ := withSearchPath(URL(), schema)
	return dsn
}

// withSearchPath adds the search_path to a URL or key=value DSN.
func withSearchPath(base, schema string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		// key=value form
		return base + " search_path=" + schema + ",public", nil
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxx")
		}
		return u.String()
	}
	return dsn
}
