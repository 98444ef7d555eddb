package search

import (
	"encoding/binary"
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/memproxy/memproxy/memory"
)

// The row cache keeps each row encoded into one []byte: memory the
// garbage collector marks without scanning. A cached *memory.Memory was
// some fifteen objects (its strings, vector, provenance and times), all of
// which every GC cycle traced: under bench overhead the cache held most of
// a 275 MB live heap, and a cycle ran every few seconds. Decoding is cheap
// and allocates little: strings and the vector alias the immutable
// buffer (unsafe.String, unsafe.Slice), so only the Memory itself, its
// provenance's slices and its optional times are allocated.
//
// Layout, little-endian: a fixed header (rowHeader bytes), the vector
// (4 bytes a dimension, 4-aligned), then the strings, each a uvarint
// length and its bytes.
const (
	offHits     = 0  // int64
	offValue    = 8  // float64 bits
	offConf     = 16 // float64 bits
	offDim      = 24 // uint32
	offFlags    = 28 // uint32
	offTimes    = 32 // rowTimes times of timeBytes
	timeBytes   = 12 // int64 Unix seconds, uint32 nanoseconds | location
	rowTimes    = 7
	rowHeader   = offTimes + rowTimes*timeBytes // 116, a multiple of 4
	timeLocal   = 1 << 31                       // the time was in time.Local
	nsecMask    = 1<<30 - 1
	cacheEntry  = 64 // a map entry with its key and slice headers
	timeCreated = 0
	timeUsed    = 1
	timeFrom    = 2
	timeTo      = 3 // the optional times follow, in flag order
)

// flag bits.
const (
	flagNoDecay = 1 << iota
	flagFact
	flagValidTo
	flagExpires
	flagArchived
	flagConsolidated
	flagFactMulti
	flagFactEnded
)

// Encoded is a memory in the row cache's form (Encode).
type Encoded []byte

// Encode is m in the row cache's form, for Written. m must be exactly what
// a read of its row returns (the store's normal form of times and
// provenance): searches serve the encoding as that row.
func Encode(m *memory.Memory) Encoded { return encodeRow(m) }

// EncodedID is the id of the memory e encodes.
func EncodedID(e Encoded) string {
	id, _ := rowHead(e)
	return id
}

// encodedLen is the length of m's encoding.
func encodedLen(m *memory.Memory) int {
	n := rowHeader + 4*len(m.Embedding)
	varFields(m,
		func(s string) { n += uvarintLen(uint64(len(s))) + len(s) },
		func(k int) { n += uvarintLen(uint64(k)) })
	return n
}

