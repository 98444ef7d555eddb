package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
)

// The turn spool (memory.TurnSpool) is the turn_spool table: the
// background queue's input. Capture inserts a commit's turns with one
// statement; ingest claims a scope's pending turns with a lease
// (lease_until, on the server's clock, so replicas agree), under a
// transaction-scoped advisory lock on the scope so two replicas' claims
// of one scope serialise. A completed turn keeps its metadata (the
// response-id lookup reads it) and loses its text.

var _ memory.TurnSpool = (*Store)(nil)

// spool is the store's turn spool (embedded in Store).
type spool struct{ *conn }

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

// SpoolTurns implements memory.TurnSpool.
func (s *spool) SpoolTurns(ctx context.Context, turns []*memory.Turn) error {
	if s.closed.Load() {
		return memory.ErrClosed
	}
	if len(turns) == 0 {
		return nil
	}
	n := len(turns)
	tid, users, nss, reqs, resps, sess, times, data := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	now := time.Now()
	for i, t := range turns {
		if t == nil {
			return fmt.Errorf("spool turns: %w: nil turn", memory.ErrInvalid)
		}
		if err := t.Scope.Validate(); err != nil {
			return fmt.Errorf("spool turns: %w", err)
		}
		memory.PrepareSpooled(t, now)
		t.Time = micro(t.Time)
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("spool turns: %w", err)
		}
		tid[i], users[i], nss[i], reqs[i], resps[i], sess[i] = t.ID, t.Scope.User, t.Scope.Namespace, t.RequestID, t.ResponseID, t.Session
		times[i], data[i] = t.Time.Format(time.RFC3339Nano), string(b)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO turn_spool (tid, user_id, namespace, request_id, response_id, session, time, data)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[])
		ON CONFLICT (tid) DO NOTHING`,
		pq.Array(tid), pq.Array(users), pq.Array(nss), pq.Array(reqs), pq.Array(resps), pq.Array(sess), pq.Array(times), pq.Array(data))
	if err != nil {
		return fmt.Errorf("spool turns: %w", err)
	}
	return nil
}

func scopeLockKey(sc memory.Scope) string {
	return "memproxy_spool\x1f" + sc.User + "\x1f" + sc.Namespace
}

// ClaimTurns implements memory.TurnSpool.
func (s *spool) ClaimTurns(ctx context.Context, sc memory.Scope, owner string, lease time.Duration, limit int) ([]*memory.Turn, error) {
	if err := s.check(sc); err != nil {
		return nil, fmt.Errorf("claim turns: %w", err)
	}
	if owner == "" || limit <= 0 {
		return nil, fmt.Errorf("claim turns: %w: owner and limit are required", memory.ErrInvalid)
	}
	var out []*memory.Turn
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, scopeLockKey(sc)); err != nil {
			return err
		}
		var busy bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM turn_spool WHERE user_id = $1 AND namespace = $2 AND NOT done
			AND owner <> '' AND owner <> $3 AND lease_until > clock_timestamp())`, sc.User, sc.Namespace, owner).Scan(&busy); err != nil {
			return err
		}
		if busy {
			return nil
		}
		rows, err := tx.QueryContext(ctx, `UPDATE turn_spool SET owner = $1, lease_until = clock_timestamp() + $2 * interval '1 microsecond',
				attempts = attempts + 1
			WHERE seq IN (SELECT seq FROM turn_spool WHERE user_id = $3 AND namespace = $4 AND NOT done
				AND (owner = '' OR lease_until <= clock_timestamp()) ORDER BY seq LIMIT $5 FOR UPDATE SKIP LOCKED)
			RETURNING seq, data, attempts`, owner, lease.Microseconds(), sc.User, sc.Namespace, limit)
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
			r.t.Scope = sc
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
func (s *spool) RenewTurns(ctx context.Context, sc memory.Scope, owner string, lease time.Duration) (int, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE turn_spool SET lease_until = clock_timestamp() + $1 * interval '1 microsecond'
		WHERE user_id = $2 AND namespace = $3 AND NOT done AND owner = $4`, lease.Microseconds(), sc.User, sc.Namespace, owner)
	if err != nil {
		return 0, fmt.Errorf("renew turns: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// CompleteTurns implements memory.TurnSpool.
func (s *spool) CompleteTurns(ctx context.Context, sc memory.Scope, owner string, ids []string) (int, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE turn_spool SET done = true, data = NULL, owner = '', lease_until = NULL, done_at = clock_timestamp()
		WHERE tid = ANY($1) AND user_id = $2 AND namespace = $3 AND NOT done AND owner = $4`, pq.Array(ids), sc.User, sc.Namespace, owner)
	if err != nil {
		return 0, fmt.Errorf("complete turns: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// ReleaseTurns implements memory.TurnSpool.
func (s *spool) ReleaseTurns(ctx context.Context, sc memory.Scope, owner string, ids []string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE turn_spool SET owner = '', lease_until = NULL
		WHERE tid = ANY($1) AND user_id = $2 AND namespace = $3 AND NOT done AND owner = $4`, pq.Array(ids), sc.User, sc.Namespace, owner)
	if err != nil {
		return fmt.Errorf("release turns: %w", err)
	}
	return nil
}

// SessionByResponse implements memory.TurnSpool.
func (s *spool) SessionByResponse(ctx context.Context, sc memory.Scope, responseID string) (string, bool, error) {
	if err := s.check(sc); err != nil {
		return "", false, fmt.Errorf("session by response: %w", err)
	}
	if responseID == "" {
		return "", false, nil
	}
	var sess string
	err := s.db.QueryRowContext(ctx, `SELECT session FROM turn_spool WHERE user_id = $1 AND namespace = $2 AND response_id = $3
		ORDER BY seq DESC LIMIT 1`, sc.User, sc.Namespace, responseID).Scan(&sess)
	switch {
	case err == sql.ErrNoRows:
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("session by response: %w", err)
	}
	return sess, true, nil
}

// RedactSpooled implements memory.TurnSpool.
func (s *spool) RedactSpooled(ctx context.Context, sc memory.Scope, texts []string, replacement string) (int, error) {
	texts = slices.DeleteFunc(slices.Clone(texts), func(t string) bool { return strings.TrimSpace(t) == "" })
	if len(texts) == 0 {
		return 0, nil
	}
	n := 0
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		n = 0
		rows, err := tx.QueryContext(ctx, `SELECT seq, data FROM turn_spool WHERE user_id = $1 AND namespace = $2
			AND (NOT done OR owner = $3) AND data IS NOT NULL FOR UPDATE`, sc.User, sc.Namespace, memory.HeldOwner)
		if err != nil {
			return err
		}
		type row struct {
			seq  int64
			data string
		}
		var changed []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.seq, &r.data); err != nil {
				rows.Close()
				return err
			}
			var t memory.Turn
			if err := json.Unmarshal([]byte(r.data), &t); err != nil {
				rows.Close()
				return err
			}
			if memory.RedactTurnTexts(&t, texts, replacement) {
				b, err := json.Marshal(&t)
				if err != nil {
					rows.Close()
					return err
				}
				changed = append(changed, row{r.seq, string(b)})
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for _, r := range changed {
			if _, err := tx.ExecContext(ctx, `UPDATE turn_spool SET data = $1 WHERE seq = $2`, r.data, r.seq); err != nil {
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
func (s *spool) PendingScopes(ctx context.Context, limit int) ([]memory.Scope, error) {
	if limit <= 0 {
		limit = 1000
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT user_id, namespace FROM turn_spool
		WHERE NOT done AND (owner = '' OR lease_until <= clock_timestamp()) LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("pending scopes: %w", err)
	}
	defer rows.Close()
	var out []memory.Scope
	for rows.Next() {
		var sc memory.Scope
		if err := rows.Scan(&sc.User, &sc.Namespace); err != nil {
			return nil, fmt.Errorf("pending scopes: %w", err)
		}
		out = append(out, sc)
	}
	return out, rows.Err()
}

// SpoolStats implements memory.TurnSpool.
func (s *spool) SpoolStats(ctx context.Context) (pending, leased int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE owner <> '' AND lease_until > clock_timestamp())
		FROM turn_spool WHERE NOT done`).Scan(&pending, &leased)
	if err != nil {
		return 0, 0, fmt.Errorf("spool stats: %w", err)
	}
	return pending, leased, nil
}

// DeleteSpoolUser implements memory.TurnSpool.
func (s *spool) DeleteSpoolUser(ctx context.Context, user, ns string) (int, error) {
	q, args := `DELETE FROM turn_spool WHERE user_id = $1`, []any{user}
	if ns != "" {
		q += ` AND namespace = $2`
		args = append(args, ns)
	}
	res, err := s.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("delete spooled turns: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// PruneSpool implements memory.TurnSpool.
func (s *spool) PruneSpool(ctx context.Context, before time.Time) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM turn_spool WHERE done AND done_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("prune spool: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
