// Package sqlkit is the part of the two SQL stores (store/sqlite,
// store/postgres) that does not depend on the dialect: the client keys,
// operator metadata, gate state, audit log and admin listings, written
// once over a Conn that says how the store binds arguments, names its
// user column and encodes times; and the helpers both stores' own SQL
// uses to scan rows, times and pages. What differs between the stores
// (schemas, the memories and turn-log SQL, transactions, search feeds)
// stays in each.
package sqlkit

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
)

// Dialect is how one store writes the statements of this package.
type Dialect struct {
	// Rebind turns a statement written with ? placeholders and a user_id
	// column into the store's own.
	Rebind func(string) string
	// Time is a time as a time column's argument.
	Time func(time.Time) any
	// AuditSeq is the audit log's row number column.
	AuditSeq string
	// Contains is the condition that a memory's text contains the
	// argument, ignoring case.
	Contains string
	// NoIndex prefixed to a column keeps the planner from choosing an
	// index on it ("+" in SQLite).
	NoIndex string
	// Now is the SQL of the current time, with its arguments: the
	// server's clock on PostgreSQL, so replicas agree.
	Now func() (string, []any)
	// In is the SQL saying col is one of ids, with its one argument.
	In func(col string, ids []string) (string, any)
	// ByIDs is the condition selecting the scope's memories of ids for
	// an update, with its arguments (on PostgreSQL it locks them in id
	// order first: see Postgres).
	ByIDs func(sc memory.Scope, ids []string) (string, []any)
	// Vec is an embedding as the embedding column's argument, Unvec reads
	// the column as MemCols selects it.
	Vec   func([]float32) any
	Unvec func([]byte) ([]float32, error)
	// FoldUsage, when set, is the CTE an Update runs first, with the
	// scope and id as its arguments (PostgreSQL folds the usage counters
	// of its migration 9 into the row written).
	FoldUsage string
	// RecallUpsert, appended to a recall row's INSERT, makes a second row
	// of a request replace the first ("" keeps both, the latest read).
	RecallUpsert string
}

// SQLite is the dialect of store/sqlite: ? placeholders, the user column
// named user, times as Unix microseconds.
var SQLite = Dialect{
	Rebind:   func(q string) string { return strings.ReplaceAll(q, "user_id", "user") },
	Time:     func(t time.Time) any { return t.UnixMicro() },
	AuditSeq: "seq",
	Contains: "instr(lower(text), lower(?)) > 0",
	NoIndex:  "+",
	Vec:      LittleEndian,
	Unvec:    FromLittleEndian,
	Now:      func() (string, []any) { return "?", []any{time.Now().UnixMicro()} },
	In: func(col string, ids []string) (string, any) {
		list, _ := json.Marshal(ids)
		return col + " IN (SELECT value FROM json_each(?))", string(list)
	},
	ByIDs: func(sc memory.Scope, ids []string) (string, []any) {
		list, _ := json.Marshal(ids)
		return "+user = ? AND +namespace = ? AND id IN (SELECT value FROM json_each(?))", []any{sc.User, sc.Namespace, string(list)}
	},
}

// Postgres is the dialect of store/postgres: numbered placeholders,
// timestamptz truncated to the server's microseconds. Its ByIDs locks the
// rows in id order first, so two batches sharing rows cannot deadlock, and
// hands the locked ids to the UPDATE as an array (docs/internals.md,
// "Why the SQL is written as it is").
var Postgres = Dialect{Rebind: numbered, Time: func(t time.Time) any { return Micro(t) }, AuditSeq: "id",
	Contains: "strpos(lower(text), lower(?)) > 0", Now: func() (string, []any) { return "now()", nil },
	In:  func(col string, ids []string) (string, any) { return col + " = ANY(?)", pq.Array(ids) },
	Vec: PGVector, Unvec: FromPGVector,
	FoldUsage: `WITH folded AS (DELETE FROM memory_usage WHERE user_id = ? AND namespace = ? AND id = ?)`,
	RecallUpsert: ` ON CONFLICT (user_id, namespace, request_id) DO UPDATE
		SET time = excluded.time, data = excluded.data, feedback = excluded.feedback`,
	ByIDs: func(sc memory.Scope, ids []string) (string, []any) {
		return `user_id = ? AND namespace = ? AND id = ANY(ARRAY(SELECT id FROM memories
			WHERE user_id = ? AND namespace = ? AND id = ANY(?) ORDER BY id FOR UPDATE))`,
			[]any{sc.User, sc.Namespace, sc.User, sc.Namespace, pq.Array(ids)}
	},
}

// numbered rewrites each ? as $1, $2, ... in order.
func numbered(q string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			b.WriteByte(q[i])
			continue
		}
		n++
		b.WriteString("$" + strconv.Itoa(n))
	}
	return b.String()
}

