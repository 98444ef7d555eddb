package sqlkit

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// ScanScope scans a (user, namespace) row.
func ScanScope(r Scanner) (memory.Scope, error) {
	var sc memory.Scope
	err := r.Scan(&sc.User, &sc.Namespace)
	return sc, err
}

// Scopes lists every scope holding memories, ordered by user, namespace.
func (s Store) Scopes(ctx context.Context) ([]memory.Scope, error) {
	if err := s.open("list scopes"); err != nil {
		return nil, err
	}
	rows, err := s.query(ctx, `SELECT DISTINCT user_id, namespace FROM memories ORDER BY user_id, namespace`)
	out, err := Collect(rows, err, ScanScope)
	return Wrapped("list scopes", out, err)
}

// Users lists users holding memories or turns, ordered by user.
func (s Store) Users(ctx context.Context, limit int, cursor string) (memory.Page[memory.UserInfo], error) {
	var page memory.Page[memory.UserInfo]
	if err := s.open("list users"); err != nil {
		return page, err
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return page, fmt.Errorf("list users: %w: bad cursor", memory.ErrInvalid)
	}
	after, limit := string(b), Limit(limit)
	type row struct {
		user, ns string
		n        int
	}
	rows, err := s.query(ctx, `
		WITH scopes AS (
			SELECT user_id, namespace, count(*) AS n FROM memories WHERE user_id > ? GROUP BY user_id, namespace
			UNION ALL
			SELECT DISTINCT user_id, namespace, 0 FROM turns WHERE user_id > ?
		),
		users AS (SELECT DISTINCT user_id FROM scopes ORDER BY user_id LIMIT ?)
		SELECT user_id, namespace, sum(n) FROM scopes WHERE user_id IN (SELECT user_id FROM users)
		GROUP BY user_id, namespace ORDER BY user_id, namespace`, after, after, limit+1)
	rs, err := Collect(rows, err, func(r Scanner) (row, error) {
		var x row
		err := r.Scan(&x.user, &x.ns, &x.n)
		return x, err
	})
	if err != nil {
		return page, fmt.Errorf("list users: %w", err)
	}
	var users []memory.UserInfo
	for _, r := range rs {
		if len(users) == 0 || users[len(users)-1].User != r.user {
			users = append(users, memory.UserInfo{User: r.user})
		}
		u := &users[len(users)-1]
		u.Namespaces = append(u.Namespaces, r.ns)
		u.Memories += r.n
	}
	return Paged(users, limit, func(u memory.UserInfo) string {
		return base64.RawURLEncoding.EncodeToString([]byte(u.User))
	}), nil
}

