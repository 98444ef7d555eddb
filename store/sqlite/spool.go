package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// Spool is the embedded memory.TurnSpool: the background queue's input,
// in a SQLite file of its own beside the store's (SpoolPath). A file of
// its own has a write lock of its own: a capture commits behind at most
// another capture or a lease update, never behind the background's long
// writes to the store (a group of events, a consolidation), which hold
// the store file's single writer. Ingest therefore cannot write the turn
// log and complete a spooled turn in one transaction; it does not need
// to: the turn's memories and its turn-log row are keyed by the turn's ID,
// so a turn processed again after a crash writes nothing twice.
type Spool struct {
	*sqlkit.Spool
	c *conn // the spool file's pool and serialised writes
}

var _ memory.TurnSpool = (*Spool)(nil)

// SpoolPath is the spool file that goes with the store file at path.
func SpoolPath(path string) string { return path + "-spool" }

const spoolSchema = `
CREATE TABLE IF NOT EXISTS spool (
	seq         INTEGER PRIMARY KEY,
	tid         TEXT NOT NULL UNIQUE,
	user        TEXT NOT NULL,
	namespace   TEXT NOT NULL,
	request_id  TEXT NOT NULL,
	response_id TEXT NOT NULL DEFAULT '',
	session     TEXT NOT NULL DEFAULT '',
	time        INTEGER NOT NULL,
	data        TEXT,
	done        INTEGER NOT NULL DEFAULT 0,
	owner       TEXT NOT NULL DEFAULT '',
	lease_until INTEGER NOT NULL DEFAULT 0,
	attempts    INTEGER NOT NULL DEFAULT 0,
	done_at     INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX IF NOT EXISTS spool_pending ON spool (user, namespace, seq) WHERE done = 0;
CREATE INDEX IF NOT EXISTS spool_response ON spool (user, namespace, response_id) WHERE response_id != '';
CREATE INDEX IF NOT EXISTS spool_done ON spool (done_at) WHERE done = 1;
CREATE INDEX IF NOT EXISTS spool_leased ON spool (user, namespace) WHERE done = 0 AND owner <> '';
`

// OpenSpool opens (creating if needed) the spool file at path (see
// SpoolPath): WAL, busy_timeout, transactions IMMEDIATE.
func OpenSpool(ctx context.Context, path string) (*Spool, error) {
	db, err := openPool(path, 2)
	if err != nil {
		return nil, fmt.Errorf("open spool: %w", err)
	}
	if _, err := db.ExecContext(ctx, spoolSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open spool %s: %w", path, err)
	}
	p := &Spool{c: &conn{db: db}}
	if err := p.c.startCheckpoints(path); err != nil {
		db.Close()
		return nil, fmt.Errorf("open spool %s: %w", path, err)
	}
	p.Spool = sqlkit.NewSpool(&sqlkit.Conn{Dialect: sqlkit.SQLite, DB: db, Closed: &p.c.closed, Write: p.c.write}, sqlkit.SpoolDialect{
		Table: "spool",
		Now: func(d time.Duration) (string, []any) {
			return "?", []any{time.Now().Add(d).UnixMicro()}
		},
		Pending: "done = 0", Done: "done = 1", Unset: "0",
		Insert: p.insert,
	})
	return p, nil
}

// DB is the spool's connection pool, for tools and tests.
func (p *Spool) DB() *sql.DB { return p.c.db }

// Close closes the spool; it is safe to call twice.
func (p *Spool) Close() error { return p.c.close() }

// insertTurn is the spool's insert; the connection keeps it prepared
// (sqlitestmt), where a statement prepared per commit was parsed again
// each time: a quarter of a capture commit's CPU.
const insertTurn = `INSERT INTO spool (tid, user, namespace, request_id, response_id, session, time, data)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tid) DO NOTHING`

// insert writes spooled turns.
func (p *Spool) insert(ctx context.Context, turns []*memory.Turn, data []string) error {
	return p.c.write(ctx, func(tx *sql.Tx) error {
		for i, t := range turns {
			if _, err := tx.ExecContext(ctx, insertTurn, t.ID, t.Scope.User, t.Scope.Namespace, t.RequestID, t.ResponseID, t.Session,
				t.Time.UnixMicro(), data[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
