package sqlkit

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pgvector/pgvector-go"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
)

// MemCols are the memories columns every read of whole memories selects,
// in ScanMemory order, and every Insert writes (with emb the embedding
// column: on PostgreSQL its binary send function, since formatting 256
// floats as text costs the server six times more than sending them).
func MemCols(emb string) string {
	return `user_id, namespace, id, tier, text, ` + emb + `, value, confidence, source, provenance, key, session,
	no_decay, created_at, last_used_at, hits, valid_from, valid_to, superseded_by, expires_at, archived_at, consolidated_at,
	context, api`
}

// InsertValues is n rows of MemCols' placeholders, for an INSERT.
func InsertValues(n int) string {
	return strings.Repeat(", ("+strings.Repeat(", ?", 24)[2:]+")", n)[2:]
}

// MemoryArgs are m's values of MemCols, as d binds them. (Functions of
// the dialect, not methods: a store embeds its Dialect through Conn, and
// these stay out of its method set.)
func MemoryArgs(d Dialect, m *memory.Memory) []any {
	return []any{m.Scope.User, m.Scope.Namespace, m.ID, string(m.Tier), m.Text, d.Vec(m.Embedding), m.Value,
		m.Confidence, string(m.Source), provJSON(m.Provenance), m.Key, m.Session, m.NoDecay, d.Time(m.CreatedAt),
		d.Time(m.LastUsedAt), m.Hits, d.Time(m.ValidFrom), d.optTime(m.ValidTo), m.SupersededBy, d.optTime(m.ExpiresAt),
		d.optTime(m.ArchivedAt), d.optTime(m.ConsolidatedAt), m.Context, m.API}
}

// updateSet is the SET clause of an Update (every mutable field: all but
// id, scope, created_at and api; a zero last use or validity start is
// the creation time), in updateArgs order.
const updateSet = `tier = ?, text = ?, embedding = ?, value = ?, confidence = ?, source = ?, provenance = ?, key = ?,
	session = ?, no_decay = ?, last_used_at = coalesce(?, created_at), hits = ?, valid_from = coalesce(?, created_at),
	valid_to = ?, superseded_by = ?, expires_at = ?, archived_at = ?, consolidated_at = ?, context = ?`

func (d Dialect) updateArgs(m *memory.Memory) []any {
	var lastUsed, validFrom any // NULL: the creation time
	if !m.LastUsedAt.IsZero() {
		lastUsed = d.Time(m.LastUsedAt)
	}
	if !m.ValidFrom.IsZero() {
		validFrom = d.Time(m.ValidFrom)
	}
	return []any{string(m.Tier), m.Text, d.Vec(m.Embedding), m.Value, m.Confidence, string(m.Source), provJSON(m.Provenance),
		m.Key, m.Session, m.NoDecay, lastUsed, m.Hits, validFrom, d.optTime(m.ValidTo), m.SupersededBy,
		d.optTime(m.ExpiresAt), d.optTime(m.ArchivedAt), d.optTime(m.ConsolidatedAt), m.Context}
}

// AsStored is m as ScanMemory reads its row back once written: a copy
// whose times are UTC to the microsecond (a last use before 1970 reads
// back as 1970: memory_rows takes the later of it and the usage rows'),
// and whose provenance is its JSON read back.
func AsStored(m *memory.Memory) *memory.Memory {
	c := m.Clone()
	c.CreatedAt, c.ValidFrom = Micro(c.CreatedAt), Micro(c.ValidFrom)
	if c.LastUsedAt = Micro(c.LastUsedAt); c.LastUsedAt.UnixMicro() < 0 {
		c.LastUsedAt = time.UnixMicro(0).UTC()
	}
	for _, p := range []**time.Time{&c.ValidTo, &c.ExpiresAt, &c.ArchivedAt, &c.ConsolidatedAt} {
		if *p != nil {
			t := Micro(**p)
			*p = &t
		}
	}
	c.Provenance = memory.Provenance{}
	if prov := provJSON(m.Provenance); prov != "{}" {
		_ = json.Unmarshal([]byte(prov), &c.Provenance)
	}
	if len(c.Embedding) == 0 {
		c.Embedding = nil
	}
	return c
}

func provJSON(p memory.Provenance) string {
	b, _ := json.Marshal(p)
	return string(b)
}

