package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/memproxy/memproxy/internal/sqlitestmt"

	"github.com/memproxy/memproxy/memory"
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
	db     *sql.DB
	mu     sync.Mutex // serialises this process's writes
	closed atomic.Bool
	now    func() time.Time
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
`

// OpenSpool opens (creating if needed) the spool file at path (see
// SpoolPath): WAL, busy_timeout, transactions IMMEDIATE.
func OpenSpool(ctx context.Context, path string) (*Spool, error) {
	base, err := msqlite.NewConnector(dsn(path, "immediate"))
	if err != nil {
		return nil, fmt.Errorf("open spool %s: %w", path, err)
	}
	db := sql.OpenDB(sqlitestmt.Connector{Connector: base})
	db.SetMaxOpenConns(2)
	db.SetMaxIdleConns(2)
	if _, err := db.ExecContext(ctx, spoolSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open spool %s: %w", path, err)
	}
	return &Spool{db: db, now: time.Now}, nil
}

// DB is the spool's connection pool, for tools and tests.
func (p *Spool) DB() *sql.DB { return p.db }

// Close closes the spool; it is safe to call twice.
func (p *Spool) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	return p.db.Close()
}

func (p *Spool) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if p.closed.Load() {
		return memory.ErrClosed
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// SpoolTurns implements memory.TurnSpool.
func (p *Spool) SpoolTurns(ctx context.Context, turns []*memory.Turn) error {
	for _, t := range turns {
		if t == nil {
			return fmt.Errorf("spool turns: %w: nil turn", memory.ErrInvalid)
		}
		if err := t.Scope.Validate(); err != nil {
			return fmt.Errorf("spool turns: %w", err)
		}
	}
	err := p.write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO spool (tid, user, namespace, request_id, response_id, session, time, data)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tid) DO NOTHING`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, t := range turns {
			memory.PrepareSpooled(t, p.now())
			data, err := json.Marshal(t)
			if err != nil {
				return err
			}
			if _, err := st.ExecContext(ctx, t.ID, t.Scope.User, t.Scope.Namespace, t.RequestID, t.ResponseID, t.Session,
				micros(t.Time), string(data)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("spool turns: %w", err)
	}
	return nil
}

// ClaimTurns implements memory.TurnSpool.
func (p *Spool) ClaimTurns(ctx context.Context, s memory.Scope, owner string, lease time.Duration, limit int) ([]*memory.Turn, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("claim turns: %w", err)
	}
	if owner == "" || limit <= 0 {
		return nil, fmt.Errorf("claim turns: %w: owner and limit are required", memory.ErrInvalid)
	}
	var out []*memory.Turn
	err := p.write(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		now := micros(p.now())
		var busy int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM spool WHERE user = ? AND namespace = ? AND done = 0
			AND owner != '' AND owner != ? AND lease_until > ?`, s.User, s.Namespace, owner, now).Scan(&busy); err != nil {
			return err
		}
		if busy > 0 {
			return nil
		}
		rows, err := tx.QueryContext(ctx, `UPDATE spool SET owner = ?, lease_until = ?, attempts = attempts + 1
			WHERE seq IN (SELECT seq FROM spool WHERE user = ? AND namespace = ? AND done = 0
				AND (owner = '' OR lease_until <= ?) ORDER BY seq LIMIT ?)
			RETURNING seq, data, attempts`, owner, now+lease.Microseconds(), s.User, s.Namespace, now, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		type row struct {
			seq int64
			t   *memory.Turn
		}
		var got []row
		for rows.Next() {
			var r row
			var data string
			var attempts int
			if err := rows.Scan(&r.seq, &data, &attempts); err != nil {
				return err
			}
			r.t = new(memory.Turn)
			if err := json.Unmarshal([]byte(data), r.t); err != nil {
				return fmt.Errorf("decode: %w", err)
			}
			r.t.Attempts = attempts
			r.t.Scope = s
			got = append(got, r)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		slices.SortFunc(got, func(a, b row) int { return int(a.seq - b.seq) })
		for _, r := range got {
			out = append(out, r.t)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim turns: %w", err)
	}
	return out, nil
}

// RenewTurns implements memory.TurnSpool.
func (p *Spool) RenewTurns(ctx context.Context, s memory.Scope, owner string, lease time.Duration) (int, error) {
	var n int64
	err := p.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE spool SET lease_until = ? WHERE user = ? AND namespace = ? AND done = 0 AND owner = ?`,
			micros(p.now().Add(lease)), s.User, s.Namespace, owner)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("renew turns: %w", err)
	}
	return int(n), nil
}

