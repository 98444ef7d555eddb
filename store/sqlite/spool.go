package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
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
//
// A capture appends its turns to the spool's journal (journal.go), which
// moves them into the table in large transactions.
type Spool struct {
	*sqlkit.Spool
	c *conn // the spool file's pool and serialised writes
	j *journal

	stop      chan struct{}
	moverDone chan struct{}
	closeOnce sync.Once
	closeErr  error
	afterMove func(n int) // tests: called after turns moved into the table
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
	p := &Spool{c: &conn{db: db}, stop: make(chan struct{}), moverDone: make(chan struct{})}
	// The journal's turns from before (a crash, or a close that could
	// not move them) go into the table first.
	j, recovered, err := openJournal(path)
	if err == nil && len(recovered) > 0 {
		err = p.insertJournaled(ctx, recovered)
	}
	if err == nil {
		err = j.begin()
	}
	if err != nil {
		if j != nil {
			j.unlock()
		}
		db.Close()
		return nil, fmt.Errorf("open spool %s: journal: %w", path, err)
	}
	p.j = j
	if err := p.c.startCheckpoints(path); err != nil {
		j.close()
		j.unlock()
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
		Sync:   p.apply,
	})
	go p.mover()
	return p, nil
}

// DB is the spool's connection pool, for tools and tests; the journal's
// turns are moved into the table first.
func (p *Spool) DB() *sql.DB {
	_ = p.apply(context.Background(), false)
	return p.c.db
}

// Close moves the journal's turns into the table and closes the spool;
// it is safe to call twice. Turns it could not move stay in the journal
// for the next open.
func (p *Spool) Close() error {
	p.closeOnce.Do(func() {
		close(p.stop)
		<-p.moverDone
		err := p.apply(context.Background(), false)
		cerr := p.j.close()
		if err == nil && cerr == nil && !p.j.waiting() {
			// Every turn is in the table: no segment is needed.
			err = p.j.removeSegments()
		}
		p.closeErr = errors.Join(err, cerr, p.c.close())
		p.j.unlock()
	})
	return p.closeErr
}

// abandon closes the spool as a crash would: the journal's turns stay
// where they are (tests).
func (p *Spool) abandon() {
	p.closeOnce.Do(func() {
		close(p.stop)
		<-p.moverDone
		p.closeErr = errors.Join(p.j.close(), p.c.close())
		p.j.unlock() // as the process's end would
	})
}

// mover moves the journal's turns into the table applyDelay after the
// first is appended, or once applyBatch wait.
func (p *Spool) mover() {
	defer close(p.moverDone)
	t := time.NewTimer(applyDelay)
	t.Stop()
	armed := false
	for {
		select {
		case <-p.stop:
			t.Stop()
			return
		case <-p.j.kick:
		case <-t.C:
			armed = false
		case <-p.j.appended:
			if !armed {
				t.Reset(applyDelay)
				armed = true
			}
			continue
		}
		// A failed move is retried by the next one; whatever reads the
		// spool meanwhile moves the turns itself or reports the error.
		_ = p.apply(context.Background(), false)
	}
}

// apply moves the journal's waiting turns into the table (sqlkit's
// SpoolDialect.Sync); with purge, the segments that held them are
// removed before it returns.
func (p *Spool) apply(ctx context.Context, purge bool) error {
	p.j.applyMu.Lock()
	defer p.j.applyMu.Unlock()
	recs, failed, err := p.j.take(purge)
	if err != nil {
		return err
	}
	if len(recs) == 0 && !purge && !failed {
		return nil
	}
	if len(recs) > 0 {
		if err := p.insertJournaled(ctx, recs); err != nil {
			return fmt.Errorf("spool journal: move turns: %w", err)
		}
	}
	err = p.j.moved(len(recs))
	if p.afterMove != nil && len(recs) > 0 {
		p.afterMove(len(recs))
	}
	return err
}

// SessionByResponse implements memory.TurnSpool: the journal's waiting
// turns are newer than the table's, so the newest of them with the
// response id answers first, without moving them (a chained request of
// the Responses API asks on its way in). A turn leaves the journal only
// once it is in the table, so none is missed between the two looks.
func (p *Spool) SessionByResponse(ctx context.Context, sc memory.Scope, responseID string) (string, bool, error) {
	if responseID != "" && sc.Validate() == nil {
		if sess, ok := p.j.session(sc, responseID); ok {
			return sess, true, nil
		}
	}
	return p.Spool.SessionByResponse(ctx, sc, responseID)
}

// insertJournaled writes turns of the journal into the table in one
// transaction, skipping any spooled already.
func (p *Spool) insertJournaled(ctx context.Context, recs []journaled) error {
	return p.c.write(ctx, func(tx *sql.Tx) error {
		for i := range recs {
			r := &recs[i]
			if _, err := tx.ExecContext(ctx, insertTurn, r.tid, r.user, r.namespace, r.request, r.response, r.session,
				r.time, r.data); err != nil {
				return err
			}
		}
		return nil
	})
}

// insertTurn is the spool's insert; the connection keeps it prepared
// (sqlitestmt), where a statement prepared per commit was parsed again
// each time: a quarter of a capture commit's CPU.
const insertTurn = `INSERT INTO spool (tid, user, namespace, request_id, response_id, session, time, data)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tid) DO NOTHING`

// insert spools turns: it appends them to the journal.
func (p *Spool) insert(_ context.Context, turns []*memory.Turn, data []string) error {
	if p.c.closed.Load() {
		return memory.ErrClosed
	}
	return p.j.appendTurns(turns, data)
}
