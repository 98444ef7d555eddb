package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// Pool bounds the store's database connections and how long each may
// wait on the server. The zero value means the defaults below. Each of
// the three users has a pool of its own, so none can take another's
// connections: the request path (MaxConns, plus a quarter of it for the
// search read), the background workers (BackgroundMaxConns, through
// Store.Background) and River (RiverMaxConns, OpenRiverDB). The most
// memproxy opens is their sum.
type Pool struct {
	// MaxConns bounds the store's own pool: the request path (recall,
	// capture's spool commits, the management API); default 24. The
	// in-process search read has a pool of its own of MaxConns/4 (at
	// least 2).
	MaxConns int
	// BackgroundMaxConns bounds the pool of the background workers'
	// view of the store (Store.Background); default 8.
	BackgroundMaxConns int
	// RiverMaxConns bounds the background queue's pool (OpenRiverDB);
	// default 8.
	RiverMaxConns int
	// ConnectTimeout bounds opening a connection, the startup handshake
	// included; default 5 s.
	ConnectTimeout time.Duration
	// StatementTimeout and LockTimeout are sent to the server for every
	// connection (statement_timeout, lock_timeout); defaults 60 s and
	// 10 s. A DSN that sets them wins.
	StatementTimeout time.Duration
	LockTimeout      time.Duration
	// ApplicationName names the connections in pg_stat_activity (default
	// "memproxy"; a DSN's application_name wins). The background's pool
	// adds "-background", River's "-river".
	ApplicationName string
}

// Default pool sizes.
const (
	DefaultMaxConns           = 24
	DefaultBackgroundMaxConns = 8
	DefaultRiverMaxConns      = 8
)

func (p Pool) withDefaults() Pool {
	if p.MaxConns <= 0 {
		p.MaxConns = DefaultMaxConns
	}
	if p.BackgroundMaxConns <= 0 {
		p.BackgroundMaxConns = DefaultBackgroundMaxConns
	}
	if p.RiverMaxConns <= 0 {
		p.RiverMaxConns = DefaultRiverMaxConns
	}
	if p.ConnectTimeout <= 0 {
		p.ConnectTimeout = 5 * time.Second
	}
	if p.StatementTimeout <= 0 {
		p.StatementTimeout = 60 * time.Second
	}
	if p.LockTimeout <= 0 {
		p.LockTimeout = 10 * time.Second
	}
	if p.ApplicationName == "" {
		p.ApplicationName = "memproxy"
	}
	return p
}

// Bound is the most connections the three pools of p open together.
func (p Pool) Bound() int {
	p = p.withDefaults()
	return p.MaxConns + readConns(p.MaxConns) + p.BackgroundMaxConns + p.RiverMaxConns
}

// readConns is the search read's pool beside a store pool of max.
func readConns(n int) int { return max(2, n/4) }

// bind points every concern of s at the pool db.
func (s *Store) bind(db *sql.DB) {
	c := &conn{db: db}
	kc := &sqlkit.Conn{Dialect: sqlkit.Postgres, DB: db, Closed: &c.closed, Write: c.inTx, Forget: s.local.ForgetUser,
		Join: func(ctx context.Context, after func(), fn func(sqlkit.Execer) error) error {
			return c.joined(ctx, false, after, fn)
		}, Apart: func(ctx context.Context, fn func(sqlkit.Execer) error) error { return fn(db) }}
	s.conn, s.spool, s.Store = c, newSpool(c, kc), sqlkit.Store{Conn: kc}
	s.Searches = s.local.Searches(func(sc memory.Scope) error { return sqlkit.Check(kc, sc) })
	s.Memories = sqlkit.NewMemories(kc, `SELECT `+s.cols+` FROM memory_rows`, s.opts.Dim, nil)
}

