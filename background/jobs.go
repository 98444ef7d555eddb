package background

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
)

// Job kinds. They are stored in river_job.kind, so never rename them.
const (
	kindIngest      = "memproxy_ingest" // before the spool: turns in the args
	kindDrain       = "memproxy_drain"
	kindConsolidate = "memproxy_consolidate"
	kindDecay       = "memproxy_decay"
	kindSession     = "memproxy_session_summary"
)

// Queue names: ingest is kept apart so a slow model call never holds up
// turns behind it.
const (
	queueIngest      = "ingest"
	queueConsolidate = "consolidate"
	queueMaintenance = "maintenance"
)

// IngestArgs is the job of a version that carried captured turns in the
// job's arguments. Such jobs left in a database are moved to the spool
// (legacyIngestWorker); new turns go to the spool directly (DrainArgs).
type IngestArgs struct {
	Scope memory.Scope  `json:"scope"`
	Turns []memory.Turn `json:"turns"`
}

func (IngestArgs) Kind() string { return kindIngest }

func (IngestArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: queueIngest} }

// ConsolidateArgs names one cluster of repeated events. ClusterKey is the
// unique key: the same cluster is consolidated once even when several of its
// events trigger it, on any replica.
type ConsolidateArgs struct {
	Scope      memory.Scope `json:"scope"`
	ClusterKey string       `json:"cluster_key" river:"unique"`
	EventIDs   []string     `json:"event_ids"`
}

func (ConsolidateArgs) Kind() string { return kindConsolidate }

func (ConsolidateArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueConsolidate, MaxAttempts: 5}
}

// DecayArgs runs one decay-and-forget pass. At zero means the queue clock.
type DecayArgs struct {
	At time.Time `json:"at,omitzero"`
}

func (DecayArgs) Kind() string { return kindDecay }

// InsertOpts routes decay to the maintenance queue (periodic inserts
// included) and keeps one pending pass at a time.
func (DecayArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueMaintenance, MaxAttempts: 3}
}

// SessionArgs asks for a summary of one session once it has been idle.
// LastTurn is the time of the newest turn seen when the job was scheduled;
// a newer turn means the session is not idle yet.
type SessionArgs struct {
	Scope    memory.Scope `json:"scope"`
	Session  string       `json:"session" river:"unique"`
	User     string       `json:"user" river:"unique"`
	NS       string       `json:"ns" river:"unique"`
	LastTurn time.Time    `json:"last_turn"`
}

func (SessionArgs) Kind() string { return kindSession }

func (SessionArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueMaintenance, MaxAttempts: 5}
}

var (
	_ river.JobArgs = IngestArgs{}
	_ river.JobArgs = DrainArgs{}
	_ river.JobArgs = ConsolidateArgs{}
	_ river.JobArgs = DecayArgs{}
	_ river.JobArgs = SessionArgs{}
)

// scopeTag is a River tag naming a scope without storing the user id in
// clear text in the tags column (tags are limited to [\w-]): it lets
// DeleteUserJobs find a user's pending jobs.
func scopeTag(s memory.Scope) string { return "s_" + hash16(s.User+"\x00"+s.Namespace) }

// userTag names a user across namespaces.
func userTag(user string) string { return "u_" + hash16(user) }

func hash16(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
