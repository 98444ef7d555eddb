package postgres

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
)

// The background view has a pool of its own: filling it leaves the
// request path's pool free, its connections carry their own name and
// never exceed their bound, and what it writes the request path's search
// finds (one engine, fed by the database).
func TestBackgroundPoolIsSeparate(t *testing.T) {
	ctx := context.Background()
	dsn := testpg.New(t)
	name := "memproxy-pooltest-" + memory.NewID()[:8]
	p := Pool{MaxConns: 3, BackgroundMaxConns: 2, RiverMaxConns: 2, ApplicationName: name}
	st, err := OpenWith(ctx, dsn, memory.OpenOptions{Model: "test-model", Dim: 2}, Options{Pool: p})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bg, err := st.Background(ctx, dsn, p)
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Close()
	if got, want := p.Bound(), 3+2+2+2; got != want {
		t.Errorf("bound %d, want %d", got, want)
	}

	sc := memory.Scope{User: "u", Namespace: memory.DefaultNamespace}
	if err := bg.Insert(ctx, sc, &memory.Memory{ID: "m1", Tier: memory.TierSemantic, Text: "sailing on the lake", Embedding: []float32{1, 0}}); err != nil {
		t.Fatal(err)
	}
	got, err := st.LexicalSearch(ctx, sc, "sailing", memory.SearchOptions{Limit: 5})
	if err != nil || len(got) != 1 || got[0].Memory.ID != "m1" {
		t.Fatalf("request path's search after a background write: %v %v", got, err)
	}

	// Take every background connection.
	var held []*sql.Tx
	defer func() {
		for _, tx := range held {
			_ = tx.Rollback()
		}
	}()
	for range p.BackgroundMaxConns {
		tx, err := bg.DB().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `SELECT 1`); err != nil {
			t.Fatal(err)
		}
		held = append(held, tx)
	}
	// One more background call waits for a connection until its context
	// ends: the pool does not grow.
	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = bg.Get(wctx, sc, "m1")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call beyond the full background pool: %v, want a deadline error", err)
	}
	// The request path is untouched by the full background pool.
	if m, err := st.Get(ctx, sc, "m1"); err != nil || m.Text != "sailing on the lake" {
		t.Fatalf("request path with the background pool full: %v %v", m, err)
	}
	var n int
	if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, name+"-background").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != p.BackgroundMaxConns {
		t.Errorf("%d connections named %s-background, want %d", n, name, p.BackgroundMaxConns)
	}

	// Closing the view leaves the store working.
	for _, tx := range held {
		_ = tx.Rollback()
	}
	held = nil
	if err := bg.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, sc, "m1"); err != nil {
		t.Fatalf("store after the view closed: %v", err)
	}
	if _, err := st.LexicalSearch(ctx, sc, "lake", memory.SearchOptions{Limit: 5}); err != nil {
		t.Fatalf("search after the view closed: %v", err)
	}
}
