package admin

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/memproxy/memproxy/background"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/redact"
	"golang.org/x/time/rate"
)

// Store is what the management API reads and writes: the scoped store
// plus the operator-wide reads. Both backends implement it.
type Store interface {
	memory.Store
	memory.Admin
}

// Queue is the part of the background queue the API drives;
// *background.Queue implements it.
type Queue interface {
	// ImportTurns enqueues turns on the same ingest path as live traffic.
	ImportTurns(ctx context.Context, turns []*memory.Turn) error
	// RunDecay runs one decay-and-forget pass as of at, synchronously.
	RunDecay(ctx context.Context, at time.Time) (background.DecayStats, error)
	// Pending reports queue depth by state and the failing jobs.
	Pending(ctx context.Context) (background.Stats, error)
	// DeleteUserJobs removes a user's jobs (all namespaces when ns is ""),
	// returning how many went and how many were running (not deletable).
	DeleteUserJobs(ctx context.Context, user, ns string) (deleted, running int, err error)
	// WaitIdle returns once no job is available or running.
	WaitIdle(ctx context.Context) error
}

var _ Queue = (*background.Queue)(nil)

// Embedder turns texts into vectors (embed.Embedder satisfies it). The API
// embeds memories an operator writes or edits.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Config wires an API. Token and Store are required for the API to be
// mounted; every other nil field turns its routes into a 501 answer.
type Config struct {
	// Token is the admin bearer token (MEMPROXY_ADMIN_TOKEN). Empty
	// disables the whole /admin surface; feedback stays mounted.
	Token string
	// Store holds the memories and logs.
	Store Store
	// Keys holds client keys; nil disables the /keys routes.
	Keys memory.KeyStore
	// Queue is the background queue; nil disables turn import, decay and
	// the queue view, and forget-user then has no jobs to remove.
	Queue Queue
	// Searcher runs recall with a score breakdown for /search.
	Searcher Searcher
	// Embedder embeds memories written through the API; nil stores them
	// without a vector (found by lexical search only).
	Embedder Embedder
	// Policy supplies the rate limit (admin.rate_per_second, admin.burst);
	// nil means policy.Default().
	Policy *policy.Policy
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Clock is "now"; nil means time.Now.
	Clock func() time.Time
	// MaxBodyBytes bounds ordinary request bodies (default 1 MiB);
	// MaxImportBytes bounds export imports and turn batches (default 64 MiB).
	MaxBodyBytes   int64
	MaxImportBytes int64
	// OpenFeedback accepts feedback from any caller that knows a request
	// id (identity headers trusted, no client keys in use). Otherwise
	// feedback needs the admin token or a client key for that user.
	OpenFeedback bool
	// Invalidator drops the request path's caches of a scope after an
	// admin mutation (namespace "" means every namespace of the user);
	// nil means none.
	Invalidator Invalidator
	// Fence is told, before a whole user is deleted, to drop what that
	// user's in-flight requests would store; nil means none.
	Fence UserFence
}

// UserFence stops a user's in-flight requests from storing anything
// (*proxy.Server implements it).
type UserFence interface {
	FenceUser(user string)
}

// Invalidator is told that a scope's memories changed outside the request
// path (the recall path caches profiles and gate thresholds per scope).
type Invalidator interface {
	InvalidateScope(user, namespace string)
}

// API is the management API. Create it with New and attach it with Mount.
type API struct {
	cfg   Config
	st    Store
	log   *slog.Logger
	now   func() time.Time
	pol   *policy.Policy
	auth  *Authenticator
	token []byte
}

// New builds the API from cfg. It starts nothing: the rate limiter and key
// cache clean up lazily on use.
func New(cfg Config) *API {
	a := &API{cfg: cfg, st: cfg.Store, log: cfg.Logger, now: cfg.Clock, pol: cfg.Policy, token: []byte(cfg.Token)}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.pol == nil {
		a.pol = policy.Default()
	}
	if a.cfg.MaxBodyBytes <= 0 {
		a.cfg.MaxBodyBytes = 1 << 20
	}
	if a.cfg.MaxImportBytes <= 0 {
		a.cfg.MaxImportBytes = 64 << 20
	}
	if cfg.Keys != nil {
		a.auth = NewAuthenticator(cfg.Keys)
	}
	return a
}

