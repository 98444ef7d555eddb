// Package app wires memproxy together: the store (embedded SQLite or
// PostgreSQL), the embedder, the background queue, the recall path, the
// proxy and the management API. `memproxy serve`, the evaluation's
// in-process mode and the end-to-end tests all build the same App, so what
// is tested is what runs.
package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/memproxy/memproxy/entity"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/background"
	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/internal/loadshed"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
	"github.com/memproxy/memproxy/recallpath"
	"github.com/memproxy/memproxy/search"
	"github.com/memproxy/memproxy/store/postgres"
	"github.com/memproxy/memproxy/store/sqlite"
)

// Options configure an App. Upstream is required; the rest default.
type Options struct {
	// Upstream is the OpenAI-compatible base URL (with its /v1).
	Upstream string
	// AnthropicUpstream is the Anthropic Messages API origin (without
	// /v1); empty means the origin of Upstream.
	AnthropicUpstream string
	// Policy is the validated policy; nil means policy.Default().
	Policy *policy.Policy
	// DB is the embedded SQLite file; DatabaseURL (PostgreSQL) wins when
	// set.
	DB          string
	DatabaseURL string
	// IndexBytes bounds the store's loaded in-process search indexes
	// (sqlite.Options.IndexBytes, postgres.Options.IndexBytes): 0 means
	// the default (512 MiB), negative no bound.
	IndexBytes int64
	// AdminToken enables the management API and the replay clock.
	AdminToken string
	// Embedder overrides the one built from policy (tests).
	Embedder embed.Embedder
	// Getenv reads API keys named by the policy; nil means os.Getenv.
	Getenv func(string) string
	Logger *slog.Logger
	// Registry receives every metric; nil means a fresh registry.
	Registry *prometheus.Registry
	// Clock is "now" for the background (replays); nil means time.Now.
	Clock func() time.Time
	// Transport overrides the upstream transport (tests).
	Transport http.RoundTripper
	// NoWorkers starts the queue insert-only (a replica that must not
	// work, or a durability test).
	NoWorkers bool
	// PollInterval of idle background workers (0: the queue's default).
	PollInterval time.Duration
	// ApplicationName names the PostgreSQL connections (default
	// "memproxy"; tests count their own in pg_stat_activity).
	ApplicationName string
}

// Store is what the app needs from a backend.
type Store interface {
	memory.Store
	memory.Admin
	DB() *sql.DB
}

var (
	_ Store = (*sqlite.Store)(nil)
	_ Store = (*postgres.Store)(nil)
	// Guards between the request path and the management side live here,
	// so the request path's packages import neither admin nor River.
	_ admin.Invalidator         = (*recallpath.Hook)(nil)
	_ background.Invalidator    = (*recallpath.Hook)(nil)
	_ background.ScopeForgetter = bgInvalidator{}
	_ memory.TurnSpool          = (*sqlite.Spool)(nil)
)

// App is a running memproxy.
type App struct {
	Policy   *policy.Policy
	Store    Store
	Embedder embed.Embedder
	Queue    *background.Queue
	// Spool is the queue's input: the store's turn_spool table on
	// PostgreSQL (Store.Spool), a file of its own beside the store's on
	// SQLite.
	Spool    memory.TurnSpool
	Recaller *memory.Recaller
	Hook     *recallpath.Hook
	Proxy    *proxy.Server
	Admin    *admin.API
	Registry *prometheus.Registry
	// Load counts the request path's rewrites in flight; the background
	// yields to them.
	Load *loadshed.Gauge
	// Requests counts the proxy's requests in flight, every arm's: the
	// background paces itself while any runs (ingest.yield).
	Requests *loadshed.Gauge
	// Backend names the active store for logs ("sqlite:./memproxy.db",
	// "postgres").
	Backend string

	// background is the store as the background workers use it: on
	// PostgreSQL a view on a pool of its own; nil means Store.
	background Store

	closers []func() error
}

