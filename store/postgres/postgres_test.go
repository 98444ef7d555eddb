package postgres

import (
	"testing"

	"github.com/memproxy/memproxy/memory/storetest"
)

func TestStore(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T, dim int) storetest.Backend { return openTest(t, dim) })
	})
}
