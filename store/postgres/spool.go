package postgres

import (
	"context"
	"database/sql"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// The turn spool (memory.TurnSpool) is the turn_spool table: the
// background queue's input. Capture inserts a commit's turns with one
// statement; ingest claims a scope's pending turns with a lease
// (lease_until, on the server's clock, so replicas agree), under a
// transaction-scoped advisory lock on the scope so two replicas' claims
// of one scope serialise. A completed turn keeps its metadata (the
// response-id lookup reads it) and loses its text.

// Spool is the store's turn spool.
func (s *Store) Spool() memory.TurnSpool { return s.spool }

// newSpool is the spool over the store's pool.
func newSpool(c *conn, kc *sqlkit.Conn) *sqlkit.Spool {
	return sqlkit.NewSpool(kc, sqlkit.SpoolDialect{
		Table: "turn_spool",
		Now: func(d time.Duration) (string, []any) {
			if d == 0 {
				return "clock_timestamp()", nil
			}
			return "clock_timestamp() + ? * interval '1 microsecond'", []any{d.Microseconds()}
		},
		Pending: "NOT done", Done: "done", Unset: "NULL", ForUpdate: " FOR UPDATE",
		Lock: func(ctx context.Context, tx *sql.Tx, sc memory.Scope) error {
			_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
				"memproxy_spool\x1f"+sc.User+"\x1f"+sc.Namespace)
			return err
		},
		Insert: c.spoolTurns,
		// The lease bookkeeping commits without waiting for the log
		// flush (sqlkit.SpoolDialect.Lazy): fewer flushes for a
		// capture's commit to queue behind.
		Lazy: "set_config('synchronous_commit', 'off', true) IS NOT NULL",
		// The server flushes its log once for the commits waiting
		// together: captures that arrive during a commit commit beside
		// it rather than after it.
		Committers: 4,
	})
}

// spoolSchema is migration 12 (safe to run again: tests downgrade by
// version): the spool, and turn-log rows keyed by the
// spooled turn's id so a turn ingested twice is logged once.
const spoolSchema = `
CREATE TABLE IF NOT EXISTS turn_spool (
	seq         bigserial PRIMARY KEY,
	tid         text NOT NULL UNIQUE,
	user_id     text NOT NULL,
	namespace   text NOT NULL,
	request_id  text NOT NULL,
	response_id text NOT NULL DEFAULT '',
	session     text NOT NULL DEFAULT '',
	time        timestamptz NOT NULL,
	data        text,
	done        boolean NOT NULL DEFAULT false,
	owner       text NOT NULL DEFAULT '',
	lease_until timestamptz,
	attempts    integer NOT NULL DEFAULT 0,
	done_at     timestamptz
);
CREATE INDEX IF NOT EXISTS turn_spool_pending ON turn_spool (user_id, namespace, seq) WHERE NOT done;
CREATE INDEX IF NOT EXISTS turn_spool_response ON turn_spool (user_id, namespace, response_id) WHERE response_id <> '';
CREATE INDEX IF NOT EXISTS turn_spool_done ON turn_spool (done_at) WHERE done;

ALTER TABLE turns ADD COLUMN IF NOT EXISTS tid text;
CREATE UNIQUE INDEX IF NOT EXISTS turns_tid ON turns (user_id, namespace, tid) WHERE tid IS NOT NULL;
`

// spoolTurns inserts a commit's turns with one statement.
func (s *conn) spoolTurns(ctx context.Context, turns []*memory.Turn, data []string) error {
	n := len(turns)
	tid, users, nss, reqs, resps, sess, times := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, t := range turns {
		tid[i], users[i], nss[i], reqs[i], resps[i], sess[i] = t.ID, t.Scope.User, t.Scope.Namespace, t.RequestID, t.ResponseID, t.Session
		times[i] = t.Time.Format(time.RFC3339Nano)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO turn_spool (tid, user_id, namespace, request_id, response_id, session, time, data)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[])
		ON CONFLICT (tid) DO NOTHING`,
		pq.Array(tid), pq.Array(users), pq.Array(nss), pq.Array(reqs), pq.Array(resps), pq.Array(sess), pq.Array(times), pq.Array(data))
	return err
}