// New builds and starts an App. On error everything started is stopped.
func New(ctx context.Context, o Options) (a *App, err error) {
	if o.Policy == nil {
		o.Policy = policy.Default()
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	a = &App{Policy: o.Policy, Registry: o.Registry}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()

	if err := a.openEmbedder(o); err != nil {
		return nil, err
	}
	riverDB, driver, err := a.openStore(ctx, o)
	if err != nil {
		return nil, err
	}
	salt, err := a.Store.SetMetaIfAbsent(ctx, "identity_salt", memory.NewID()+memory.NewID())
	if err != nil {
		return nil, fmt.Errorf("identity salt: %w", err)
	}

	g := gate.New(o.Policy.Gate, o.Policy.Explicit)
	th, err := gate.NewThresholds(a.Store, thresholdPolicy(o.Policy.Gate, embed.IsLocal(a.Embedder)), gate.ThresholdsConfig{
		OnError: func(err error) { o.Logger.Warn("gate threshold", "err", err) },
	})
	if err != nil {
		return nil, fmt.Errorf("gate thresholds: %w", err)
	}
	a.closers = append(a.closers, func() error { th.Close(); return nil })
	vw := o.Policy.Recall.VectorWeight
	vc := 0
	if embed.IsLocal(a.Embedder) {
		vw = o.Policy.Recall.LocalVectorWeight
		vc = o.Policy.Recall.LocalVectorCandidates
	}
	a.Recaller, err = memory.NewRecaller(memory.RecallerConfig{
		Search: a.Store, Profiles: a.Store, Embedder: a.Embedder,
		Recall: o.Policy.Recall, Decay: o.Policy.Decay, VectorWeight: vw, VectorCandidates: vc,
		Entities: entityMatcher(o.Policy.Recall.EntityFirst),
		// SQLite searches in memory: nothing to overlap.
	})
	if err != nil {
		return nil, fmt.Errorf("recaller: %w", err)
	}
	// Background work yields to rewrites in flight (loadshed).
	a.Load = &loadshed.Gauge{}
	a.Requests = &loadshed.Gauge{}
	a.Hook, err = recallpath.New(recallpath.Config{
		Policy: o.Policy, Gate: g, Recaller: a.Recaller, Thresholds: th, Load: a.Load,
		Writer: a.Store, Logger: o.Logger, Registry: o.Registry,
	})
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, func() error { a.Hook.Close(); return nil })

	fence := &proxyFence{}
	bgStore := a.Store
	if a.background != nil {
		bgStore = a.background
	}
	q, err := background.New(background.Config{
		Store: bgStore, Admin: bgStore, Spool: a.Spool, Embedder: a.Embedder, Gate: g, Policy: o.Policy,
		Driver: driver, DB: riverDB, Logger: o.Logger, Registry: o.Registry, Clock: o.Clock,
		InsertOnly: o.NoWorkers, PollInterval: o.PollInterval, Thresholds: th, Invalidator: bgInvalidator{a.Hook, fence}, Yield: a.Load.Yield, Load: a.Requests,
	})
	if err != nil {
		return nil, fmt.Errorf("background queue: %w", err)
	}
	if err := q.Start(ctx); err != nil {
		return nil, fmt.Errorf("start background queue: %w", err)
	}
	a.Queue = q
	a.closers = append(a.closers, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), o.Policy.Server.ShutdownTimeout.D()+5*time.Second)
		defer cancel()
		return q.Stop(ctx)
	})

	// Client keys need the backend's key table.
	var keys memory.KeyStore
	if ks, ok := a.Store.(interface{ Keys() memory.KeyStore }); ok {
		keys = ks.Keys()
	}
	a.Admin = admin.New(admin.Config{
		Fence: fence,
		Token: o.AdminToken, Store: a.Store, Keys: keys, Queue: q,
		Searcher: a.Recaller, Embedder: a.Embedder, Policy: o.Policy, Logger: o.Logger,
		Clock: o.Clock, OpenFeedback: o.Policy.Identity.TrustHeaders, Invalidator: a.Hook,
	})
	var upstreamKey string
	if o.Policy.Upstream.APIKeyEnv != "" {
		upstreamKey = o.Getenv(o.Policy.Upstream.APIKeyEnv)
	}
	var anthropicKey string
	if o.Policy.Upstream.AnthropicAPIKeyEnv != "" {
		anthropicKey = o.Getenv(o.Policy.Upstream.AnthropicAPIKeyEnv)
	}
	ch := &chains{mem: proxy.NewMemChains(0), spool: a.Spool}
	if o.Policy.Ingest.TurnLog {
		ch.log = a.Store
	}
	p, err := proxy.New(proxy.Config{
		Upstream: o.Upstream, AnthropicUpstream: o.AnthropicUpstream, AnthropicKey: anthropicKey, Chains: ch,
		Policy: o.Policy, Salt: salt,
		Sink: q, Held: q, Rewriter: a.Hook, Observer: a.Hook,
		Authenticator: a.Admin.Authenticator(), UpstreamKey: upstreamKey,
		AdminToken: o.AdminToken, Logger: o.Logger, Registry: o.Registry,
		Ready: a.ready, Transport: o.Transport, Requests: a.Requests,
	})
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	a.Admin.Mount(p.Echo())
	a.Proxy = p
	// Before the queue stops: captures past server.sink_timeout still
	// wait for their commit's outcome.
	a.closers = append(a.closers, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), o.Policy.Server.ShutdownTimeout.D()+5*time.Second)
		defer cancel()
		return p.WaitCaptures(ctx)
	})
	fence.p.Store(p)
	return a, nil
}