// varFields walks m's variable-length fields in their encoding order:
// str for each string, count for the length of each list before its
// strings. encodedLen and encodeRow share it, so they cannot disagree.
func varFields(m *memory.Memory, str func(string), count func(int)) {
	for _, s := range [...]string{m.ID, m.Scope.User, m.Scope.Namespace, string(m.Tier), string(m.Source),
		m.Text, m.Key, m.Session, m.Context, m.API, m.SupersededBy} {
		str(s)
	}
	p := &m.Provenance
	for _, l := range [3][]string{p.RequestIDs, p.TurnRefs, p.MemoryIDs} {
		count(len(l))
		for _, s := range l {
			str(s)
		}
	}
	if f := p.Fact; f != nil {
		str(f.Subject)
		str(f.Attribute)
		str(f.Value)
		str(f.Prior)
	}
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// encodeRow encodes m into one new buffer.
func encodeRow(m *memory.Memory) []byte {
	b := make([]byte, encodedLen(m))
	le := binary.LittleEndian
	le.PutUint64(b[offHits:], uint64(int64(m.Hits)))
	le.PutUint64(b[offValue:], math.Float64bits(m.Value))
	le.PutUint64(b[offConf:], math.Float64bits(m.Confidence))
	le.PutUint32(b[offDim:], uint32(len(m.Embedding)))
	var flags uint32
	if m.NoDecay {
		flags |= flagNoDecay
	}
	if f := m.Provenance.Fact; f != nil {
		flags |= flagFact
		if f.Multi {
			flags |= flagFactMulti
		}
		if f.Ended {
			flags |= flagFactEnded
		}
	}
	putTime(b, timeCreated, m.CreatedAt)
	putTime(b, timeUsed, m.LastUsedAt)
	putTime(b, timeFrom, m.ValidFrom)
	slot := timeTo
	for i, t := range [4]*time.Time{m.ValidTo, m.ExpiresAt, m.ArchivedAt, m.ConsolidatedAt} {
		if t != nil {
			flags |= flagValidTo << i
			putTime(b, slot, *t)
		}
		slot++
	}
	le.PutUint32(b[offFlags:], flags)
	at := rowHeader
	for _, v := range m.Embedding {
		le.PutUint32(b[at:], math.Float32bits(v))
		at += 4
	}
	varFields(m,
		func(s string) {
			at += binary.PutUvarint(b[at:], uint64(len(s)))
			at += copy(b[at:], s)
		},
		func(k int) { at += binary.PutUvarint(b[at:], uint64(k)) })
	return b
}

// putTime writes t at time slot i: its instant, and whether it was in
// time.Local (any other location decodes as UTC, the same instant).
func putTime(b []byte, i int, t time.Time) {
	o := offTimes + i*timeBytes
	ns := uint32(t.Nanosecond())
	if t.Location() == time.Local && time.Local != time.UTC {
		ns |= timeLocal
	}
	binary.LittleEndian.PutUint64(b[o:], uint64(t.Unix()))
	binary.LittleEndian.PutUint32(b[o+8:], ns)
}

func getTime(b []byte, i int) time.Time {
	o := offTimes + i*timeBytes
	sec := int64(binary.LittleEndian.Uint64(b[o:]))
	ns := binary.LittleEndian.Uint32(b[o+8:])
	t := time.Unix(sec, int64(ns&nsecMask))
	if ns&timeLocal != 0 {
		return t
	}
	return t.UTC()
}

// rowReader reads an encoding's strings in order.
type rowReader struct {
	b  []byte
	at int
}

func (r *rowReader) str() string {
	n, k := binary.Uvarint(r.b[r.at:])
	r.at += k
	if n == 0 {
		return ""
	}
	s := unsafe.String(&r.b[r.at], int(n))
	r.at += int(n)
	return s
}

func (r *rowReader) count() int {
	n, k := binary.Uvarint(r.b[r.at:])
	r.at += k
	return int(n)
}

// rowHead returns the encoding's first strings: its id and scope.
func rowHead(b []byte) (id string, sc memory.Scope) {
	dim := int(binary.LittleEndian.Uint32(b[offDim:]))
	r := rowReader{b: b, at: rowHeader + 4*dim}
	id = r.str()
	sc.User = r.str()
	sc.Namespace = r.str()
	return id, sc
}

// rowScope is the scope of an encoded row.
func rowScope(b []byte) memory.Scope {
	_, sc := rowHead(b)
	return sc
}

// decodeRow decodes b into m. m's strings and vector alias b, which must
// never change after.
func decodeRow(b []byte, m *memory.Memory) {
	le := binary.LittleEndian
	*m = memory.Memory{
		Hits:       int(int64(le.Uint64(b[offHits:]))),
		Value:      math.Float64frombits(le.Uint64(b[offValue:])),
		Confidence: math.Float64frombits(le.Uint64(b[offConf:])),
		CreatedAt:  getTime(b, timeCreated),
		LastUsedAt: getTime(b, timeUsed),
		ValidFrom:  getTime(b, timeFrom),
	}
	dim := int(le.Uint32(b[offDim:]))
	flags := le.Uint32(b[offFlags:])
	m.NoDecay = flags&flagNoDecay != 0
	m.Embedding = rowVec(b, dim)
	if opt := flags & (flagValidTo | flagExpires | flagArchived | flagConsolidated); opt != 0 {
		ts := make([]time.Time, 0, 4)
		ptrs := [4]**time.Time{&m.ValidTo, &m.ExpiresAt, &m.ArchivedAt, &m.ConsolidatedAt}
		for i := range 4 {
			if flags&(flagValidTo<<i) != 0 {
				ts = append(ts, getTime(b, timeTo+i))
				*ptrs[i] = &ts[len(ts)-1]
			}
		}
	}
	r := rowReader{b: b, at: rowHeader + 4*dim}
	m.ID = r.str()
	m.Scope.User = r.str()
	m.Scope.Namespace = r.str()
	m.Tier = memory.Tier(r.str())
	m.Source = memory.Source(r.str())
	m.Text = r.str()
	m.Key = r.str()
	m.Session = r.str()
	m.Context = r.str()
	m.API = r.str()
	m.SupersededBy = r.str()
	// The provenance's lists share one allocation, each capped.
	mark := r.at
	n := 0
	for range 3 {
		k := r.count()
		n += k
		for range k {
			r.str()
		}
	}
	r.at = mark
	var all []string
	if n > 0 {
		all = make([]string, 0, n)
	}
	for _, l := range [3]*[]string{&m.Provenance.RequestIDs, &m.Provenance.TurnRefs, &m.Provenance.MemoryIDs} {
		k := r.count()
		if k == 0 {
			continue
		}
		start := len(all)
		for range k {
			all = append(all, r.str())
		}
		*l = all[start:len(all):len(all)]
	}
	if flags&flagFact != 0 {
		m.Provenance.Fact = &memory.Triple{Subject: r.str(), Attribute: r.str(), Value: r.str(), Prior: r.str(),
			Multi: flags&flagFactMulti != 0, Ended: flags&flagFactEnded != 0}
	}
}

// rowVec is an encoded row's vector of dim dimensions, aliasing b (copied
// when b's vector is not 4-aligned); nil when dim is 0.
func rowVec(b []byte, dim int) []float32 {
	if dim == 0 {
		return nil
	}
	p := unsafe.Pointer(&b[rowHeader])
	if uintptr(p)%4 == 0 {
		return unsafe.Slice((*float32)(p), dim)[:dim:dim]
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[rowHeader+4*i:]))
	}
	return v
}

// rowMeta is MetaOf an encoded row's decoding, and its vector (rowVec),
// read without decoding the row: what a search's filter and exact score
// need of a candidate it may drop.
func rowMeta(b []byte) (Meta, []float32) {
	flags := binary.LittleEndian.Uint32(b[offFlags:])
	dim := int(binary.LittleEndian.Uint32(b[offDim:]))
	var exp int64
	if flags&flagExpires != 0 {
		exp = getTime(b, timeTo+1).UnixMicro()
	}
	r := rowReader{b: b, at: rowHeader + 4*dim}
	r.str() // id
	r.str() // user
	r.str() // namespace
	tier := memory.Tier(r.str())
	return NewMeta(tier, flags&(flagValidTo|flagArchived) != 0, exp, flags&flagConsolidated != 0), rowVec(b, dim)
}

// rowHits is an encoded row's hits.
func rowHits(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b[offHits:])) }

// withUsage returns a copy of the encoded row b with hits and last_used_at
// set (encodings are immutable: decoded rows alias them).
func withUsage(b []byte, hits int64, used time.Time) []byte {
	n := slices.Clone(b)
	binary.LittleEndian.PutUint64(n[offHits:], uint64(hits))
	putTime(n, timeUsed, used)
	return n
}
