package search

import (
	"fmt"
	"strconv"
	"strings"
)

// Snapshot is a Feed position as a PostgreSQL snapshot gives it: what a
// read's snapshot could not see, the transactions still running then
// (Running, decimal xid8s) and every one from Xmax on. Those are exactly
// the transactions whose writes that read could not see: a row stamped by
// one of them is read again; any other was committed (or aborted) before
// the snapshot and read then, or before. So nothing committed is ever
// skipped, however long a transaction runs, and nothing is read again once
// seen.
type Snapshot struct {
	Xmax    uint64
	Running []string
}

// Newer reports whether m is a later snapshot than o: a larger xmax, or
// the same xmax with fewer transactions still running (a later snapshot's
// running set at the same xmax is a subset of an earlier one's).
func (m Snapshot) Newer(o Mark) bool {
	om, ok := o.(Snapshot)
	return !ok || m.Xmax > om.Xmax || (m.Xmax == om.Xmax && len(m.Running) < len(om.Running))
}

// ParseSnapshot reads a snapshot's text form, xmin:xmax:xip,... (that of
// pg_snapshot).
func ParseSnapshot(t string) (Snapshot, error) {
	parts := strings.Split(t, ":")
	if len(parts) != 3 {
		return Snapshot{}, fmt.Errorf("snapshot %q", t)
	}
	xmax, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot %q: %w", t, err)
	}
	m := Snapshot{Xmax: xmax}
	if parts[2] != "" {
		m.Running = strings.Split(parts[2], ",")
	}
	return m, nil
}
