package sqlkit

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Memories are the memory reads both stores run alike.
type Memories struct {
	c *Conn
	// sel is the store's "SELECT <MemCols> FROM <rows>".
	sel string
	dim int
	// changed, when not nil, learns the ids of the scope whose rows a
	// committed write changed or deleted (SQLite's search engine; that of
	// PostgreSQL follows the database's change feed).
	changed func(ctx context.Context, sc memory.Scope, ids []string)
	// metaChanged, when set, is changed for setMany's writes (they set a
	// timestamp that only the rows' index metadata reads).
	metaChanged func(ctx context.Context, sc memory.Scope, ids []string)
}

// NewMemories is the memory reads and writes of c's store, whose vectors
// have dim dimensions.
func NewMemories(c *Conn, sel string, dim int, changed func(ctx context.Context, sc memory.Scope, ids []string)) Memories {
	return Memories{c: c, sel: sel, dim: dim, changed: changed}
}

// WithMetaChanged is m with f called instead of changed after the writes
// that leave the rows' text, context and embedding alone (archive,
// restore, mark consolidated): search.Engine.MetaChanged.
func (m Memories) WithMetaChanged(f func(ctx context.Context, sc memory.Scope, ids []string)) Memories {
	m.metaChanged = f
	return m
}

func (m Memories) read(ctx context.Context, q string, args ...any) ([]*memory.Memory, error) {
	rows, err := m.c.query(ctx, m.sel+` WHERE `+q, args...)
	return Collect(rows, err, m.scan)
}

func (m Memories) scan(r Scanner) (*memory.Memory, error) { return ScanMemory(m.c.Dialect, r) }

