package postgres

import (
	"context"
	"testing"

	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storetest"
)

func TestStore(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T, dim int) storetest.Backend { return openTest(t, dim) })
	})
	// The same suite with the in-process indexes off: searches in SQL.
	t.Run("postgres_sql", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T, dim int) storetest.Backend {
			st, err := OpenWith(context.Background(), testpg.New(t), memory.OpenOptions{Model: "test-model", Dim: dim}, Options{SQLSearch: true})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			t.Cleanup(func() { _ = st.Close() })
			return st
		})
	})
}
