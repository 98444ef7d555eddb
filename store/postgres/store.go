package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// Store is a memory.Store and memory.Admin on PostgreSQL with pgvector.
// It is safe for concurrent use. Its concerns are split: conn holds the
// pool and transactions (joined batches included); what both stores run
// alike is sqlkit's (metadata, gate state, the turn, audit and recall
// logs, admin listings, memory reads and most writes); local is the
// search engine (package search) it feeds, whose Searches it embeds.
// Keys, Eraser and Spool hand out the client keys, the forgetting of text
// and the turn spool.
type Store struct {
	*conn
	sqlkit.Store
	search.Searches
	sqlkit.Memories
	spool  *sqlkit.Spool // the turn spool (spool.go)
	opts   memory.OpenOptions
	vecTyp string // "vector" or "halfvec"
	// cols are sqlkit.MemCols for this vector type: the embedding column's
	// binary send function.
	cols string

	// local is the in-process search over this store (search.Feed:
	// feed.go).
	local *search.Engine
	// readStmt is local's per-search read (feed.Read), prepared on the
	// connections of readDB.
	readDB   *sql.DB
	readStmt *sql.Stmt
}

// conn is a store's pool and transactions.
type conn struct {
	db     *sql.DB
	closed atomic.Bool
}

// Interface guards.
var (
	_ memory.Store   = (*Store)(nil)
	_ memory.Admin   = (*Store)(nil)
	_ memory.Erasing = (*Store)(nil)
)

// Open connects to the database at dsn (a lib/pq URL or key=value string),
// applies pending migrations and checks that the database was created for
// the embedder o. The vector extension must already exist in the database
// (scripts/install-pgvector.sh, then CREATE EXTENSION vector) or be
// creatable by this role.
func Open(ctx context.Context, dsn string, o memory.OpenOptions) (*Store, error) {
	return OpenWith(ctx, dsn, o, Options{})
}

// OpenWith is Open with store options.
func OpenWith(ctx context.Context, dsn string, o memory.OpenOptions, po Options) (*Store, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pool := po.Pool.withDefaults()
	// Bounded, so memproxy never exhausts a shared server; beyond the
	// bound a call waits for a connection as long as its context allows
	// (the request path's deadlines, then it fails open). Keep warm
	// connections: a fresh connection costs more than a search.
	db, err := pool.open(ctx, dsn, "", pool.MaxConns, min(16, pool.MaxConns), nil)
	if err != nil {
		return nil, err
	}
	// The in-process indexes' per-search read runs on connections of its
	// own that plan it once (see readQuery).
	readMax := readConns(pool.MaxConns)
	readDB, err := pool.open(ctx, dsn, "", readMax, min(8, readMax), readSettings)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	s, err := open(ctx, db, readDB, o, po)
	if err != nil {
		_ = db.Close()
		_ = readDB.Close()
		return nil, err
	}
	return s, nil
}

// readSettings are the settings of the per-search read's connections
// (readQuery). Each plans the read once, for its life
// (force_generic_plan), so the plan must not rest on the tables' sizes
// when it was made: planned while memory_usage was empty (a new
// database, or one whose statistics say so), the per-row usage lookup
// of memory_rows was a sequential scan, which read the whole partition
// for every row a search brought once touches filled it (48 ms for a
// read of 63 rows with 2,000 usage rows). With sequential scans off the
// planner takes the index every branch is bound by whatever the
// statistics (TestSearchReadPlanUsesIndexes).
var readSettings = map[string]string{
	"plan_cache_mode": "force_generic_plan",
	"enable_seqscan":  "off",
}

// sessionDefaults are the settings every connection of the pool starts
// with (sent in the startup packet, so they cost no round trip), unless
// the DSN sets them:
//
//   - jit off: the JIT compiler costs hundreds of milliseconds on queries
//     that run for one, and every query here is of that kind;
//   - random_page_cost 1.1 (from 4, a spinning disk's): the working set
//     is cached or on SSD.
var sessionDefaults = map[string]string{
	"jit":              "off",
	"random_page_cost": "1.1",
}

// open opens the store on db; readDB is the pool of the in-process
// indexes' per-search read.
func open(ctx context.Context, db, readDB *sql.DB, o memory.OpenOptions, po Options) (*Store, error) {
	if err := ensureVector(ctx, db); err != nil {
		return nil, err
	}
	s := &Store{opts: o}
	s.local = search.NewFeedEngine(feed{s}, o.Dim, po.Options)
	s.vecTyp = vectorType(o.Dim)
	s.cols = sqlkit.MemCols(s.vecTyp + "_send(embedding)")
	s.bind(db) // after cols: the memory reads select them
	if _, err := Migrate(ctx, db, o); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := sqlkit.CheckEmbedder(ctx, s.Store, s.opts); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	var err error
	s.readDB = readDB
	if s.readStmt, err = readDB.PrepareContext(ctx, s.readQuery()); err != nil {
		return nil, fmt.Errorf("postgres: prepare search read: %w", err)
	}
	return s, nil
}

// ensureVector creates the vector extension when it is missing and the
// role may create it; otherwise it explains what to run.
func ensureVector(ctx context.Context, db *sql.DB) error {
	var ok bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')`).Scan(&ok); err != nil {
		return fmt.Errorf("postgres: check vector extension: %w", err)
	}
	if ok {
		return nil
	}
	if _, err := db.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public`); err != nil {
		return fmt.Errorf("postgres: the pgvector extension is not enabled in this database "+
			"(install it with scripts/install-pgvector.sh, then run CREATE EXTENSION vector as a superuser): %w", err)
	}
	return nil
}

// DB is the connection pool, shared with River (riverdatabasesql) so jobs
// and memories live in the same database.
func (s *Store) DB() *sql.DB { return s.db }

// Dim is the embedding dimension the store was created with.
func (s *Store) Dim() int { return s.opts.Dim }

// Close closes the pool. Calling it twice is harmless.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if s.readStmt != nil {
		_ = s.readStmt.Close()
		_ = s.readDB.Close()
	}
	return s.db.Close()
}

// inTx runs fn in a transaction, committing when it returns nil.
func (s *conn) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, rollback(tx))
	}
	return sqlkit.Wrap("commit", tx.Commit())
}

func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// ReadDB is the pool of the in-process search's per-search read (for pool
// metrics).
func (s *Store) ReadDB() *sql.DB { return s.readDB }
