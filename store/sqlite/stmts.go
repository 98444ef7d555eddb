package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStmts bounds the prepared-statement cache. Hot statements have
// a handful of shapes (filters, batch sizes); anything beyond the bound is
// run unprepared rather than growing the cache.
const maxCachedStmts = 256

// stmtCache keeps the hot paths' statements prepared. modernc's SQL parser
// is a large share of a short query's cost, and database/sql prepares a
// cached Stmt once per pooled connection and reuses it after.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// stmt returns the prepared form of query, or nil when the cache is full
// (the caller then runs the query unprepared).
func (s *conn) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c := &s.stmts
	c.mu.Lock()
	st, ok := c.m[query]
	full := len(c.m) >= maxCachedStmts
	c.mu.Unlock()
	if ok {
		return st, nil
	}
	if full || s.closed.Load() {
		return nil, nil
	}
	// Prepared outside the lock: preparing waits for a pooled connection.
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[query]; ok {
		_ = st.Close()
		return prev, nil
	}
	if c.m == nil {
		c.m = make(map[string]*sql.Stmt)
	}
	c.m[query] = st
	return st, nil
}

// query runs a read through the statement cache.
func (s *conn) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return s.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

// queryRow is query for one row.
func (s *conn) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := s.stmt(ctx, query)
	if err != nil || st == nil {
		return s.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// txExec runs a write inside tx through the statement cache.
func (s *conn) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return tx.ExecContext(ctx, query, args...)
	}
	return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
}

// txStmt returns query prepared, bound to tx: from the statement cache,
// or prepared for tx alone when the cache is full. database/sql keeps the
// cached statement prepared on each pooled connection, so a transaction
// on a connection that ran it before parses nothing. Close it after use
// (closing a bound statement leaves the cached one prepared).
func (s *conn) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return tx.PrepareContext(ctx, query)
	}
	return tx.StmtContext(ctx, st), nil
}

// closeStmts releases every cached statement.
func (s *conn) closeStmts() {
	c := &s.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		_ = st.Close()
	}
	c.m = nil
}