// GetMany returns the memories of the scope found among ids, in the order
// given.
func (m Memories) GetMany(ctx context.Context, sc memory.Scope, ids []string) ([]*memory.Memory, error) {
	if err := m.c.check(sc); err != nil {
		return nil, fmt.Errorf("get memories: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	in, list := m.c.In("id", ids)
	found, err := ReadIn(ctx, m, sc, in, list)
	return Wrapped("get memories", InOrder(ids, found), err)
}

// ReadIn reads the scope's memories meeting cond (with its one
// argument), keyed by id, on Conn.Reader.
func ReadIn(ctx context.Context, m Memories, sc memory.Scope, cond string, arg any) (map[string]*memory.Memory, error) {
	var q Execer = m.c.DB
	if m.c.Reader != nil {
		q = m.c.Reader(ctx)
	}
	rows, err := q.QueryContext(ctx, m.c.Rebind(m.sel+` WHERE `+m.c.NoIndex+`user_id = ? AND `+m.c.NoIndex+`namespace = ? AND `+cond),
		sc.User, sc.Namespace, arg)
	ms, err := Collect(rows, err, m.scan)
	found := make(map[string]*memory.Memory, len(ms))
	for _, x := range ms {
		found[x.ID] = x
	}
	return found, err
}

// Count reports how many memories the scope holds, stopping at most: as
// cheap for a scope of a million as for one just over most.
func Count(ctx context.Context, m Memories, sc memory.Scope, most int) (int, error) {
	var n int
	err := m.c.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM memories WHERE user_id = ? AND namespace = ? LIMIT ?) t`,
		sc.User, sc.Namespace, most).Scan(&n)
	return Wrapped("count scope", n, err)
}

// Update rewrites every mutable field of mem (all but id, scope,
// created_at and api); it joins the Batch of ctx.
func (m Memories) Update(ctx context.Context, sc memory.Scope, mem *memory.Memory) error {
	if err := m.c.check(sc); err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	if err := CheckUpdate(sc, mem, m.dim); err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	q, args := `UPDATE memories SET `+updateSet, m.c.updateArgs(mem)
	if m.c.FoldUsage != "" {
		q, args = m.c.FoldUsage+` `+q, append([]any{sc.User, sc.Namespace, mem.ID}, args...)
	}
	if err := m.one(ctx, true, sc, mem.ID, q, args...); err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	mem.Scope = sc
	return nil
}

// List pages the scope's memories, newest first.
func (m Memories) List(ctx context.Context, sc memory.Scope, f memory.ListFilter) (memory.Page[*memory.Memory], error) {
	var page memory.Page[*memory.Memory]
	if err := m.c.check(sc); err != nil {
		return page, fmt.Errorf("list memories: %w", err)
	}
	where := []string{"user_id = ?", "namespace = ?"}
	args := []any{sc.User, sc.Namespace}
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if len(f.Tiers) > 0 {
		for _, t := range f.Tiers {
			args = append(args, string(t))
		}
		where = append(where, "tier IN (?"+strings.Repeat(", ?", len(f.Tiers)-1)+")")
	}
	now := m.c.Time(f.At)
	if f.At.IsZero() {
		now = m.c.Time(time.Now())
	}
	switch f.State {
	case memory.StateAny:
	case memory.StateLive:
		add("valid_to IS NULL AND archived_at IS NULL AND (expires_at IS NULL OR "+m.c.NoIndex+"expires_at > ?)", now)
	case memory.StateSuperseded:
		add("valid_to IS NOT NULL")
	case memory.StateArchived:
		add("archived_at IS NOT NULL")
	case memory.StateExpired:
		add("expires_at IS NOT NULL AND expires_at <= ?", now)
	default:
		return page, fmt.Errorf("list memories: %w: unknown state %q", memory.ErrInvalid, f.State)
	}
	if f.Key != "" {
		add("key = ? AND key <> ''", f.Key) // the key index's condition (HistoryWhere)
	}
	if f.Query != "" {
		add(m.c.Contains, f.Query)
	}
	if f.Source != "" {
		add("source = ?", string(f.Source))
	}
	if f.Unconsolidated {
		add("tier = 'event' AND consolidated_at IS NULL")
	}
	if f.Session != "" {
		add("session = ?", f.Session)
	}
	if !f.Since.IsZero() {
		add("created_at >= ?", m.c.Time(f.Since))
	}
	if !f.Until.IsZero() {
		add("created_at <= ?", m.c.Time(f.Until))
	}
	if f.Cursor != "" {
		t, id, err := ParseCursor(f.Cursor)
		if err != nil {
			return page, fmt.Errorf("list memories: %w", err)
		}
		add("(created_at, id) < (?, ?)", m.c.Time(t), id)
	}
	limit := Limit(f.Limit)
	ms, err := m.read(ctx, strings.Join(where, " AND ")+` ORDER BY created_at DESC, id DESC LIMIT ?`, append(args, limit+1)...)
	return Wrapped("list memories", Paged(ms, limit, func(x *memory.Memory) string { return Cursor(x.CreatedAt, x.ID) }), err)
}

// HistoryWhere selects a key's memories. The key index is partial (only
// rows with a key), and SQLite uses a partial index only when the query
// itself implies its condition: "key = ?" alone, whose parameter could be
// empty, walked the scope's every row for each fact the background
// reconciles.
const HistoryWhere = `user_id = ? AND namespace = ? AND key = ? AND key <> ''`

// History returns every memory of the key, oldest first.
func (m Memories) History(ctx context.Context, sc memory.Scope, key string) ([]*memory.Memory, error) {
	if err := m.c.check(sc); err != nil {
		return nil, fmt.Errorf("memory history: %w", err)
	}
	if key == "" {
		return nil, nil
	}
	ms, err := m.read(ctx, HistoryWhere+` ORDER BY valid_from, created_at, id`, sc.User, sc.Namespace, key)
	return Wrapped("memory history", ms, err)
}

// Prepare guards an Insert of ms into scope sc on c's store (Check),
// validates each memory and fills its defaults (id, creation, last use
// and validity from now, to the microsecond the stores keep).
func Prepare(c *Conn, sc memory.Scope, ms []*memory.Memory, dim int) error {
	if err := c.check(sc); err != nil {
		return fmt.Errorf("insert memories: %w", err)
	}
	now := Micro(time.Now())
	for _, m := range ms {
		if err := fits(sc, m, dim); err != nil {
			return fmt.Errorf("insert memories: %w", err)
		}
		m.Scope = sc
		if m.ID == "" {
			m.ID = memory.NewID()
		}
		if m.CreatedAt.IsZero() {
			m.CreatedAt = now
		}
		if m.LastUsedAt.IsZero() {
			m.LastUsedAt = m.CreatedAt
		}
		if m.ValidFrom.IsZero() {
			m.ValidFrom = m.CreatedAt
		}
	}
	return nil
}

// CheckUpdate validates m as the new state of a memory of scope sc.
func CheckUpdate(sc memory.Scope, m *memory.Memory, dim int) error {
	if m != nil && m.ID == "" {
		return fmt.Errorf("%w: no id", memory.ErrInvalid)
	}
	return fits(sc, m, dim)
}

// fits checks that m is a valid memory of scope sc (or of none yet).
func fits(sc memory.Scope, m *memory.Memory, dim int) error {
	if m == nil {
		return fmt.Errorf("%w: nil memory", memory.ErrInvalid)
	}
	if m.Scope != (memory.Scope{}) && m.Scope != sc {
		return fmt.Errorf("%w: memory belongs to %v, not %v", memory.ErrInvalidScope, m.Scope, sc)
	}
	return m.Validate(dim)
}

// byID selects one memory of the scope by id, through the id index.
func (m Memories) byID() string {
	return m.c.NoIndex + "user_id = ? AND " + m.c.NoIndex + "namespace = ? AND id = ?"
}

// Get returns one memory of the scope.
func (m Memories) Get(ctx context.Context, sc memory.Scope, id string) (*memory.Memory, error) {
	if err := m.c.check(sc); err != nil {
		return nil, fmt.Errorf("get memory: %w", err)
	}
	ms, err := m.read(ctx, m.byID(), sc.User, sc.Namespace, id)
	if err != nil {
		return nil, fmt.Errorf("get memory: %w", err)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("get memory: %w: %s", memory.ErrNotFound, id)
	}
	return ms[0], nil
}

// write runs fn as Conn.Join (join) or Conn.Apart does and, once fn's
// writes are committed, tells changed of *ids (which fn may fill).
func (m Memories) write(ctx context.Context, join bool, sc memory.Scope, ids *[]string, fn func(q Execer) error) error {
	var after func()
	if m.changed != nil {
		after = func() { m.changed(context.WithoutCancel(ctx), sc, *ids) }
	}
	if join {
		return m.c.Join(ctx, after, fn)
	}
	if err := m.c.Apart(ctx, fn); err != nil {
		return err
	}
	if after != nil {
		after()
	}
	return nil
}

// one runs a write of the memory id of the scope: none written is
// memory.ErrNotFound.
func (m Memories) one(ctx context.Context, join bool, sc memory.Scope, id, q string, args ...any) error {
	ids := []string{id}
	return m.write(ctx, join, sc, &ids, func(x Execer) error {
		res, err := x.ExecContext(ctx, m.c.Rebind(q+` WHERE `+m.byID()), append(args, sc.User, sc.Namespace, id)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp.Or(err, fmt.Errorf("%w: memory %s", memory.ErrNotFound, id))
		}
		return nil
	})
}

// Delete removes one memory.
func (m Memories) Delete(ctx context.Context, sc memory.Scope, id string) error {
	if err := m.c.check(sc); err != nil {
		return fmt.Errorf("delete memory: %w", err)
	}
	return Wrap("delete memory", m.one(ctx, false, sc, id, `DELETE FROM memories`))
}

// Supersede marks oldID replaced by newID at t; Supersede and
// MarkConsolidated join the Batch ctx carries, if any (a decision's
// writes and their audit rows commit together).
func (m Memories) Supersede(ctx context.Context, sc memory.Scope, oldID, newID string, t time.Time) error {
	if err := m.c.check(sc); err != nil {
		return fmt.Errorf("supersede memory: %w", err)
	}
	return Wrap("supersede memory", m.one(ctx, true, sc, oldID, `UPDATE memories SET valid_to = ?, superseded_by = ?`, m.c.Time(t), newID))
}

// setMany runs an UPDATE of the scope's memories of ids (those not in the
// scope are ignored), joining the Batch of ctx when join is set: set is
// its SET clause, args their arguments.
func (m Memories) setMany(ctx context.Context, join bool, op string, sc memory.Scope, ids []string, set string, args ...any) error {
	if err := m.c.check(sc); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if len(ids) == 0 {
		return nil
	}
	cond, cargs := m.c.ByIDs(sc, ids)
	if m.metaChanged != nil {
		m.changed = m.metaChanged
	}
	err := m.write(ctx, join, sc, &ids, func(x Execer) error {
		_, err := x.ExecContext(ctx, m.c.Rebind(`UPDATE memories SET `+set+` WHERE `+cond), append(args, cargs...)...)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// MarkConsolidated sets consolidated_at=t on the given events.
func (m Memories) MarkConsolidated(ctx context.Context, sc memory.Scope, ids []string, t time.Time) error {
	return m.setMany(ctx, true, "mark consolidated", sc, ids, `consolidated_at = ?`, m.c.Time(t))
}

// Archive takes memories out of recall at t.
func (m Memories) Archive(ctx context.Context, sc memory.Scope, ids []string, t time.Time) error {
	return m.setMany(ctx, false, "archive memories", sc, ids, `archived_at = ?`, m.c.Time(t))
}

// Restore brings archived memories back.
func (m Memories) Restore(ctx context.Context, sc memory.Scope, ids []string) error {
	return m.setMany(ctx, false, "restore memories", sc, ids, `archived_at = NULL`)
}

// Purge deletes memories archived before t and those whose TTL expired
// before t (the conditions of the partial indexes on both).
func (m Memories) Purge(ctx context.Context, sc memory.Scope, before time.Time) (int, error) {
	if err := m.c.check(sc); err != nil {
		return 0, fmt.Errorf("purge memories: %w", err)
	}
	var ids []string
	b := m.c.Time(before)
	err := m.write(ctx, false, sc, &ids, func(x Execer) error {
		rows, err := x.QueryContext(ctx, m.c.Rebind(`DELETE FROM memories WHERE user_id = ? AND namespace = ?
			AND ((archived_at IS NOT NULL AND archived_at < ?) OR (expires_at IS NOT NULL AND expires_at < ?)) RETURNING id`),
			sc.User, sc.Namespace, b, b)
		ids, err = Collect(rows, err, func(r Scanner) (string, error) {
			var id string
			err := r.Scan(&id)
			return id, err
		})
		return err
	})
	return Wrapped("purge memories", len(ids), err)
}