// redactor scrubs secrets from text the API writes (policy ingest.redact).
func (a *API) redactor() redact.Redactor { return redact.New(a.pol.Ingest.Redact) }

// Enabled reports whether the admin surface is mounted (a token and a
// store are configured).
func (a *API) Enabled() bool { return len(a.token) > 0 && a.st != nil }

// Authenticator returns the client-key authenticator the proxy uses (nil
// without a key store). Sharing it keeps revocations immediate in-process.
func (a *API) Authenticator() *Authenticator { return a.auth }

// Mount attaches the routes to e: /admin/v1/..., the /admin/ page (only
// when Enabled) and POST /memproxy/v1/feedback (whenever a store exists).
func (a *API) Mount(e *echo.Echo) {
	rl := a.rateLimiter()
	if a.st != nil {
		e.POST("/memproxy/v1/feedback", a.feedback, a.errorJSON, rl, a.limitBody(a.cfg.MaxBodyBytes))
	}
	if !a.Enabled() {
		return
	}
	small, large := a.limitBody(a.cfg.MaxBodyBytes), a.limitBody(a.cfg.MaxImportBytes)
	g := e.Group("/admin/v1", a.errorJSON, rl, a.requireToken)
	g.GET("/users", a.listUsers)
	g.DELETE("/users/:user", a.forgetUser)
	g.GET("/users/:user/memories", a.listMemories)
	g.POST("/users/:user/memories", a.createMemory, small)
	g.GET("/users/:user/search", a.search)
	g.GET("/users/:user/entities", a.listEntities)
	g.GET("/users/:user/entities/:name", a.getEntity)
	g.GET("/users/:user/export", a.export)
	g.POST("/users/:user/import", a.importUser, large)
	g.POST("/users/:user/turns", a.importTurns, large)
	g.GET("/memories/:id", a.getMemory)
	g.PATCH("/memories/:id", a.patchMemory, small)
	g.DELETE("/memories/:id", a.deleteMemory)
	g.GET("/memories/:id/history", a.history)
	g.GET("/audit", a.auditLog)
	g.GET("/ab", a.abReport)
	g.GET("/queue", a.queue)
	g.GET("/requests/:request_id", a.request)
	g.POST("/maintenance/decay", a.decay, small)
	g.POST("/keys", a.createKey, small)
	g.GET("/keys", a.listKeys)
	g.DELETE("/keys/:id", a.revokeKey)
	g.Any("/*", func(echo.Context) error { return notFound("route") })
	a.mountUI(e)
}

// rateLimiter limits calls per client address, before authentication so
// token guessing is throttled too. It uses echo's rate limiter store
// directly: echo's middleware would hand the refusal to the host server's
// error handler instead of answering in the admin API's error shape.
//
// The address is the host echo's IPExtractor's (the proxy sets one from
// policy server.trusted_proxies); without one, the socket peer, never a
// client-sent X-Forwarded-For: a caller could otherwise rotate it to get
// a fresh budget per guess, or name a victim's address to lock them out.
func (a *API) rateLimiter() echo.MiddlewareFunc {
	store := middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
		Rate:      rate.Limit(a.pol.Admin.RatePerSecond),
		Burst:     a.pol.Admin.Burst,
		ExpiresIn: 3 * time.Minute,
	})
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if ok, _ := store.Allow(clientIP(c)); !ok {
				c.Response().Header().Set("Retry-After", "1")
				return &apiError{Status: http.StatusTooManyRequests, Message: "admin rate limit exceeded; retry later", Type: "rate_limit_error", Code: "rate_limit_exceeded"}
			}
			return next(c)
		}
	}
}

// clientIP is the rate limiter's key for c.
func clientIP(c echo.Context) string {
	if c.Echo().IPExtractor != nil {
		return c.RealIP()
	}
	return echo.ExtractIPDirect()(c.Request())
}

// limitBody caps a request body at n bytes: a declared larger length is
// refused at once, a body that grows past it fails while being decoded.
func (a *API) limitBody(n int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.ContentLength > n {
				return tooLarge(n)
			}
			r.Body = http.MaxBytesReader(c.Response(), r.Body, n)
			return next(c)
		}
	}
}
