package sqlkit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Spool is the turn spool (memory.TurnSpool), the background queue's
// input, over the table of either store: a capture inserts a commit's
// turns; ingest claims a scope's pending turns with a lease, renews,
// completes or releases them. A completed turn keeps its metadata (the
// response-id lookup reads it) and loses its text.
type Spool struct {
	c *Conn
	d SpoolDialect
}

// SpoolDialect is how a store's spool differs from the other's.
type SpoolDialect struct {
	Table string
	// Now is the SQL of the time d from now, with its arguments: the
	// store's clock (PostgreSQL's, so replicas agree) or the process's.
	Now func(d time.Duration) (string, []any)
	// Pending and Done select pending and completed rows (as the partial
	// indexes are written); Unset is an unset lease_until or done_at.
	Pending, Done, Unset string
	// ForUpdate locks the rows a claim or redaction reads ("" where the
	// write transaction already excludes other writers).
	ForUpdate string
	// Lock, when set, serialises two processes' claims of one scope.
	Lock func(ctx context.Context, tx *sql.Tx, sc memory.Scope) error
	// Insert writes the prepared turns and their JSON, skipping a turn
	// id already spooled.
	Insert func(ctx context.Context, turns []*memory.Turn, data []string) error
	// Sync, when set, is run by every method but SpoolTurns and
	// SessionByResponse before it reads or writes the table: Insert may
	// leave turns outside it for a while (the SQLite spool's journal),
	// which Sync moves in. With purge (a forget), no copy of their text
	// may stay outside the table. A spool with Sync answers
	// SessionByResponse from the turns outside the table first.
	Sync func(ctx context.Context, purge bool) error
	// Lazy, when set, is a condition that holds on every row and makes
	// the statement's own transaction commit without waiting for its log
	// flush (PostgreSQL: synchronous_commit off for it alone). It is
	// added to the lease bookkeeping (renew, complete, release), which a
	// crash may lose without losing a turn: a turn whose completion is
	// lost stays pending and is ingested again, writing nothing twice
	// (its memories and turn-log row are keyed by the turn), and a lost
	// renewal or release only ends a lease sooner. Capture (Insert), the
	// claim, redaction and deletion keep the synchronous commit.
	Lazy string
	// Committers is how many captures may commit at once (0 or 1: one
	// at a time, as a single-writer file needs).
	Committers int
}

// Committers is how many spool commits may run at once.
func (p *Spool) Committers() int { return max(p.d.Committers, 1) }

// lazy is the dialect's Lazy condition as an AND clause, or "".
func (p *Spool) lazy() string {
	if p.d.Lazy == "" {
		return ""
	}
	return " AND " + p.d.Lazy
}

// leased selects the pending rows some worker holds, as the stores'
// partial index of them is written (spool_leased, turn_spool_leased): a
// scope's lease bookkeeping reads its few leased rows through it, never
// its whole backlog of pending ones.
func (p *Spool) leased() string { return p.d.Pending + " AND owner <> ''" }

// sync runs the dialect's Sync, if any.
func (p *Spool) sync(ctx context.Context, op string, purge bool) error {
	if p.d.Sync == nil {
		return nil
	}
	if err := p.c.open(op); err != nil {
		return err
	}
	if err := p.d.Sync(ctx, purge); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// NewSpool is the spool over c's table as d describes it.
func NewSpool(c *Conn, d SpoolDialect) *Spool { return &Spool{c: c, d: d} }

// SpoolTurns implements memory.TurnSpool.
func (p *Spool) SpoolTurns(ctx context.Context, turns []*memory.Turn) error {
	if err := p.c.open("spool turns"); err != nil {
		return err
	}
	data := make([]string, len(turns))
	now := time.Now()
	for i, t := range turns {
		if t == nil {
			return fmt.Errorf("spool turns: %w: nil turn", memory.ErrInvalid)
		}
		if err := t.Scope.Validate(); err != nil {
			return fmt.Errorf("spool turns: %w", err)
		}
		memory.PrepareSpooled(t, now)
		t.Time = Micro(t.Time)
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("spool turns: %w", err)
		}
		data[i] = string(b)
	}
	if len(turns) == 0 {
		return nil
	}
	return Wrap("spool turns", p.d.Insert(ctx, turns, data))
}