func (a *App) openEmbedder(o Options) error {
	if o.Embedder != nil {
		a.Embedder = o.Embedder
		return nil
	}
	e, err := embed.FromPolicy(o.Policy.Embedder, o.Getenv)
	if err != nil {
		return fmt.Errorf("embedder: %w", err)
	}
	a.Embedder = e
	if c, ok := e.(io.Closer); ok {
		a.closers = append(a.closers, c.Close)
	}
	return nil
}

// openStore opens the configured backend and the pool River uses on it.
func (a *App) openStore(ctx context.Context, o Options) (*sql.DB, background.Driver, error) {
	ident := memory.OpenOptions{Model: a.Embedder.Model(), Dim: a.Embedder.Dim()}
	if o.DatabaseURL != "" {
		pg := o.Policy.Postgres
		pool := postgres.Pool{
			MaxConns: pg.MaxConns, BackgroundMaxConns: pg.BackgroundMaxConns, RiverMaxConns: pg.RiverMaxConns, ConnectTimeout: pg.ConnectTimeout.D(),
			StatementTimeout: pg.StatementTimeout.D(), LockTimeout: pg.LockTimeout.D(), ApplicationName: o.ApplicationName,
		}
		s, err := postgres.OpenWith(ctx, o.DatabaseURL, ident, postgres.Options{Options: search.Options{IndexBytes: o.IndexBytes, Logger: o.Logger}, Pool: pool})
		if err != nil {
			return nil, "", fmt.Errorf("open postgres store: %w", err)
		}
		a.Store, a.Backend, a.Spool = s, "postgres", s.Spool()
		a.closers = append(a.closers, s.Close)
		if err := registerIndexMetrics(o.Registry, s); err != nil {
			return nil, "", err
		}
		bg, err := s.Background(ctx, o.DatabaseURL, pool)
		if err != nil {
			return nil, "", fmt.Errorf("open background pool: %w", err)
		}
		a.background = bg
		a.closers = append(a.closers, bg.Close)
		rdb, err := postgres.OpenRiverDB(ctx, o.DatabaseURL, pool)
		if err != nil {
			return nil, "", fmt.Errorf("open queue pool: %w", err)
		}
		a.closers = append(a.closers, rdb.Close)
		for name, db := range map[string]*sql.DB{"store": s.DB(), "search": s.ReadDB(), "background": bg.DB(), "queue": rdb} {
			if err := o.Registry.Register(collectors.NewDBStatsCollector(db, "memproxy_"+name)); err != nil {
				return nil, "", fmt.Errorf("register pool metrics: %w", err)
			}
		}
		return rdb, background.DriverPostgres, nil
	}
	path := o.DB
	if path == "" {
		path = "./memproxy.db"
	}
	s, err := sqlite.OpenWith(ctx, path, ident, sqlite.Options{IndexBytes: o.IndexBytes, Logger: o.Logger})
	if err != nil {
		return nil, "", fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	a.Store, a.Backend = s, "sqlite:"+path
	a.closers = append(a.closers, s.Close)
	if err := registerIndexMetrics(o.Registry, s); err != nil {
		return nil, "", err
	}
	rdb, err := sqlite.OpenRiverDB(path)
	if err != nil {
		return nil, "", fmt.Errorf("open queue database %s: %w", path, err)
	}
	a.closers = append(a.closers, rdb.Close)
	// The queue's input in a file of its own, so a capture never waits on
	// the store file's writer (sqlite.Spool).
	sp, err := sqlite.OpenSpool(ctx, sqlite.SpoolPath(path))
	if err != nil {
		return nil, "", fmt.Errorf("open turn spool %s: %w", sqlite.SpoolPath(path), err)
	}
	a.Spool = sp
	a.closers = append(a.closers, sp.Close)
	return rdb, background.DriverSQLite, nil
}

func (a *App) ready(ctx context.Context) error {
	if _, _, err := a.Store.Threshold(ctx, memory.Scope{User: "readyz", Namespace: memory.DefaultNamespace}); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Handler serves every route: the proxy, the admin API and the page.
func (a *App) Handler() http.Handler { return a.Proxy.Handler() }

// Close stops everything in reverse order of start. Safe to call twice.
func (a *App) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](); err != nil && !errors.Is(err, sql.ErrConnDone) {
			errs = append(errs, err)
		}
	}
	a.closers = nil
	return errors.Join(errs...)
}

