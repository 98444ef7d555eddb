package background

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// Driver names the database River runs on.
type Driver string

const (
	// DriverSQLite runs River on the embedded SQLite file (riversqlite).
	DriverSQLite Driver = "sqlite"
	// DriverPostgres runs River on PostgreSQL through database/sql and
	// lib/pq (riverdatabasesql).
	DriverPostgres Driver = "postgres"
)

// Embedder turns texts into vectors. embed.Embedder satisfies it.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dim() int
	Model() string
}

// invalidate drops the request path's cached view of a scope.
func (q *core) invalidate(s memory.Scope) {
	if q.cfg.Invalidator != nil {
		q.cfg.Invalidator.InvalidateScope(s.User, s.Namespace)
	}
}

// ScopeForgetter is an Invalidator that also holds texts of a scope (the
// proxy's chain links): after a forget there it drops them.
type ScopeForgetter interface{ ForgetScope(s memory.Scope) }

// forgotten tells the Invalidator, when it is a ScopeForgetter, that
// memories of s were forgotten on request.
func (q *core) forgotten(s memory.Scope) {
	if f, ok := q.cfg.Invalidator.(ScopeForgetter); ok {
		f.ForgetScope(s)
	}
}

// ThresholdFeedback moves a scope's adaptive recall threshold.
type ThresholdFeedback interface {
	FeedbackAll(ctx context.Context, s memory.Scope, us []gate.Usage) error
}

// Config wires a Queue. Store, DB, Driver and Embedder are required; every
// other zero value has a useful default.
type Config struct {
	// Store holds the memories, turn log, audit log and gate state.
	Store memory.Store
	// Spool is the queue's input, where Enqueue commits turns; nil uses
	// Store when it is one (PostgreSQL). SQLite's is a file of its own
	// (sqlite.OpenSpool).
	Spool memory.TurnSpool
	// Lease is how long a claimed turn stays with its worker without a
	// renewal (renewed every Lease/3); 0 means DefaultLease. After a
	// crash a dead worker's turns are claimed again once it expired.
	Lease time.Duration
	// MaxTurnAttempts bounds how many times a spooled turn is handed to
	// a worker (crashes included); a turn still failing then is parked:
	// written to the turn log, completed without its memories, counted
	// (memproxy_ingest_parked_turns_total, Stats.ParkedTurns), logged and
	// audited, so it never holds up the scope. 0 means
	// DefaultMaxTurnAttempts.
	MaxTurnAttempts int
	// SweepInterval is how often the queue looks for turns nobody holds
	// (a lost job, an expired lease); 0 means DefaultSweepInterval.
	SweepInterval time.Duration
	// Admin lists scopes for decay sweeps; nil limits decay to scopes
	// seen by this process.
	Admin memory.Admin
	// Embedder embeds events and facts for clustering and reconcile.
	Embedder Embedder
	// Gate classifies noise and explicit intents; nil builds
	// gate.New(policy.Gate, policy.Explicit).
	Gate Gate
	// Policy is the validated policy; nil means policy.Default().
	Policy *policy.Policy
	// Driver and DB: the pool River uses. For SQLite it should be a
	// separate pool on the same file with one open connection.
	Driver Driver
	DB     *sql.DB
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Registry receives the queue's metrics; nil registers nothing.
	Registry prometheus.Registerer
	// Clock is "now" for memories and decay (replays inject one); nil
	// means time.Now.
	Clock func() time.Time
	// LLM overrides the consolidation model built from policy (tests, or
	// a shared client); nil builds one when policy names a model.
	LLM LLM
	// InsertOnly starts the queue without workers or periodic jobs: it
	// only commits jobs (a replica that must not work, or a test).
	InsertOnly bool
	// PollInterval is how often idle workers look for jobs that arrived
	// without a notification (SQLite has no LISTEN; jobs this process
	// inserts wake its workers at once); 0 means DefaultPollInterval.
	PollInterval time.Duration
	// RescueStuckAfter is how long a running job may go without finishing
	// before another worker takes it (after a crash); 0 means 10 minutes.
	RescueStuckAfter time.Duration
	// ID names this client among replicas; "" lets River choose.
	ID string
	// Thresholds receives usage feedback for the gate's per-scope
	// threshold (gate.Thresholds, whose cache the request path reads);
	// nil writes the threshold to Store directly.
	Thresholds ThresholdFeedback
	// Yield is called before each batch of background work (a round of
	// a scope's turns, a consolidation); it may wait briefly while the
	// request path is busy (loadshed.Gauge.Yield). nil never waits.
	Yield func(ctx context.Context)
	// Load tells the background when the request path is busy: its
	// workers then pace themselves (policy ingest.yield, see Load). nil
	// never paces.
	Load Load
	// PaceClock is the pacing's clock (tests); nil means real time.
	PaceClock PaceClock
	// Invalidator is told when an explicit note changed a scope's
	// memories (profile entries among them), so the request path's cache
	// of that scope is dropped at once; nil means none.
	Invalidator Invalidator
}

// Invalidator drops the request path's cached view of a scope.
type Invalidator interface{ InvalidateScope(user, namespace string) }