// ClaimTurns implements memory.TurnSpool.
func (p *Spool) ClaimTurns(ctx context.Context, sc memory.Scope, owner string, lease time.Duration, limit int) ([]*memory.Turn, error) {
	if err := p.c.check(sc); err != nil {
		return nil, fmt.Errorf("claim turns: %w", err)
	}
	if owner == "" || limit <= 0 {
		return nil, fmt.Errorf("claim turns: %w: owner and limit are required", memory.ErrInvalid)
	}
	if err := p.sync(ctx, "claim turns", false); err != nil {
		return nil, err
	}
	skipLocked := ""
	if p.d.ForUpdate != "" {
		skipLocked = p.d.ForUpdate + " SKIP LOCKED"
	}
	var out []*memory.Turn
	err := p.c.Write(ctx, func(tx *sql.Tx) error {
		out = nil
		now, nowArgs := p.d.Now(0)
		until, untilArgs := p.d.Now(lease)
		if p.d.Lock != nil {
			if err := p.d.Lock(ctx, tx, sc); err != nil {
				return err
			}
		}
		var busy int
		if err := tx.QueryRowContext(ctx, p.c.Rebind(`SELECT count(*) FROM (SELECT 1 FROM `+p.d.Table+` WHERE user_id = ?
			AND namespace = ? AND `+p.leased()+` AND owner <> ? AND lease_until > `+now+` LIMIT 1) b`),
			append([]any{sc.User, sc.Namespace, owner}, nowArgs...)...).Scan(&busy); err != nil {
			return err
		}
		if busy > 0 {
			return nil
		}
		args := append(append([]any{owner}, untilArgs...), sc.User, sc.Namespace)
		rows, err := tx.QueryContext(ctx, p.c.Rebind(`UPDATE `+p.d.Table+` SET owner = ?, lease_until = `+until+`, attempts = attempts + 1
			WHERE seq IN (SELECT seq FROM `+p.d.Table+` WHERE user_id = ? AND namespace = ? AND `+p.d.Pending+`
				AND (owner = '' OR lease_until <= `+now+`) ORDER BY seq LIMIT ?`+skipLocked+`)
			RETURNING seq, data, attempts`), append(append(args, nowArgs...), limit)...)
		type row struct {
			seq int64
			t   *memory.Turn
		}
		got, err := Collect(rows, err, func(r Scanner) (row, error) {
			var x row
			var data string
			var attempts int
			if err := r.Scan(&x.seq, &data, &attempts); err != nil {
				return x, err
			}
			x.t = &memory.Turn{}
			if err := json.Unmarshal([]byte(data), x.t); err != nil {
				return x, fmt.Errorf("decode: %w", err)
			}
			x.t.Scope, x.t.Attempts = sc, attempts
			return x, nil
		})
		slices.SortFunc(got, func(a, b row) int { return int(a.seq - b.seq) })
		for _, r := range got {
			out = append(out, r.t)
		}
		return err
	})
	return Wrapped("claim turns", out, err)
}

// RenewTurns implements memory.TurnSpool.
func (p *Spool) RenewTurns(ctx context.Context, sc memory.Scope, owner string, lease time.Duration) (int, error) {
	if err := p.sync(ctx, "renew turns", false); err != nil {
		return 0, err
	}
	until, args := p.d.Now(lease)
	n, err := p.c.exec(ctx, `UPDATE `+p.d.Table+` SET lease_until = `+until+`
		WHERE user_id = ? AND namespace = ? AND `+p.leased()+` AND owner = ?`+p.lazy(), append(args, sc.User, sc.Namespace, owner)...)
	return Wrapped("renew turns", n, err)
}

// CompleteTurns implements memory.TurnSpool.
func (p *Spool) CompleteTurns(ctx context.Context, sc memory.Scope, owner string, ids []string) (int, error) {
	if err := p.sync(ctx, "complete turns", false); err != nil {
		return 0, err
	}
	now, args := p.d.Now(0)
	in, list := p.c.In("tid", ids)
	n, err := p.c.exec(ctx, `UPDATE `+p.d.Table+` SET done = true, data = NULL, owner = '', lease_until = `+p.d.Unset+`,
		done_at = `+now+` WHERE `+in+` AND user_id = ? AND namespace = ? AND `+p.leased()+` AND owner = ?`+p.lazy(),
		append(args, list, sc.User, sc.Namespace, owner)...)
	return Wrapped("complete turns", n, err)
}

// ReleaseTurns implements memory.TurnSpool.
func (p *Spool) ReleaseTurns(ctx context.Context, sc memory.Scope, owner string, ids []string) error {
	if err := p.sync(ctx, "release turns", false); err != nil {
		return err
	}
	in, list := p.c.In("tid", ids)
	if _, err := p.c.exec(ctx, `UPDATE `+p.d.Table+` SET owner = '', lease_until = `+p.d.Unset+`
		WHERE `+in+` AND user_id = ? AND namespace = ? AND `+p.leased()+` AND owner = ?`+p.lazy(), list, sc.User, sc.Namespace, owner); err != nil {
		return fmt.Errorf("release turns: %w", err)
	}
	return nil
}