// Describe is a one-line summary for the start-up log (no secrets).
func (a *App) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "store=%s embedder=%s/%d", a.Backend, a.Embedder.Model(), a.Embedder.Dim())
	if a.Policy.Consolidation.Model != "" {
		fmt.Fprintf(&b, " consolidation=%s", a.Policy.Consolidation.Model)
	} else {
		b.WriteString(" consolidation=extractive")
	}
	return b.String()
}

// bgInvalidator is the background's Invalidator: the recall path's
// caches of a scope, and after a forget there the proxy's chain links
// (background.ScopeForgetter).
type bgInvalidator struct {
	hook  *recallpath.Hook
	proxy *proxyFence
}

func (i bgInvalidator) InvalidateScope(user, namespace string) {
	i.hook.InvalidateScope(user, namespace)
}

func (i bgInvalidator) ForgetScope(s memory.Scope) {
	if p := i.proxy.p.Load(); p != nil {
		p.ForgetScope(s)
	}
}

// proxyFence hands forget-user's fence to the proxy, which is built after
// the management API.
type proxyFence struct{ p atomic.Pointer[proxy.Server] }

func (f *proxyFence) FenceUser(user string) {
	if p := f.p.Load(); p != nil {
		p.FenceUser(user)
	}
}

// thresholdPolicy is the gate section the adaptive thresholds start from:
// with the local embedder, gate.local_min_score (when set) replaces
// min_score, as its evidence runs lower than a semantic model's.
func thresholdPolicy(g policy.Gate, local bool) policy.Gate {
	if local && g.LocalMinScore > 0 {
		g.MinScore = g.LocalMinScore
	}
	return g
}

// entityMatcher is recall's entity index when policy recall.entity_first
// is on.
func entityMatcher(on bool) memory.EntityMatcher {
	if !on {
		return nil
	}
	return entity.Matcher{}
}
