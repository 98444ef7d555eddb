package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storetest"
)

func openTest(t *testing.T, dim int) storetest.Backend {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "memproxy.db"), memory.OpenOptions{Model: "test-model", Dim: dim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestStore(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		storetest.Run(t, openTest)
	})
}

func TestOpenRefusesAnotherEmbedder(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memproxy.db")
	st, err := Open(ctx, path, memory.OpenOptions{Model: "local-hash-v1", Dim: 256})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Insert(ctx, memory.Scope{User: "u", Namespace: "default"}, &memory.Memory{Tier: memory.TierEvent, Text: "kept"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, o := range []memory.OpenOptions{{Model: "text-embedding-3-small", Dim: 256}, {Model: "local-hash-v1", Dim: 1536}} {
		_, err := Open(ctx, path, o)
		if !errors.Is(err, memory.ErrEmbedderMismatch) {
			t.Fatalf("open with %+v: %v, want ErrEmbedderMismatch", o, err)
		}
		for _, want := range []string{`"local-hash-v1" (256 dimensions)`, o.Model, "memproxy reembed", "--db"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	}
	st, err = Open(ctx, path, memory.OpenOptions{Model: "local-hash-v1", Dim: 256})
	if err != nil {
		t.Fatalf("reopen with the same embedder: %v", err)
	}
	defer st.Close()
	p, err := st.List(ctx, memory.Scope{User: "u", Namespace: "default"}, memory.ListFilter{})
	if err != nil || len(p.Data) != 1 {
		t.Fatalf("data after reopen: %v %v", p.Data, err)
	}
	var versions int
	if err := st.DB().QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&versions); err != nil || versions != len(migrations) {
		t.Errorf("schema_migrations has %d rows (%v), want %d", versions, err, len(migrations))
	}
}

func TestOpenRiverDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memproxy.db")
	st, err := Open(context.Background(), path, memory.OpenOptions{Model: "m", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db, err := OpenRiverDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
	var timeout int
	if err := db.QueryRow(`PRAGMA busy_timeout`).Scan(&timeout); err != nil || timeout != busyTimeoutMs {
		t.Errorf("busy_timeout = %d (%v)", timeout, err)
	}
	if got := db.Stats().MaxOpenConnections; got != 1 {
		t.Errorf("river pool max open conns = %d, want 1", got)
	}
}