// AppendAudit records a mutation; it sets e.ID (and e.Time when zero).
// It joins the Batch of ctx.
func (s Store) AppendAudit(ctx context.Context, e *memory.AuditEntry) error {
	if e == nil {
		return fmt.Errorf("append audit: %w: nil entry", memory.ErrInvalid)
	}
	if err := s.check(e.Scope); err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Time = Micro(e.Time)
	err := s.Join(ctx, nil, func(q Execer) error {
		err := q.QueryRowContext(ctx, s.Rebind(`INSERT INTO audit (user_id, namespace, time, actor, action, memory_id,
			before, after, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+s.AuditSeq),
			e.Scope.User, e.Scope.Namespace, s.Time(e.Time), e.Actor, e.Action, e.MemoryID, e.Before, e.After, e.Detail).Scan(&e.ID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // dropped: its user was deleted (the stores' tombstone triggers)
		}
		return err
	})
	return Wrap("append audit", err)
}

// Audit reads the scope's audit log from since, oldest first.
func (s Store) Audit(ctx context.Context, sc memory.Scope, since time.Time, limit int) ([]*memory.AuditEntry, error) {
	if err := s.check(sc); err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	return s.audit(ctx, "user_id = ? AND namespace = ? AND ", []any{sc.User, sc.Namespace}, since, limit)
}

// AuditAll reads the audit log across scopes (of one user when user is
// not empty), oldest first.
func (s Store) AuditAll(ctx context.Context, user string, since time.Time, limit int) ([]*memory.AuditEntry, error) {
	if err := s.open("read audit"); err != nil {
		return nil, err
	}
	if user == "" {
		return s.audit(ctx, "", nil, since, limit)
	}
	return s.audit(ctx, "user_id = ? AND ", []any{user}, since, limit)
}

func (s *Conn) audit(ctx context.Context, cond string, args []any, since time.Time, limit int) ([]*memory.AuditEntry, error) {
	rows, err := s.query(ctx, `SELECT `+s.AuditSeq+`, user_id, namespace, time, actor, action, memory_id, before, after, detail
		FROM audit WHERE `+cond+`time >= ? ORDER BY time, `+s.AuditSeq+` LIMIT ?`, append(args, s.Time(since), Limit(limit))...)
	out, err := Collect(rows, err, func(r Scanner) (*memory.AuditEntry, error) {
		var e memory.AuditEntry
		return &e, r.Scan(&e.ID, &e.Scope.User, &e.Scope.Namespace, Time(&e.Time), &e.Actor, &e.Action, &e.MemoryID,
			&e.Before, &e.After, &e.Detail)
	})
	return Wrapped("read audit", out, err)
}

// DeleteUser removes everything of user (in namespace ns when not empty)
// in one transaction, then frees the user's loaded search indexes.
func (s Store) DeleteUser(ctx context.Context, user, ns string) (memory.DeleteCounts, error) {
	var c memory.DeleteCounts
	if err := s.check(memory.Scope{User: user, Namespace: cmp.Or(ns, memory.DefaultNamespace)}); err != nil {
		return c, fmt.Errorf("delete user: %w", err) // the user part only when ns is empty
	}
	cond, args := "user_id = ?", []any{user}
	if ns != "" {
		cond, args = cond+" AND namespace = ?", append(args, ns)
	}
	err := s.Write(ctx, func(tx *sql.Tx) error {
		for _, d := range []struct {
			table string
			n     *int
		}{{"memories", &c.Memories}, {"turns", &c.Turns}, {"audit", &c.Audit}, {"recall", &c.Recall}, {"gate_state", &c.Other}} {
			res, err := tx.ExecContext(ctx, s.Rebind(`DELETE FROM `+d.table+` WHERE `+cond), args...)
			if err != nil {
				return fmt.Errorf("%s: %w", d.table, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("%s: %w", d.table, err)
			}
			*d.n = int(n)
		}
		return nil
	})
	if err != nil {
		return memory.DeleteCounts{}, fmt.Errorf("delete user: %w", err)
	}
	// Searches would drop the rows as they found them gone; this frees
	// the memory now.
	s.Forget(user, ns)
	return c, nil
}

// SetFeedback attaches an app's score to a request's recall rows.
func (s Store) SetFeedback(ctx context.Context, sc memory.Scope, requestID string, score float64) error {
	if err := s.check(sc); err != nil {
		return fmt.Errorf("set feedback: %w", err)
	}
	n, err := s.exec(ctx, `UPDATE recall SET feedback = ? WHERE user_id = ? AND namespace = ? AND request_id = ?`,
		score, sc.User, sc.Namespace, requestID)
	if err != nil {
		return fmt.Errorf("set feedback: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("set feedback: %w: request %s", memory.ErrNotFound, requestID)
	}
	return nil
}

// CheckEmbedder records the embedder of o in a new store and refuses a
// store created for another: vectors of two models (or dimensions) cannot
// be compared (memory.ErrEmbedderMismatch).
func CheckEmbedder(ctx context.Context, s Store, o memory.OpenOptions) error {
	model, err := s.SetMetaIfAbsent(ctx, memory.MetaEmbedModel, o.Model)
	if err != nil {
		return fmt.Errorf("record embedder: %w", err)
	}
	dimText, err := s.SetMetaIfAbsent(ctx, memory.MetaEmbedDim, strconv.Itoa(o.Dim))
	if err != nil {
		return fmt.Errorf("record embedder: %w", err)
	}
	if dim, _ := strconv.Atoi(dimText); model != o.Model || dim != o.Dim {
		return memory.MismatchError(model, dim, o)
	}
	return nil
}

// TombstoneWindow is how long a deleted user's tombstone drops late
// writes (each store's triggers): longer than any request or job that
// began before the deletion runs. Past it the tombstone is ignored and
// pruned at the next deletion.
const TombstoneWindow = time.Hour

// TombstoneUser records that user is being deleted now (forget-user
// calls it before it deletes the user's rows), in a write of its own so
// every write that starts afterwards, on any replica, sees it; it prunes
// tombstones past the window. Only the management API's forget-user
// leaves one: DeleteUser alone does not.
func (s Eraser) TombstoneUser(ctx context.Context, user string) error {
	now, args := s.Now()
	err := s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.Rebind(`DELETE FROM user_tombstones WHERE deleted_at < ?`),
			s.Time(time.Now().Add(-TombstoneWindow))); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.Rebind(`INSERT INTO user_tombstones (user_id, deleted_at) VALUES (?, `+now+`)
			ON CONFLICT (user_id) DO UPDATE SET deleted_at = excluded.deleted_at`), append([]any{user}, args...)...)
		return err
	})
	return Wrap("tombstone", err)
}

// ClearTombstone ends user's tombstone: the operator writes for the user
// again (an import restoring them), whatever the rows' dates.
func (s Eraser) ClearTombstone(ctx context.Context, user string) error {
	if _, err := s.exec(ctx, `DELETE FROM user_tombstones WHERE user_id = ?`, user); err != nil {
		return fmt.Errorf("clear tombstone: %w", err)
	}
	return nil
}

// RecallByRequest returns the latest recall row of a request in the scope.
func (s Store) RecallByRequest(ctx context.Context, sc memory.Scope, requestID string) (*memory.RecallRecord, error) {
	if err := s.check(sc); err != nil {
		return nil, fmt.Errorf("read recall: %w", err)
	}
	r, err := One(s.queryRow(ctx, `SELECT `+recallCols+` FROM recall WHERE user_id = ? AND namespace = ? AND request_id = ?
		ORDER BY seq DESC LIMIT 1`, sc.User, sc.Namespace, requestID), scanRecall, "request "+requestID)
	return Wrapped("read recall", r, err)
}

// RecallSince reads recall rows of every scope from since, oldest first.
func (s Store) RecallSince(ctx context.Context, since time.Time) ([]*memory.RecallRecord, error) {
	if err := s.open("read recall"); err != nil {
		return nil, err
	}
	rows, err := s.query(ctx, `SELECT `+recallCols+` FROM recall WHERE time >= ? ORDER BY time, seq`, s.Time(since))
	out, err := Collect(rows, err, scanRecall)
	return Wrapped("read recall", out, err)
}

// FindRecall finds a request's latest recall row in any scope.
func (s Store) FindRecall(ctx context.Context, requestID string) (*memory.RecallRecord, error) {
	if err := s.open("find recall"); err != nil {
		return nil, err
	}
	r, err := One(s.queryRow(ctx, `SELECT `+recallCols+` FROM recall WHERE request_id = ? ORDER BY seq DESC LIMIT 1`,
		requestID), scanRecall, "request "+requestID)
	return Wrapped("find recall", r, err)
}

// Eraser is a store's memory.Eraser: the erasure of forgotten text from
// the turn and audit logs, and deleted users' tombstones.
type Eraser struct{ *Conn }

// Eraser hands out the store's memory.Eraser.
func (s Store) Eraser() memory.Eraser { return Eraser{s.Conn} }

// EraseAudit implements memory.Eraser.
func (s Eraser) EraseAudit(ctx context.Context, sc memory.Scope, memoryIDs []string) (int, error) {
	if err := s.check(sc); err != nil {
		return 0, err
	}
	in, list := s.In("memory_id", memoryIDs)
	n, err := s.exec(ctx, `UPDATE audit SET before = '', after = '' WHERE user_id = ? AND namespace = ? AND `+in+`
		AND (before <> '' OR after <> '')`, sc.User, sc.Namespace, list)
	return Wrapped("erase audit", n, err)
}