// DefaultPollInterval is Config.PollInterval's default.
const DefaultPollInterval = 200 * time.Millisecond

// Queue is the durable background queue. It implements the proxy's
// TurnSink (Enqueue) and is safe for concurrent use. Its work is split by
// concern, each part a type of its own over the shared core: capture (the
// spool's group committer), ingest, clustering, reconcile (the decision
// core's writes), explicit notes and forgets, consolidation, sessions and
// decay; Queue itself is the lifecycle (Start, Stop) and the operator's
// views.
type Queue struct {
	*core
	cap   *capture
	ing   *ingester
	cons  *consolidator
	ses   *sessioner
	decay *decayer

	mu       sync.Mutex
	started  bool
	stopped  bool
	stopOnce sync.Once
	cancel   context.CancelFunc
	dispDone chan struct{}
}

// core is what every part of the queue shares: configuration, the store
// and its helpers, metrics, and the River client the parts insert jobs
// with.
type core struct {
	cfg    Config
	pol    *policy.Policy
	log    *slog.Logger
	now    func() time.Time
	client *river.Client[*sql.Tx]
	driver riverdriver.Driver[*sql.Tx]
	red    Redactor
	gate   Gate
	llm    LLM
	met    *metrics
	budget *budget
	writer *groupWriter // nil: ingest writes on its own
	spool  memory.TurnSpool
	// dispatch makes Drain jobs for spooled turns; owner names this
	// process's leases.
	dispatch *dispatcher
	owner    string
	pace     *pacer            // nil: no Load, never paces
	onRenew  func(renewed int) // tests: after each lease renewal
	onClaim  func(claimed int) // tests: after each claim of a Drain job
}

// New builds a Queue. It does not touch the database: Start migrates.
func New(cfg Config) (*Queue, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	q := &Queue{core: &core{
		cfg:   cfg,
		pol:   cmp.Or(cfg.Policy, policy.Default()),
		log:   cmp.Or(cfg.Logger, slog.Default()),
		now:   cfg.Clock,
		owner: cmp.Or(cfg.ID, "q") + "-" + memory.NewID(),
	}, dispDone: make(chan struct{})}
	q.spool = cfg.Spool
	if sp, ok := cfg.Store.(interface{ Spool() memory.TurnSpool }); ok && q.spool == nil {
		q.spool = sp.Spool() // PostgreSQL's turn_spool table
	}
	if q.spool == nil {
		return nil, errors.New("background: config: Spool is required (the store is not one)")
	}
	q.dispatch = newDispatcher(q.core)
	if q.now == nil {
		q.now = time.Now
	}
	q.red = NewRedactor(q.pol.Ingest.Redact)
	q.gate = cfg.Gate
	if q.gate == nil {
		q.gate = gate.New(q.pol.Gate, q.pol.Explicit)
	}
	q.met = newMetrics(cfg.Registry)
	if cfg.Load != nil {
		q.pace = newPacer(cfg.Load, cfg.PaceClock, q.pol.Ingest.Yield, q.met)
	}
	if b, ok := cfg.Store.(Batcher); ok && !cfg.InsertOnly {
		q.writer = newGroupWriter(b)
	}
	q.budget = newBudget(q.pol.Consolidation.MaxCallsPerHour)
	if cfg.LLM != nil {
		q.llm = cfg.LLM
	} else if q.pol.Consolidation.Model != "" {
		llm, err := NewOpenAILLM(q.pol.Consolidation)
		if err != nil {
			return nil, fmt.Errorf("background: consolidation model: %w", err)
		}
		q.llm = llm
	}

	switch cfg.Driver {
	case DriverSQLite:
		q.driver = riversqlite.New(cfg.DB)
	case DriverPostgres:
		q.driver = riverdatabasesql.New(cfg.DB)
	}
	rec := &reconciler{core: q.core}
	clu := &clusterer{core: q.core}
	q.ses = &sessioner{core: q.core, rec: rec}
	q.ing = &ingester{core: q.core, rec: rec, clu: clu, ses: q.ses, exp: &explicit{core: q.core, rec: rec}}
	q.cons = &consolidator{core: q.core, rec: rec}
	q.decay = &decayer{core: q.core}
	q.cap = newCapture(q.core)
	client, err := river.NewClient(q.driver, q.riverConfig())
	if err != nil {
		return nil, fmt.Errorf("background: river client: %w", err)
	}
	q.client = client
	return q, nil
}

func (c *Config) validate() error {
	switch {
	case c.Store == nil:
		return errors.New("background: config: Store is required")
	case c.Embedder == nil:
		return errors.New("background: config: Embedder is required")
	case c.DB == nil:
		return errors.New("background: config: DB is required")
	case c.Driver != DriverSQLite && c.Driver != DriverPostgres:
		return fmt.Errorf("background: config: Driver %q: want %q or %q", c.Driver, DriverSQLite, DriverPostgres)
	}
	return nil
}

