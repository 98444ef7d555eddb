package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storetest"
)

func TestSpool(t *testing.T) {
	storetest.RunSpool(t, func(t *testing.T) memory.TurnSpool {
		p, err := OpenSpool(context.Background(), SpoolPath(filepath.Join(t.TempDir(), "memproxy.db")))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	})
}
