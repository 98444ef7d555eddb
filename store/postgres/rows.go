package postgres

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pgvector/pgvector-go"

	"github.com/memproxy/memproxy/memory"
)

// memCols are the memories columns every read selects, in scanMemory order.
const memCols = `user_id, namespace, id, tier, text, embedding::text, value, confidence, source,
	provenance, key, session, no_decay, created_at, last_used_at, hits, valid_from, valid_to,
	superseded_by, expires_at, archived_at, consolidated_at`

type scanner interface{ Scan(dest ...any) error }

// scanMemory reads one row of memCols (plus extra trailing destinations).
func scanMemory(r scanner, extra ...any) (*memory.Memory, error) {
	var (
		m                                  memory.Memory
		emb                                sql.NullString
		prov                               []byte
		validTo, expires, archived, consol sql.NullTime
	)
	dest := []any{&m.Scope.User, &m.Scope.Namespace, &m.ID, &m.Tier, &m.Text, &emb, &m.Value, &m.Confidence,
		&m.Source, &prov, &m.Key, &m.Session, &m.NoDecay, &m.CreatedAt, &m.LastUsedAt, &m.Hits,
		&m.ValidFrom, &validTo, &m.SupersededBy, &expires, &archived, &consol}
	if err := r.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	if emb.Valid {
		var v pgvector.Vector
		if err := v.Parse(emb.String); err != nil {
			return nil, fmt.Errorf("parse embedding of %s: %w", m.ID, err)
		}
		m.Embedding = v.Slice()
	}
	if len(prov) > 0 {
		if err := json.Unmarshal(prov, &m.Provenance); err != nil {
			return nil, fmt.Errorf("parse provenance of %s: %w", m.ID, err)
		}
	}
	m.CreatedAt, m.LastUsedAt, m.ValidFrom = m.CreatedAt.UTC(), m.LastUsedAt.UTC(), m.ValidFrom.UTC()
	m.ValidTo, m.ExpiresAt, m.ArchivedAt, m.ConsolidatedAt = nullTime(validTo), nullTime(expires), nullTime(archived), nullTime(consol)
	return &m, nil
}

func nullTime(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.Time.UTC()
	return &u
}

// timeArg turns an optional time into a query argument (NULL when nil).
func timeArg(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC()
}

// micro truncates t to PostgreSQL's resolution, so what a caller holds
// equals what a later read returns.
func micro(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// vectorArg renders an embedding as pgvector text input, NULL when empty.
func vectorArg(v []float32) any {
	if len(v) == 0 {
		return nil
	}
	return pgvector.NewVector(v).String()
}

// jsonArg marshals v for a jsonb column.
func jsonArg(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// where accumulates AND-ed conditions and their numbered arguments.
type where struct {
	conds []string
	args  []any
}

// arg adds a positional argument and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

// add appends a condition; each %s in cond is replaced by the placeholder of
// the matching argument.
func (w *where) add(cond string, args ...any) {
	ph := make([]any, len(args))
	for i, a := range args {
		ph[i] = w.arg(a)
	}
	w.conds = append(w.conds, fmt.Sprintf(cond, ph...))
}

func (w *where) String() string { return strings.Join(w.conds, " AND ") }

// scoped starts a condition list with the scope, which every memory query
// carries.
func scoped(s memory.Scope) *where {
	w := &where{}
	w.add("user_id = %s AND namespace = %s", s.User, s.Namespace)
	return w
}

func tierStrings(ts []memory.Tier) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t.UTC()
}