func (q *Queue) riverConfig() *river.Config {
	p := q.pol
	rc := &river.Config{
		ID:                          q.cfg.ID,
		Logger:                      q.log.With("component", "river"),
		CompletedJobRetentionPeriod: p.Decay.JobRetention.D(),
		// Cancelled and discarded rows hold raw turns too: keep them only
		// long enough to inspect a failure.
		CancelledJobRetentionPeriod: 24 * time.Hour,
		DiscardedJobRetentionPeriod: 7 * 24 * time.Hour,
		FetchPollInterval:           cmp.Or(q.cfg.PollInterval, DefaultPollInterval),
		FetchCooldown:               10 * time.Millisecond,
		RescueStuckJobsAfter:        cmp.Or(q.cfg.RescueStuckAfter, 10*time.Minute),
		JobTimeout:                  max(2*time.Minute, 2*time.Duration(p.Consolidation.Retries+1)*p.Consolidation.Timeout.D()),
		MaxAttempts:                 10,
		ErrorHandler:                &errorHandler{q: q},
	}
	if q.cfg.InsertOnly {
		return rc
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &drainWorker{q: q})
	river.AddWorker(workers, &legacyIngestWorker{q: q})
	river.AddWorker(workers, &consolidateWorker{q: q})
	river.AddWorker(workers, &decayWorker{q: q})
	river.AddWorker(workers, &sessionWorker{q: q})
	rc.Workers = workers
	rc.Queues = map[string]river.QueueConfig{
		queueIngest:      {MaxWorkers: p.Ingest.Workers},
		queueConsolidate: {MaxWorkers: q.consolidateWorkers()},
		queueMaintenance: {MaxWorkers: 1},
	}
	rc.PeriodicJobs = []*river.PeriodicJob{
		river.NewPeriodicJob(
			river.PeriodicInterval(p.Decay.Interval.D()),
			func() (river.JobArgs, *river.InsertOpts) { return DecayArgs{}, nil },
			&river.PeriodicJobOpts{ID: "memproxy_decay", RunOnStart: true},
		),
	}
	return rc
}

// yield lets the request path go first (Config.Yield).
func (q *Queue) yield(ctx context.Context) {
	if q.cfg.Yield != nil {
		q.cfg.Yield(ctx)
	}
}

// consolidateWorkers bounds concurrent Consolidate jobs. With a model it
// is the number of concurrent model calls: 2. Without one, consolidation
// is short local work; more slots let one fetch take a burst of jobs (a
// producer whose fetch filled every slot fetches again at each completion,
// and on SQLite every fetch takes River's one connection and the write
// lock).
func (q *Queue) consolidateWorkers() int {
	if q.llm != nil {
		return 2
	}
	return 8
}

// Migrate brings River's tables up to date. Start calls it; it is safe to
// run concurrently from several replicas (PostgreSQL) and repeatedly.
func (q *Queue) Migrate(ctx context.Context) error {
	m, err := rivermigrate.New(q.driver, nil)
	if err != nil {
		return fmt.Errorf("background: migrator: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("background: migrate: %w", err)
	}
	return nil
}

// Start migrates River's tables, opens the enqueue path and (unless
// InsertOnly) starts the workers and the periodic decay job.
func (q *Queue) Start(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		return errors.New("background: start: queue stopped")
	}
	if q.started {
		return nil
	}
	if err := q.Migrate(ctx); err != nil {
		return err
	}
	// The committer outlives ctx (it is the start-up context): Stop ends it.
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	q.cancel = cancel
	go q.cap.commitLoop(cctx)
	go func() {
		defer close(q.dispDone)
		q.dispatch.loop(cctx, !q.cfg.InsertOnly)
	}()
	if !q.cfg.InsertOnly {
		q.writer.start()
		// Workers get their own lifetime: cancelling it would be a hard
		// stop, and Stop wants a graceful drain.
		if err := q.client.Start(context.WithoutCancel(ctx)); err != nil {
			q.writer.close()
			cancel()
			<-q.cap.done
			<-q.dispDone
			q.stopped = true // the committer is gone; a new Queue is needed
			return fmt.Errorf("background: start workers: %w", err)
		}
	}
	q.started = true
	q.cap.setAccepting(true)
	return nil
}

// Stop stops taking turns, lets running jobs finish (until ctx ends, then
// cancels them) and stops the workers. Safe to call twice and before Start.
func (q *Queue) Stop(ctx context.Context) error {
	var err error
	q.stopOnce.Do(func() {
		q.mu.Lock()
		started := q.started
		q.stopped = true
		q.mu.Unlock()
		if !started {
			return
		}
		// Finish committing turns already handed to Enqueue first: the
		// proxy told those clients their reply is done.
		q.cap.setAccepting(false)
		q.cancel()
		<-q.cap.done
		<-q.dispDone
		if !q.cfg.InsertOnly {
			if e := q.client.Stop(ctx); e != nil {
				sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if e2 := q.client.StopAndCancel(sctx); e2 != nil {
					e = errors.Join(e, e2)
				}
				err = fmt.Errorf("background: stop: %w", e)
			}
			// The jobs have returned: nothing writes through it any more.
			q.writer.close()
		}
	})
	return err
}

// Client exposes the River client for admin views and tests.
func (q *Queue) Client() *river.Client[*sql.Tx] { return q.client }
