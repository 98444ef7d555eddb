package background

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// The queue's parts, one concern each (see Queue). Each embeds the shared
// core and holds the parts it hands work to.

// ingester turns claimed spool turns into events, facts and turn-log rows.
type ingester struct {
	*core
	rec *reconciler
	clu *clusterer
	ses *sessioner
	exp *explicit
}

// clusterer finds repeated patterns among new events and enqueues their
// consolidation.
type clusterer struct{ *core }

// reconciler merges a new memory into its scope: it fetches what the
// decision core (package lifecycle) needs, lets it decide and applies the
// writes.
type reconciler struct{ *core }

// explicit handles the user's explicit notes and forgets.
type explicit struct {
	*core
	rec *reconciler
}

// consolidator folds clusters of events into episodic and semantic
// memories.
type consolidator struct {
	*core
	rec *reconciler
}

// sessioner schedules and writes session summaries.
type sessioner struct {
	*core
	rec *reconciler

	mu sync.Mutex
	// waiting holds, per session, when the summary job this process
	// inserted (or found waiting) is scheduled to run: until shortly
	// before then a new turn needs no insert (guarded by mu).
	waiting map[sessionKey]time.Time
}

type sessionKey struct {
	scope   memory.Scope
	session string
}

// decayer runs decay-and-forget passes.
type decayer struct {
	*core
	runs atomic.Int64
}