// ScanMemory reads one row of MemCols (plus extra trailing destinations)
// as d encodes it.
func ScanMemory(d Dialect, r Scanner, extra ...any) (*memory.Memory, error) {
	var (
		m         memory.Memory
		emb, prov []byte
	)
	dest := []any{&m.Scope.User, &m.Scope.Namespace, &m.ID, &m.Tier, &m.Text, &emb, &m.Value, &m.Confidence,
		&m.Source, &prov, &m.Key, &m.Session, &m.NoDecay, Time(&m.CreatedAt), Time(&m.LastUsedAt), &m.Hits,
		Time(&m.ValidFrom), OptTime(&m.ValidTo), &m.SupersededBy, OptTime(&m.ExpiresAt), OptTime(&m.ArchivedAt),
		OptTime(&m.ConsolidatedAt), &m.Context, &m.API}
	if err := r.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	var err error
	if m.Embedding, err = d.Unvec(emb); err != nil {
		return nil, fmt.Errorf("decode embedding of %s: %w", m.ID, err)
	}
	if len(prov) > 0 && string(prov) != "{}" {
		if err := json.Unmarshal(prov, &m.Provenance); err != nil {
			return nil, fmt.Errorf("decode provenance of %s: %w", m.ID, err)
		}
	}
	return &m, nil
}

// IndexCols are the columns of a memory the search index keeps, in
// ScanIndexRow order: seq is the row order (SQLite's rowid, PostgreSQL's
// creation time), emb the embedding as Unvec reads it.
func IndexCols(seq, emb string) string {
	return `id, ` + seq + `, tier, valid_to IS NOT NULL OR archived_at IS NOT NULL, expires_at,
	consolidated_at IS NOT NULL, ` + emb + `, text, context`
}

// IndexMetaCols are IndexCols without the embedding, text and context
// (search.MetaSource), in ScanIndexMeta order.
func IndexMetaCols(seq string) string {
	return `id, ` + seq + `, tier, valid_to IS NOT NULL OR archived_at IS NOT NULL, expires_at, consolidated_at IS NOT NULL`
}

// indexMeta is what IndexCols and IndexMetaCols share, as scanned.
type indexMeta struct {
	tier       string
	dead, cons bool
	expires    *time.Time
}

func (x *indexMeta) dest() []any {
	return []any{&x.tier, &x.dead, OptTime(&x.expires), &x.cons}
}

func (x *indexMeta) meta() search.Meta {
	var exp int64
	if x.expires != nil {
		exp = x.expires.UnixMicro()
	}
	return search.NewMeta(memory.Tier(x.tier), x.dead, exp, x.cons)
}

// ScanIndexMeta reads one row of IndexMetaCols.
func ScanIndexMeta(r Scanner) (id string, seq int64, m search.Meta, err error) {
	var x indexMeta
	if err := r.Scan(append([]any{&id, seqDest{&seq}}, x.dest()...)...); err != nil {
		return "", 0, m, err
	}
	return id, seq, x.meta(), nil
}

// ScanIndexRow reads one row of IndexCols (plus extra trailing
// destinations); the engine leaves out a vector not of its dimension.
func ScanIndexRow(d Dialect, r Scanner, extra ...any) (search.Row, error) {
	var (
		row         search.Row
		x           indexMeta
		text, cntxt string
		emb         []byte
	)
	dest := append(append([]any{&row.ID, seqDest{&row.Seq}}, x.dest()...), &emb, &text, &cntxt)
	if err := r.Scan(append(dest, extra...)...); err != nil {
		return row, err
	}
	row.Meta = x.meta()
	var err error
	if row.Vec, err = d.Unvec(emb); err != nil {
		return row, fmt.Errorf("decode embedding of %s: %w", row.ID, err)
	}
	row.Text = (&memory.Memory{Text: text, Context: cntxt}).SearchText()
	return row, nil
}

// seqDest scans a row order: an integer, or a time as Unix microseconds.
type seqDest struct{ p *int64 }

func (d seqDest) Scan(v any) error {
	switch x := v.(type) {
	case int64:
		*d.p = x
	case time.Time:
		*d.p = x.UnixMicro()
	default:
		return fmt.Errorf("row order column holds %T", v)
	}
	return nil
}

// LittleEndian stores a vector as little-endian float32s (SQLite's
// embedding blob); nil stays NULL.
func LittleEndian(v []float32) any {
	if v == nil {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// FromLittleEndian reads a LittleEndian vector (nil for NULL).
func FromLittleEndian(b []byte) ([]float32, error) {
	if b == nil {
		return nil, nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// PGVector renders an embedding as pgvector text input, NULL when empty.
func PGVector(v []float32) any {
	if len(v) == 0 {
		return nil
	}
	return pgvector.NewVector(v).String()
}

// FromPGVector reads pgvector's binary format (nil for NULL): dimension
// (int16), an unused int16, then the elements big-endian, float32 for
// vector or IEEE half for halfvec (told apart by the length).
func FromPGVector(b []byte) ([]float32, error) {
	if b == nil {
		return nil, nil
	}
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
