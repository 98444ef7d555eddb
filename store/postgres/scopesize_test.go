package postgres

import (
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

func TestScopeSizes(t *testing.T) {
	c := scopeSizes{ttl: time.Minute}
	sc := memory.Scope{User: "u", Namespace: "n"}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, ok := c.get(sc, 10, now); ok {
		t.Fatal("empty cache answered")
	}
	c.put(sc, 7, 10, now)
	if n, ok := c.get(sc, 10, now.Add(30*time.Second)); !ok || n != 7 {
		t.Errorf("fresh entry: %d, %v", n, ok)
	}
	if _, ok := c.get(sc, 11, now); ok {
		t.Error("entry counted with another bound answered")
	}
	if _, ok := c.get(sc, 10, now.Add(2*time.Minute)); ok {
		t.Error("stale entry answered")
	}
	if _, ok := c.get(memory.Scope{User: "u", Namespace: "other"}, 10, now); ok {
		t.Error("another scope answered")
	}
}
