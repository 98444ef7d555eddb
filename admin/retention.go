package admin

import (
	"time"

	"github.com/memproxy/memproxy/memory"
)

// retention is the memory's current retention under the policy's decay,
// the length of the page's retention bar.
func (a *API) retention(m *memory.Memory, at time.Time) float64 {
	return memory.Retention(m, at, a.pol.Decay)
}