// Background returns the store as the background workers use it: every
// call runs on a pool of its own (p.BackgroundMaxConns connections named
// "<application_name>-background", dsn's session settings), so ingest,
// consolidation and decay never take the request path's connections,
// nor it theirs. It shares s's schema and search engine (whose index
// loads and per-search reads stay on s's pools; the engine follows the
// database's change feed, so writes through either are seen by both).
// Closing it closes only its pool; close it before s.
func (s *Store) Background(ctx context.Context, dsn string, p Pool) (*Store, error) {
	p = p.withDefaults()
	db, err := p.open(ctx, dsn, "-background", p.BackgroundMaxConns, p.BackgroundMaxConns, nil)
	if err != nil {
		return nil, err
	}
	v := &Store{opts: s.opts, vecTyp: s.vecTyp, cols: s.cols, local: s.local}
	v.bind(db)
	return v, nil
}

// readTimeout is how long a connection may wait for the server's next
// bytes: past the statement timeout the server would have answered, so
// silence means the server or the network is gone (a relay that accepts
// and never forwards). The connection then fails and leaves the pool
// instead of holding a slot forever.
func (p Pool) readTimeout() time.Duration { return p.StatementTimeout + 5*time.Second }

// open opens a pool of at most n connections (idle of them kept warm) on
// dsn, named with suffix, whose connections time out reads, start with
// the pool's session settings, sessionDefaults and set, and send each
// query's parameters with it (binary_parameters): lib/pq otherwise
// prepares an unnamed statement and waits for the server before binding,
// two round trips per query instead of one. The parameters are all
// passed as text (vectors included), which binary mode leaves as they
// are.
func (p Pool) open(ctx context.Context, dsn, suffix string, n, idle int, set map[string]string) (*sql.DB, error) {
	cfg, err := pq.NewConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse dsn: %w", err)
	}
	cfg.BinaryParameters = true
	if cfg.Runtime == nil {
		cfg.Runtime = map[string]string{}
	}
	for k, v := range sessionDefaults {
		if _, ok := cfg.Runtime[k]; !ok {
			cfg.Runtime[k] = v
		}
	}
	for k, v := range set {
		cfg.Runtime[k] = v
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = p.ConnectTimeout
	}
	if _, ok := cfg.Runtime["statement_timeout"]; !ok {
		cfg.Runtime["statement_timeout"] = strconv.FormatInt(p.StatementTimeout.Milliseconds(), 10)
	}
	if _, ok := cfg.Runtime["lock_timeout"]; !ok {
		cfg.Runtime["lock_timeout"] = strconv.FormatInt(p.LockTimeout.Milliseconds(), 10)
	}
	if cfg.ApplicationName == "" {
		cfg.ApplicationName = p.ApplicationName + suffix
	}
	c, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse dsn: %w", err)
	}
	c.Dialer(readDeadlineDialer{read: p.readTimeout()})
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(idle)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("postgres: connect%s pool: %w", suffix, err)
	}
	return db, nil
}

// OpenRiverDB opens the background queue's pool on dsn: the store's
// session settings, bounded by Pool.RiverMaxConns, named
// "<application_name>-river".
func OpenRiverDB(ctx context.Context, dsn string, p Pool) (*sql.DB, error) {
	p = p.withDefaults()
	return p.open(ctx, dsn, "-river", p.RiverMaxConns, p.RiverMaxConns, nil)
}

// readDeadlineDialer dials connections whose every read times out after
// read (or at an earlier deadline lib/pq set, as during the handshake).
type readDeadlineDialer struct{ read time.Duration }

func (d readDeadlineDialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

func (d readDeadlineDialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

func (d readDeadlineDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	nd := net.Dialer{KeepAlive: 30 * time.Second}
	c, err := nd.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &readDeadlineConn{Conn: c, read: d.read}, nil
}

type readDeadlineConn struct {
	net.Conn
	read time.Duration

	mu       sync.Mutex
	explicit time.Time // a deadline lib/pq set itself
}

func (c *readDeadlineConn) Read(b []byte) (int, error) {
	dl := time.Now().Add(c.read)
	c.mu.Lock()
	if !c.explicit.IsZero() && c.explicit.Before(dl) {
		dl = c.explicit
	}
	c.mu.Unlock()
	if err := c.Conn.SetReadDeadline(dl); err != nil {
		return 0, err
	}
	return c.Conn.Read(b)
}

func (c *readDeadlineConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.explicit = t
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

func (c *readDeadlineConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.explicit = t
	c.mu.Unlock()
	return c.Conn.SetReadDeadline(t)
}
