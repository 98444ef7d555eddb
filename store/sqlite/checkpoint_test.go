package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestCheckpointOffTheWriters: a commit leaves the WAL to the
// checkpointer (the automatic checkpoint is only a backstop), and one
// checkpoint copies everything the WAL holds while no reader pins it.
func TestCheckpointOffTheWriters(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "memproxy.db"), memory.OpenOptions{Model: "m", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var pages int
	if err := st.DB().QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil || pages != autoCheckpointPages {
		t.Fatalf("wal_autocheckpoint = %d (%v), want %d", pages, err, autoCheckpointPages)
	}
	sc := memory.Scope{User: "u", Namespace: "default"}
	for i := range 20 {
		m := &memory.Memory{ID: fmt.Sprintf("m%d", i), Tier: memory.TierSemantic, Text: fmt.Sprintf("fact number %d", i),
			Embedding: []float32{1, 0, 0, 0}, CreatedAt: time.Now()}
		if err := st.Insert(ctx, sc, m); err != nil {
			t.Fatal(err)
		}
	}
	frames, copied, err := st.checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if frames == 0 || copied != frames {
		t.Errorf("checkpoint: %d frames in the WAL, %d copied; want all of some", frames, copied)
	}
}

// TestCheckpointerStops: closing a store or spool stops its checkpointer
// and waits for it (Close twice is fine).
func TestCheckpointerStops(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, filepath.Join(dir, "memproxy.db"), memory.OpenOptions{Model: "m", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := OpenSpool(ctx, SpoolPath(filepath.Join(dir, "memproxy.db")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*conn{st.conn, sp.c} {
		if c.ckpt == nil {
			t.Fatal("no checkpointer")
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*conn{st.conn, sp.c} {
		select {
		case <-c.ckpt.done:
		default:
			t.Error("checkpointer still running after Close")
		}
		if err := c.ckpt.db.Ping(); err == nil {
			t.Error("checkpointer's connection still open after Close")
		}
		if err := c.close(); err != nil {
			t.Errorf("second close: %v", err)
		}
	}
}
