// Package sqlite is the embedded memory.Store: one SQLite file (pure Go,
// modernc.org/sqlite) in WAL mode holding memories, the turn, audit and
// recall logs, gate state and operator metadata.
//
// Search runs in process (package search: per-scope vector and BM25
// indexes, a row cache, a memory budget); the store is its Source (the
// rows by scope, by id and by rowid, search.go) and reports every write
// it commits, which is the engine's change feed. The indexes and the
// cache know this process's writes only: another process writing memories
// to the same file is not seen until restart (such tools, like reembed,
// are offline operations).
//
// Connection pools. The store's own pool (DB) allows a few connections so
// readers run in parallel under WAL; its writes are serialised in process
// and every transaction begins IMMEDIATE, so writers queue on busy_timeout
// instead of failing with SQLITE_BUSY. River must not share this pool: open
// its own with OpenRiverDB (one connection, as River recommends for SQLite)
// on the same file. Other processes may open the file too; they contend
// through busy_timeout.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/memproxy/memproxy/internal/sqlitestmt"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
	"github.com/memproxy/memproxy/store/internal/sqlkit"

	msqlite "modernc.org/sqlite" // also registers the "sqlite" driver
)

// Interface guards.
var (
	_ memory.Store   = (*Store)(nil)
	_ memory.Admin   = (*Store)(nil)
	_ memory.Erasing = (*Store)(nil)
)

// MaxOpenConns is the size of the store's own pool.
const MaxOpenConns = 4

// busyTimeoutMs is how long a connection waits for another writer.
const busyTimeoutMs = 10000

// Store is the SQLite memory store. It is safe for concurrent use. Its
// concerns are split: conn holds the pool and the write transactions;
// what both stores run alike is sqlkit's (metadata, gate state, the turn,
// audit and recall logs, admin listings, memory reads and most writes);
// idx is the search engine (package search) it feeds, whose Searches it
// embeds. Keys and Eraser hand out the client keys and the forgetting of
// text.
type Store struct {
	*conn
	sqlkit.Store
	search.Searches
	sqlkit.Memories
	dim int

	// idx is the in-process search over this store.
	idx *search.Engine
}

// conn is a store's pool and write transactions.
type conn struct {
	db     *sql.DB
	closed atomic.Bool

	// writeMu serialises this process's write transactions, which is
	// cheaper than letting SQLite's busy handler poll.
	writeMu sync.Mutex

	// ckpt copies the WAL into the file off the writers' path
	// (checkpoint.go).
	ckpt *checkpointer
}

// dsn builds the connection string with the pragmas every connection needs.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(busyTimeoutMs)+")")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// A deleted row's bytes are overwritten, not left in free pages: a
	// forgotten user's text is not readable from the file (the WAL keeps
	// old page images until the next checkpoint).
	q.Add("_pragma", "secure_delete(ON)")
	// A larger page cache keeps recall's random rows; no memory map
	// (docs/internals.md, "Why the SQL is written as it is").
	q.Add("_pragma", "cache_size(-32768)")
	// The checkpointer copies the WAL (checkpoint.go); a commit does it
	// only past this backstop.
	q.Add("_pragma", "wal_autocheckpoint("+strconv.Itoa(autoCheckpointPages)+")")
	q.Set("_txlock", "immediate")
	return path + "?" + q.Encode()
}

// OpenDB opens the store's connection pool on path without migrating or
// checking the embedder (for `memproxy migrate`). Transactions begin
// IMMEDIATE.
//
// Each connection keeps its statements prepared by SQL text
// (internal/sqlitestmt): modernc's SQL parser is a large share of a short
// query's cost, and the store's hot statements have a handful of shapes.
func OpenDB(path string) (*sql.DB, error) { return openPool(path, MaxOpenConns) }

// OpenRiverDB opens a separate pool on path for River (riversqlite): WAL,
// busy_timeout and one connection, as River recommends for SQLite. Close
// it after stopping the River client.
func OpenRiverDB(path string) (*sql.DB, error) { return openPool(path, 1) }

// openPool opens a pool of n connections on path whose transactions
// begin IMMEDIATE and whose connections cache their prepared statements.
func openPool(path string, n int) (*sql.DB, error) {
	base, err := msqlite.NewConnector(dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	db := sql.OpenDB(sqlitestmt.Connector{Connector: base})
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return db, nil
}

// Open opens (creating if needed) the store at path, runs pending
// migrations and checks that the file was created for the embedder opts
// names; a store created for another model or dimension is refused with
// memory.ErrEmbedderMismatch.
func Open(ctx context.Context, path string, opts memory.OpenOptions) (*Store, error) {
	return OpenWith(ctx, path, opts, Options{})
}

// OpenWith is Open with the store's Options.
func OpenWith(ctx context.Context, path string, opts memory.OpenOptions, o Options) (*Store, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("open sqlite store: %w", err)
	}
	db, err := OpenDB(path)
	if err != nil {
		return nil, err
	}
	c := &conn{db: db}
	s := &Store{conn: c, Store: sqlkit.Store{Conn: &sqlkit.Conn{Dialect: sqlkit.SQLite, DB: db, Closed: &c.closed,
		Write: c.write, Join: func(ctx context.Context, after func(), fn func(sqlkit.Execer) error) error {
			return c.join(ctx, after, func(tx *sql.Tx) error { return fn(tx) })
		}, Apart: func(ctx context.Context, fn func(sqlkit.Execer) error) error {
			return c.write(ctx, func(tx *sql.Tx) error { return fn(tx) })
		}, Reader: c.reader}}, dim: opts.Dim}
	s.idx = search.NewEngine(source{s}, opts.Dim, o)
	s.Searches = s.idx.Searches(func(sc memory.Scope) error { return sqlkit.Check(s.Store.Conn, sc) })
	s.Store.Forget = s.idx.ForgetUser
	s.Memories = sqlkit.NewMemories(s.Store.Conn, `SELECT `+memCols+` FROM memory_rows`, opts.Dim, s.idx.Changed).WithMetaChanged(s.idx.MetaChanged)
	if err := Migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	if err := sqlkit.CheckEmbedder(ctx, s.Store, opts); err != nil {
		db.Close()
		return nil, err
	}
	if err := c.startCheckpoints(path); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// DB is the store's connection pool, for tools that need raw access. Do
// not hand it to River: use OpenRiverDB.
func (s *Store) DB() *sql.DB { return s.db }

// Dim is the embedding dimension the store was opened for.
func (s *Store) Dim() int { return s.dim }

// Close closes the pool; it is safe to call twice.
func (s *Store) Close() error { return s.close() }

func (s *conn) close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.stopCheckpoints()
	return s.db.Close()
}

// write runs fn in one IMMEDIATE transaction under the write lock.
func (s *conn) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.writeThen(ctx, fn, nil)
}

// writeThen is write, running committed (when not nil) after the commit
// and before the write lock is released.
func (s *conn) writeThen(ctx context.Context, fn func(tx *sql.Tx) error, committed func()) error {
	if s.closed.Load() {
		return memory.ErrClosed
	}
	if s.batchOf(ctx) != nil {
		// It would wait for the batch's own lock.
		return errors.New("only Touch and AppendRecall may write inside a Batch")
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if committed != nil {
		committed()
	}
	return nil
}
