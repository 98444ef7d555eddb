package search

import (
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// TestRowCacheBound checks that the cache evicts to stay within its bytes.
func TestRowCacheBound(t *testing.T) {
	sc := memory.Scope{User: "u", Namespace: "default"}
	row := func(i int) *memory.Memory {
		return &memory.Memory{ID: string(rune('a' + i)), Scope: sc, Text: "x", Embedding: make([]float32, 64)}
	}
	max := 5 * rowBytes(row(0))
	c := newRowCache(max)
	for i := range 20 {
		c.put(c.note(), []*memory.Memory{row(i)})
		if c.bytes > max || c.bytes != len(c.m)*rowBytes(row(0)) {
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
