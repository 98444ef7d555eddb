package postgres

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/pgvector/pgvector-go"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// memColsTemplate are the memories columns every read selects, in
// scanMemory order; EMBEDDING stands for the column's binary send function
// (see Store.cols): formatting 256 floats as text costs the server six
// times more than sending them.
const memColsTemplate = `user_id, namespace, id, tier, text, EMBEDDING, value, confidence, source,
	provenance, key, session, no_decay, created_at, last_used_at, hits, valid_from, valid_to,
	superseded_by, expires_at, archived_at, consolidated_at, context, api`

type scanner = sqlkit.Scanner

// scanRow reads one row of memCols.
func scanRow(r scanner) (*memory.Memory, error) { return scanMemory(r) }

// scanMemory reads one row of memCols (plus extra trailing destinations).
func scanMemory(r scanner, extra ...any) (*memory.Memory, error) {
	var (
		m                                  memory.Memory
		emb                                []byte
		prov                               []byte
		validTo, expires, archived, consol sql.NullTime
	)
	dest := []any{&m.Scope.User, &m.Scope.Namespace, &m.ID, &m.Tier, &m.Text, &emb, &m.Value, &m.Confidence,
		&m.Source, &prov, &m.Key, &m.Session, &m.NoDecay, &m.CreatedAt, &m.LastUsedAt, &m.Hits,
		&m.ValidFrom, &validTo, &m.SupersededBy, &expires, &archived, &consol, &m.Context, &m.API}
	if err := r.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	if emb != nil {
		v, err := decodeVector(emb)
		if err != nil {
			return nil, fmt.Errorf("parse embedding of %s: %w", m.ID, err)
		}
		m.Embedding = v
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

// decodeVector reads pgvector's binary format: dimension (int16), an unused
// int16, then the elements big-endian, float32 for vector or IEEE half for
// halfvec (told apart by the length).
func decodeVector(b []byte) ([]float32, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("vector of %d bytes", len(b))
	}
	dim := int(binary.BigEndian.Uint16(b))
	body := b[4:]
	out := make([]float32, dim)
	switch len(body) {
	case 4 * dim:
		for i := range out {
			out[i] = math.Float32frombits(binary.BigEndian.Uint32(body[4*i:]))
		}
	case 2 * dim:
		for i := range out {
			out[i] = halfToFloat(binary.BigEndian.Uint16(body[2*i:]))
		}
	default:
		return nil, fmt.Errorf("vector of %d dimensions in %d bytes", dim, len(b))
	}
	return out, nil
}

// halfToFloat widens an IEEE 754 half-precision value.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: value = frac * 2^-24
		f := float32(frac) / (1 << 24)
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
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
