package postgres

import (
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storetest"
)

func TestSpool(t *testing.T) {
	storetest.RunSpool(t, func(t *testing.T) memory.TurnSpool { return openTest(t, storetest.Dim).Spool() })
}
