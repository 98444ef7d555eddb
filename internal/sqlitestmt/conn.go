// Package sqlitestmt keeps each SQLite connection's prepared statements
// by SQL text, so pools whose users do not prepare their queries (River's
// SQLite driver, the store's database/sql calls) parse each text once.
package sqlitestmt

import (
	"context"
	"database/sql/driver"
	"io"
	"reflect"
)

// River's SQLite driver runs every query through database/sql without
// preparing it, so modernc parses the same few statements (fetch a batch
// of jobs, complete a job, count jobs) again on every call: a fifth of the
// CPU of live ingest, where each turn is a job. Connector wraps modernc's
// connector (sqlite.NewConnector exists for such wrappers) so each
// connection keeps its prepared statements by SQL text and runs a query
// through the cached one. Every SQLite pool of memproxy uses it: River's,
// the store's and the spool's (store/sqlite.OpenDB).
type Connector struct{ driver.Connector }

// maxConnStmts bounds a connection's cache; River uses a few dozen
// statement texts. Past the bound, queries run unprepared as before.
const maxConnStmts = 256

func (c Connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cachingConn{Conn: conn, stmts: make(map[string]*cachedStmt)}, nil
}

// cachingConn forwards every optional interface modernc's connections
// implement (see sqlite.NewConnector) and answers ExecContext and
// QueryContext from its statement cache. database/sql never uses a
// driver.Conn from two goroutines at once, and closes a connection's rows
// under the same lock, so the cache needs no mutex.
type cachingConn struct {
	driver.Conn
	stmts map[string]*cachedStmt
}

// cachedStmt is a prepared statement and whether rows of it are open: a
// statement is re-executed only once its previous rows are closed (a
// query inside a transaction may run while another's rows are open).
type cachedStmt struct {
	st   driver.Stmt
	busy bool
}

func (c *cachingConn) Unwrap() driver.Conn { return c.Conn }

// take returns the cached statement of query, marked busy, preparing it
// on first use; nil when the statement is busy, the cache full, or the
// driver cannot prepare it, so the caller runs the query unprepared.
func (c *cachingConn) take(ctx context.Context, query string) *cachedStmt {
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil
		}
		cs.busy = true
		return cs
	}
	if len(c.stmts) >= maxConnStmts {
		return nil
	}
	st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil // the unprepared path reports the error
	}
	_, execs := st.(driver.StmtExecContext)
	_, queries := st.(driver.StmtQueryContext)
	if !execs || !queries {
		_ = st.Close()
		return nil
	}
	cs := &cachedStmt{st: st, busy: true}
	c.stmts[query] = cs
	return cs
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs := c.take(ctx, query)
	if cs == nil {
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	defer func() { cs.busy = false }()
	return cs.st.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs := c.take(ctx, query)
	if cs == nil {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	rows, err := cs.st.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		cs.busy = false
		return nil, err
	}
	return &cachedRows{Rows: rows, cs: cs}, nil
}

func (c *cachingConn) Close() error {
	for q, cs := range c.stmts {
		_ = cs.st.Close()
		delete(c.stmts, q)
	}
	return c.Conn.Close()
}

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *cachingConn) Ping(ctx context.Context) error {
	return c.Conn.(driver.Pinger).Ping(ctx)
}

func (c *cachingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *cachingConn) IsValid() bool {
	return c.Conn.(driver.Validator).IsValid()
}

// cachedRows frees its statement for the next execution when closed.
type cachedRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}

// The column-type interfaces modernc's rows implement, forwarded so
// ColumnTypes keeps its detail.

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

func (r *cachedRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) HasNextResultSet() bool {
	if t, ok := r.Rows.(driver.RowsNextResultSet); ok {
		return t.HasNextResultSet()
	}
	return false
}

func (r *cachedRows) NextResultSet() error {
	if t, ok := r.Rows.(driver.RowsNextResultSet); ok {
		return t.NextResultSet()
	}
	return io.EOF
}

// Cached is how many statements the connection keeps prepared.
func (c *cachingConn) Cached() int { return len(c.stmts) }
