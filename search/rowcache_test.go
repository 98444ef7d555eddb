package search

import (
	"reflect"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestRowCacheBound checks that the cache evicts to stay within its bytes.
func TestRowCacheBound(t *testing.T) {
	sc := memory.Scope{User: "u", Namespace: "default"}
	row := func(i int) *memory.Memory {
		return &memory.Memory{ID: string(rune('a' + i)), Scope: sc, Text: "x", Embedding: make([]float32, 64)}
	}
	max := 5 * cachedBytes(encodeRow(row(0)))
	c := newRowCache(max)
	for i := range 20 {
		c.put(c.note(), []*memory.Memory{row(i)})
		if c.bytes > max || c.bytes != len(c.m)*cachedBytes(encodeRow(row(0))) {
			t.Fatalf("after %d rows: %d bytes in %d rows, bound %d", i+1, c.bytes, len(c.m), max)
		}
	}
	if len(c.m) != 5 {
		t.Errorf("%d rows kept, want 5", len(c.m))
	}
	if _, ok := c.peek(sc, "t"); !ok {
		t.Error("the newest row was evicted")
	}
	if _, ok := c.peek(memory.Scope{User: "v", Namespace: "default"}, "t"); ok {
		t.Error("a row was returned for another scope")
	}
}

// TestRowCodecRoundTrip checks that a row decodes to what was encoded,
// with every field of memory.Memory and of its provenance set (a field
// added to either without a place in the encoding fails here), and that
// the zero optional fields stay zero.
func TestRowCodecRoundTrip(t *testing.T) {
	at := func(s int64) *time.Time { v := time.Unix(s, 123456000).UTC(); return &v }
	full := &memory.Memory{
		ID: "m1", Scope: memory.Scope{User: "ü", Namespace: "ns"}, Tier: memory.TierSemantic,
		Text: "lives in Lisbon", Embedding: []float32{0.5, -1, 3.25}, Value: 0.7, Confidence: 0.9,
		Source: memory.SourceExtracted,
		Provenance: memory.Provenance{
			RequestIDs: []string{"r1", "r2"}, TurnRefs: []string{"t1"}, MemoryIDs: []string{"a", "b", ""},
			Fact: &memory.Triple{Subject: "user", Attribute: "lives_in", Value: "Lisbon", Prior: "Berlin", Multi: true, Ended: true},
		},
		Key: "user.lives_in", Session: "s", Context: "where do you live?", NoDecay: true, API: "chat",
		CreatedAt: *at(1), LastUsedAt: time.Unix(2, 5).In(time.Local), Hits: 7, ValidFrom: *at(3),
		ValidTo: at(4), SupersededBy: "m2", ExpiresAt: at(-5), ArchivedAt: at(6), ConsolidatedAt: at(7),
	}
	for _, v := range []reflect.Value{reflect.ValueOf(full).Elem(), reflect.ValueOf(full.Provenance), reflect.ValueOf(*full.Provenance.Fact)} {
		for i := range v.NumField() {
			if v.Field(i).IsZero() {
				t.Fatalf("test row leaves %s.%s zero", v.Type().Name(), v.Type().Field(i).Name)
			}
		}
	}
	sparse := &memory.Memory{ID: "m3", Scope: memory.Scope{User: "u", Namespace: "default"}, Text: "x"}
	for _, m := range []*memory.Memory{full, sparse} {
		b := encodeRow(m)
		if len(b) != encodedLen(m) {
			t.Fatalf("%s: encoded %d bytes, encodedLen %d", m.ID, len(b), encodedLen(m))
		}
		var got memory.Memory
		decodeRow(b, &got)
		if !reflect.DeepEqual(&got, m) {
			t.Errorf("%s: decoded\n%+v\nwant\n%+v", m.ID, got, *m)
		}
		if id, sc := rowHead(b); id != m.ID || sc != m.Scope {
			t.Errorf("%s: head %q %v", m.ID, id, sc)
		}
	}
}

// TestRowCacheTouch checks that endTouch counts a hit and moves
// last_used_at forward (never back) in the cached row, leaving rows read
// before it unchanged.
func TestRowCacheTouch(t *testing.T) {
	sc := memory.Scope{User: "u", Namespace: "default"}
	t0 := time.Unix(100, 0).UTC()
	c := newRowCache(1 << 20)
	c.put(c.note(), []*memory.Memory{{ID: "a", Scope: sc, Text: "x", LastUsedAt: t0, Hits: 2}})
	before, _ := c.peek(sc, "a")
	for _, tt := range []time.Time{t0.Add(time.Second), t0} {
		c.beginTouch([]string{"a"})
		c.endTouch(sc, []string{"a"}, tt, true)
	}
	m, ok := c.peek(sc, "a")
	if !ok || m.Hits != 4 || !m.LastUsedAt.Equal(t0.Add(time.Second)) {
		t.Fatalf("after two touches: %+v (cached %v)", m, ok)
	}
	if before.Hits != 2 || !before.LastUsedAt.Equal(t0) {
		t.Errorf("a row read before the touch changed: %+v", before)
	}
	if c.bytes != cachedBytes(encodeRow(m)) {
		t.Errorf("%d bytes counted, row is %d", c.bytes, cachedBytes(encodeRow(m)))
	}
	// Every read applies the touches: many at once, and the raw rows
	// with their usage.
	found := map[string]*memory.Memory{}
	if miss := c.peekInto(sc, []string{"a", "b"}, found); len(miss) != 1 || found["a"].Hits != 4 || !found["a"].LastUsedAt.Equal(t0.Add(time.Second)) {
		t.Errorf("peekInto after two touches: %+v, miss %v", found["a"], miss)
	}
	if bufs, us, _ := c.peekRaw(sc, []string{"b", "a"}); bufs[1] == nil || !us.at(1).set || us.at(1).hits != 4 || us.at(0).set {
		t.Errorf("peekRaw usage %+v", us)
	}
	// A row cached anew (read again from the store) comes with its own
	// usage: the touches' entry goes with the old row.
	c.put(c.note(), []*memory.Memory{{ID: "a", Scope: sc, Text: "x", LastUsedAt: t0, Hits: 9}})
	if m, _ := c.peek(sc, "a"); m.Hits != 9 || len(c.usage) != 0 {
		t.Errorf("a row cached anew: hits %d, %d usage entries", m.Hits, len(c.usage))
	}
}