// Micro truncates t to the microseconds both stores keep, so what a
// caller holds equals what a later read returns.
func Micro(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// Conn is one store's pool as this package uses it.
type Conn struct {
	Dialect
	DB     *sql.DB
	Closed *atomic.Bool
	// Write runs fn in one write transaction of the store.
	Write func(ctx context.Context, fn func(tx *sql.Tx) error) error
	// Join runs fn in the Batch of ctx, or in a write of its own, and
	// then after (when not nil) once fn's writes are committed.
	Join func(ctx context.Context, after func(), fn func(q Execer) error) error
	// Apart runs fn outside any Batch (on SQLite a write inside one
	// fails at once instead of waiting for the batch's lock).
	Apart func(ctx context.Context, fn func(q Execer) error) error
	// Reader, when set, is what a memory read with ctx runs on (SQLite
	// reads through the Batch of ctx, its uncommitted rows included);
	// else the pool.
	Reader func(ctx context.Context) Execer
	// Forget frees the loaded search indexes of a user (of namespace ns
	// when not empty).
	Forget func(user, ns string)
}

// Execer is what a write runs on: a transaction, or the pool.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Savepoint runs fn inside a savepoint of tx, so a write that fails
// leaves tx's earlier writes in place and returns its error.
func Savepoint(ctx context.Context, tx *sql.Tx, fn func(tx *sql.Tx) error) error {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT joined`); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_, rerr := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT joined`)
		_, xerr := tx.ExecContext(ctx, `RELEASE SAVEPOINT joined`)
		return errors.Join(err, rerr, xerr)
	}
	_, err := tx.ExecContext(ctx, `RELEASE SAVEPOINT joined`)
	return err
}

// Wrap is err prefixed with op (as fmt.Errorf("op: %w", err)), or nil
// when err is nil.
func Wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Wrapped is v, or with an error T's zero value and err prefixed with op
// (as Wrap), for the value-returning calls.
func Wrapped[T any](op string, v T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", op, err)
	}
	return v, nil
}

// open fails once the store is closed.
func (c *Conn) open(op string) error {
	if c.Closed.Load() {
		return fmt.Errorf("%s: %w", op, memory.ErrClosed)
	}
	return nil
}

// Check guards every scoped call of c's store: the store is open and the
// scope valid. (A function, not a method, so a store does not export it.)
func Check(c *Conn, sc memory.Scope) error {
	if c.Closed.Load() {
		return memory.ErrClosed
	}
	return sc.Validate()
}

func (c *Conn) check(sc memory.Scope) error { return Check(c, sc) }

func (c *Conn) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return c.DB.QueryContext(ctx, c.Rebind(q), args...)
}

func (c *Conn) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return c.DB.QueryRowContext(ctx, c.Rebind(q), args...)
}

// exec runs one write statement in a write transaction and returns the
// rows it affected.
func (c *Conn) exec(ctx context.Context, q string, args ...any) (int, error) {
	var n int64
	err := c.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, c.Rebind(q), args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// optTime is an optional time as a time column's argument (NULL when nil).
func (d Dialect) optTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return d.Time(*t)
}

// Scanner is a row to scan: *sql.Row or *sql.Rows.
type Scanner interface{ Scan(dest ...any) error }

// Collect scans every row of a query (its rows and error) with scan and
// closes them.
func Collect[T any](rows *sql.Rows, err error, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	err = Each(rows, err, scan, func(v T) { out = append(out, v) })
	return out, err
}

// Each scans every row of a query (its rows and error) with scan, hands
// each to fn and closes them.
func Each[T any](rows *sql.Rows, err error, scan func(Scanner) (T, error), fn func(T)) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return err
		}
		fn(v)
	}
	return rows.Err()
}

// One scans the single row of a query; no row is memory.ErrNotFound
// naming what.
func One[T any](row *sql.Row, scan func(Scanner) (T, error), what string) (T, error) {
	v, err := scan(row)
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("%w: %s", memory.ErrNotFound, what)
	}
	return v, err
}

// Time scans a time column into *p: Unix microseconds (SQLite) or a
// timestamp (PostgreSQL), as UTC.
func Time(p *time.Time) sql.Scanner { return timeDest{t: p} }

// OptTime scans a nullable time column into *p (nil for NULL).
func OptTime(p **time.Time) sql.Scanner { return timeDest{opt: p} }

type timeDest struct {
	t   *time.Time
	opt **time.Time
}

func (d timeDest) Scan(v any) error {
	var t time.Time
	switch x := v.(type) {
	case nil:
		if d.opt == nil {
			return errors.New("NULL in a time column")
		}
		*d.opt = nil
		return nil
	case int64:
		t = time.UnixMicro(x).UTC()
	case time.Time:
		t = x.UTC()
	default:
		return fmt.Errorf("time column holds %T", v)
	}
	if d.opt != nil {
		*d.opt = &t
	} else {
		*d.t = t
	}
	return nil
}

// Limit is a page size, 100 when n is not positive.
func Limit(n int) int {
	if n <= 0 {
		return 100
	}
	return n
}

// Paged makes a page of items read with limit+1: past limit, the page
// stops at limit and Next is next of its last item.
func Paged[T any](items []T, limit int, next func(T) string) memory.Page[T] {
	if len(items) <= limit {
		return memory.Page[T]{Data: items}
	}
	return memory.Page[T]{Data: items[:limit], Next: next(items[limit-1])}
}

// Cursor is an opaque page cursor of a time and a tiebreak.
func Cursor(t time.Time, tie string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(t.UnixMicro(), 10) + ":" + tie))
}

// ParseCursor reads a Cursor.
func ParseCursor(c string) (time.Time, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	ts, tie, ok := strings.Cut(string(b), ":")
	us, perr := strconv.ParseInt(ts, 10, 64)
	if err != nil || !ok || perr != nil {
		return time.Time{}, "", fmt.Errorf("%w: bad cursor", memory.ErrInvalid)
	}
	return time.UnixMicro(us).UTC(), tie, nil
}

// InOrder returns the memories of byID (which it empties) in the order
// of ids, each once.
func InOrder(ids []string, byID map[string]*memory.Memory) []*memory.Memory {
	out := make([]*memory.Memory, 0, len(byID))
	for _, id := range ids {
		if m, ok := byID[id]; ok {
			out = append(out, m)
			delete(byID, id) // a repeated id is returned once
		}
	}
	return out
}
