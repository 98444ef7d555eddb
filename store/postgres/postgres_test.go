package postgres

import (
	"testing"

	"github.com/memproxy/memproxy/memory/storetest"
)

func TestStore(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T, dim int) storetest.Backend { return openTest(t, dim) })
	})
	// The same suite with the in-process indexes off: searches in SQL.
	t.Run("postgres_sql", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T, dim int) storetest.Backend {
			st := openTest(t, dim)
			st.local = nil
			return st
		})
	})
}
