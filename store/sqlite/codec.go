package sqlite

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// Times are stored as Unix microseconds: the precision PostgreSQL keeps,
// so both stores round-trip the same values.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(v int64) time.Time { return time.UnixMicro(v).UTC() }

func nullMicros(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMicro()
}

func fromNullMicros(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMicros(v.Int64)
	return &t
}

// encodeVec stores a vector as little-endian float32s; nil stays NULL.
func encodeVec(v []float32) []byte {
	if v == nil {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	if b == nil {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// memCols is the column list scanMemory reads, in order.
const memCols = `id, user, namespace, tier, text, embedding, value, confidence, source, provenance, key, session,
	no_decay, created_at, last_used_at, hits, valid_from, valid_to, superseded_by, expires_at, archived_at, consolidated_at, context, api`

type scanner = sqlkit.Scanner

func scanMemory(r scanner) (*memory.Memory, error) {
	var (
		m                                        memory.Memory
		emb                                      []byte
		prov                                     string
		noDecay                                  int
		created, lastUsed, validFrom             int64
		validTo, expires, archived, consolidated sql.NullInt64
	)
	if err := r.Scan(&m.ID, &m.Scope.User, &m.Scope.Namespace, &m.Tier, &m.Text, &emb, &m.Value, &m.Confidence,
		&m.Source, &prov, &m.Key, &m.Session, &noDecay, &created, &lastUsed, &m.Hits, &validFrom, &validTo,
		&m.SupersededBy, &expires, &archived, &consolidated, &m.Context, &m.API); err != nil {
		return nil, err
	}
	m.Embedding = decodeVec(emb)
	if prov != "" && prov != "{}" {
		if err := json.Unmarshal([]byte(prov), &m.Provenance); err != nil {
			return nil, fmt.Errorf("decode provenance of %s: %w", m.ID, err)
		}
	}
	m.NoDecay = noDecay != 0
	m.CreatedAt, m.LastUsedAt, m.ValidFrom = fromMicros(created), fromMicros(lastUsed), fromMicros(validFrom)
	m.ValidTo, m.ExpiresAt = fromNullMicros(validTo), fromNullMicros(expires)
	m.ArchivedAt, m.ConsolidatedAt = fromNullMicros(archived), fromNullMicros(consolidated)
	return &m, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
