package background

import "sync/atomic"

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
}

// decayer runs decay-and-forget passes.
type decayer struct {
	*core
	runs atomic.Int64
}