// CompleteTurns implements memory.TurnSpool.
func (p *Spool) CompleteTurns(ctx context.Context, s memory.Scope, owner string, ids []string) (int, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return 0, fmt.Errorf("complete turns: %w", err)
	}
	var n int64
	err = p.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE spool SET done = 1, data = NULL, owner = '', lease_until = 0, done_at = ?
			WHERE tid IN (SELECT value FROM json_each(?)) AND user = ? AND namespace = ? AND done = 0 AND owner = ?`,
			micros(p.now()), string(list), s.User, s.Namespace, owner)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("complete turns: %w", err)
	}
	return int(n), nil
}

// ReleaseTurns implements memory.TurnSpool.
func (p *Spool) ReleaseTurns(ctx context.Context, s memory.Scope, owner string, ids []string) error {
	list, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("release turns: %w", err)
	}
	err = p.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE spool SET owner = '', lease_until = 0
			WHERE tid IN (SELECT value FROM json_each(?)) AND user = ? AND namespace = ? AND done = 0 AND owner = ?`,
			string(list), s.User, s.Namespace, owner)
		return err
	})
	if err != nil {
		return fmt.Errorf("release turns: %w", err)
	}
	return nil
}

// SessionByResponse implements memory.TurnSpool.
func (p *Spool) SessionByResponse(ctx context.Context, s memory.Scope, responseID string) (string, bool, error) {
	if err := s.Validate(); err != nil {
		return "", false, fmt.Errorf("session by response: %w", err)
	}
	if responseID == "" {
		return "", false, nil
	}
	var sess string
	err := p.db.QueryRowContext(ctx, `SELECT session FROM spool WHERE user = ? AND namespace = ? AND response_id = ?
		ORDER BY seq DESC LIMIT 1`, s.User, s.Namespace, responseID).Scan(&sess)
	switch {
	case err == sql.ErrNoRows:
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("session by response: %w", err)
	}
	return sess, true, nil
}

// RedactSpooled implements memory.TurnSpool.
func (p *Spool) RedactSpooled(ctx context.Context, s memory.Scope, texts []string, replacement string) (int, error) {
	texts = slices.DeleteFunc(slices.Clone(texts), func(t string) bool { return strings.TrimSpace(t) == "" })
	if len(texts) == 0 {
		return 0, nil
	}
	n := 0
	err := p.write(ctx, func(tx *sql.Tx) error {
		n = 0
		rows, err := tx.QueryContext(ctx, `SELECT seq, data FROM spool WHERE user = ? AND namespace = ?
			AND (done = 0 OR owner = ?) AND data IS NOT NULL`, s.User, s.Namespace, memory.HeldOwner)
		if err != nil {
			return err
		}
		type row struct {
			seq  int64
			data string
		}
		var changed []row
		for rows.Next() {
			var seq int64
			var data string
			if err := rows.Scan(&seq, &data); err != nil {
				rows.Close()
				return err
			}
			var t memory.Turn
			if err := json.Unmarshal([]byte(data), &t); err != nil {
				rows.Close()
				return err
			}
			if memory.RedactTurnTexts(&t, texts, replacement) {
				b, err := json.Marshal(&t)
				if err != nil {
					rows.Close()
					return err
				}
				changed = append(changed, row{seq, string(b)})
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for _, r := range changed {
			if _, err := tx.ExecContext(ctx, `UPDATE spool SET data = ? WHERE seq = ?`, r.data, r.seq); err != nil {
				return err
			}
		}
		n = len(changed)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("redact spooled: %w", err)
	}
	return n, nil
}

// PendingScopes implements memory.TurnSpool.
func (p *Spool) PendingScopes(ctx context.Context, limit int) ([]memory.Scope, error) {
	if limit <= 0 {
		limit = 1000
	}
	rows, err := p.db.QueryContext(ctx, `SELECT DISTINCT user, namespace FROM spool WHERE done = 0 AND (owner = '' OR lease_until <= ?) LIMIT ?`,
		micros(p.now()), limit)
	if err != nil {
		return nil, fmt.Errorf("pending scopes: %w", err)
	}
	defer rows.Close()
	var out []memory.Scope
	for rows.Next() {
		var s memory.Scope
		if err := rows.Scan(&s.User, &s.Namespace); err != nil {
			return nil, fmt.Errorf("pending scopes: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SpoolStats implements memory.TurnSpool.
func (p *Spool) SpoolStats(ctx context.Context) (pending, leased int, err error) {
	err = p.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(owner != '' AND lease_until > ?), 0) FROM spool WHERE done = 0`,
		micros(p.now())).Scan(&pending, &leased)
	if err != nil {
		return 0, 0, fmt.Errorf("spool stats: %w", err)
	}
	return pending, leased, nil
}

// DeleteSpoolUser implements memory.TurnSpool.
func (p *Spool) DeleteSpoolUser(ctx context.Context, user, ns string) (int, error) {
	var n int64
	err := p.write(ctx, func(tx *sql.Tx) error {
		q, args := `DELETE FROM spool WHERE user = ?`, []any{user}
		if ns != "" {
			q += ` AND namespace = ?`
			args = append(args, ns)
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete spooled turns: %w", err)
	}
	return int(n), nil
}

// PruneSpool implements memory.TurnSpool.
func (p *Spool) PruneSpool(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := p.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM spool WHERE done = 1 AND done_at < ?`, micros(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune spool: %w", err)
	}
	return int(n), nil
}