// SessionByResponse implements memory.TurnSpool.
func (p *Spool) SessionByResponse(ctx context.Context, sc memory.Scope, responseID string) (string, bool, error) {
	if err := p.c.check(sc); err != nil {
		return "", false, fmt.Errorf("session by response: %w", err)
	}
	if responseID == "" {
		return "", false, nil
	}
	var sess string
	err := p.c.queryRow(ctx, `SELECT session FROM `+p.d.Table+` WHERE user_id = ? AND namespace = ? AND response_id = ?
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
func (p *Spool) RedactSpooled(ctx context.Context, sc memory.Scope, texts []string, replacement string) (int, error) {
	texts = slices.DeleteFunc(slices.Clone(texts), func(t string) bool { return strings.TrimSpace(t) == "" })
	if len(texts) == 0 {
		return 0, nil
	}
	if err := p.sync(ctx, "redact spooled", true); err != nil {
		return 0, err
	}
	n := 0
	err := p.c.Write(ctx, func(tx *sql.Tx) error {
		type row struct {
			seq     int64
			data    string
			changed bool
		}
		rows, err := tx.QueryContext(ctx, p.c.Rebind(`SELECT seq, data FROM `+p.d.Table+` WHERE user_id = ? AND namespace = ?
			AND (`+p.d.Pending+` OR owner = ?) AND data IS NOT NULL`+p.d.ForUpdate), sc.User, sc.Namespace, memory.HeldOwner)
		rs, err := Collect(rows, err, func(r Scanner) (row, error) {
			var x row
			if err := r.Scan(&x.seq, &x.data); err != nil {
				return x, err
			}
			var t memory.Turn
			if err := json.Unmarshal([]byte(x.data), &t); err != nil {
				return x, err
			}
			if x.changed = memory.RedactTurnTexts(&t, texts, replacement); x.changed {
				b, err := json.Marshal(&t)
				x.data = string(b)
				return x, err
			}
			return x, nil
		})
		if err != nil {
			return err
		}
		n = 0
		for _, r := range rs {
			if !r.changed {
				continue
			}
			if _, err := tx.ExecContext(ctx, p.c.Rebind(`UPDATE `+p.d.Table+` SET data = ? WHERE seq = ?`), r.data, r.seq); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return Wrapped("redact spooled", n, err)
}

// PendingScopes implements memory.TurnSpool.
func (p *Spool) PendingScopes(ctx context.Context, limit int) ([]memory.Scope, error) {
	if err := p.sync(ctx, "pending scopes", false); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 1000
	}
	now, args := p.d.Now(0)
	rows, err := p.c.query(ctx, `SELECT DISTINCT user_id, namespace FROM `+p.d.Table+` WHERE `+p.d.Pending+`
		AND (owner = '' OR lease_until <= `+now+`) LIMIT ?`, append(args, limit)...)
	out, err := Collect(rows, err, ScanScope)
	return Wrapped("pending scopes", out, err)
}

// SpoolStats implements memory.TurnSpool.
func (p *Spool) SpoolStats(ctx context.Context) (pending, leased int, err error) {
	if err := p.sync(ctx, "spool stats", false); err != nil {
		return 0, 0, err
	}
	now, args := p.d.Now(0)
	err = p.c.queryRow(ctx, `SELECT count(*), coalesce(sum(CASE WHEN owner <> '' AND lease_until > `+now+` THEN 1 ELSE 0 END), 0)
		FROM `+p.d.Table+` WHERE `+p.d.Pending, args...).Scan(&pending, &leased)
	if err != nil {
		return 0, 0, fmt.Errorf("spool stats: %w", err)
	}
	return pending, leased, nil
}

// AnyPending implements memory.TurnSpool: one look at the pending rows'
// index however many there are.
func (p *Spool) AnyPending(ctx context.Context) (bool, error) {
	if err := p.sync(ctx, "spool pending", false); err != nil {
		return false, err
	}
	var some bool
	if err := p.c.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+p.d.Table+` WHERE `+p.d.Pending+`)`).Scan(&some); err != nil {
		return false, fmt.Errorf("spool pending: %w", err)
	}
	return some, nil
}

// DeleteSpoolUser implements memory.TurnSpool.
func (p *Spool) DeleteSpoolUser(ctx context.Context, user, ns string) (int, error) {
	if err := p.sync(ctx, "delete spooled turns", true); err != nil {
		return 0, err
	}
	q, args := `DELETE FROM `+p.d.Table+` WHERE user_id = ?`, []any{user}
	if ns != "" {
		q += ` AND namespace = ?`
		args = append(args, ns)
	}
	n, err := p.c.exec(ctx, q, args...)
	return Wrapped("delete spooled turns", n, err)
}

// PruneSpool implements memory.TurnSpool.
func (p *Spool) PruneSpool(ctx context.Context, before time.Time) (int, error) {
	if err := p.sync(ctx, "prune spool", false); err != nil {
		return 0, err
	}
	n, err := p.c.exec(ctx, `DELETE FROM `+p.d.Table+` WHERE `+p.d.Done+` AND done_at < ?`, p.c.Time(before))
	return Wrapped("prune spool", n, err)
}
