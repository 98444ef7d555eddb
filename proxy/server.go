package proxy

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/memproxy/memproxy/policy"
)

// Server is the proxy. Build it with New and serve Handler(); routes for
// the admin API can be added to Echo() before serving.
type Server struct {
	cfg       Config
	pol       *policy.Policy
	log       *slog.Logger
	upstream  *url.URL
	transport http.RoundTripper
	client    *http.Client
	rp        *httputil.ReverseProxy
	met       *metrics
	limits    *limits
	fence     fences
	captures  sync.WaitGroup // sink calls awaiting their outcome
	gatherer  prometheus.Gatherer
	now       func() time.Time
	e         *echo.Echo
	apis
}

// New validates cfg and builds the server with its routes.
func New(cfg Config) (*Server, error) {
	u, err := url.Parse(cfg.Upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("proxy: upstream %q is not an http(s) URL", cfg.Upstream)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	s := &Server{cfg: cfg, upstream: u}
	s.pol = cmp.Or(cfg.Policy, policy.Default())
	s.log = cmp.Or(cfg.Logger, slog.Default())
	if cfg.Sink != nil {
		s.cfg.Sink = cappedSink{TurnSink: cfg.Sink, max: s.pol.Ingest.MaxTurnBytes, fence: &s.fence, log: s.log}
	}
	if n := s.pol.Ingest.MaxTurnBytes; n > 0 {
		if cfg.Rewriter != nil {
			s.cfg.Rewriter = cappedRewriter{Rewriter: cfg.Rewriter, max: n, timeout: s.pol.Recall.Timeout.D(), s: s}
		}
	}
	s.now = cfg.Clock
	if s.now == nil {
		s.now = time.Now
	}
	s.transport = cfg.Transport
	if s.transport == nil {
		s.transport = newTransport(s.pol)
	}
	// No client timeout: streams run as long as the upstream sends; the
	// transport bounds connect and first byte, the client context the rest.
	s.client = &http.Client{Transport: s.transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	reg := cfg.Registry
	if reg == nil {
		r := prometheus.NewRegistry()
		reg, s.gatherer = r, r
	} else if g, ok := reg.(prometheus.Gatherer); ok {
		s.gatherer = g
	} else {
		s.gatherer = prometheus.DefaultGatherer
	}
	if s.met, err = newMetrics(reg); err != nil {
		return nil, fmt.Errorf("proxy: register metrics: %w", err)
	}
	if s.limits, err = newLimits(s, reg); err != nil {
		return nil, fmt.Errorf("proxy: register metrics: %w", err)
	}
	if err := s.initAPIs(); err != nil {
		return nil, err
	}
	s.rp = s.newPassThrough()
	s.e = s.routes()
	return s, nil
}

// Handler is the HTTP handler to serve.
func (s *Server) Handler() http.Handler { return s.e }

// Echo exposes the router so other packages can mount their groups
// (/admin/v1, /memproxy/v1) before serving.
func (s *Server) Echo() *echo.Echo { return s.e }

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	e.IPExtractor = ipExtractor(s.pol.Server.TrustedProxies)
	e.Use(s.requestID)
	e.Use(s.limitInFlight)
	e.Use(s.slowBodies)
	e.Use(s.recoverPanic)
	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{})))
	v1 := e.Group("/v1", s.authenticate)
	v1.Any("/chat/completions", func(c echo.Context) error {
		if c.Request().Method == http.MethodPost {
			return s.chat(c)
		}
		return s.passThrough(c)
	})
	s.apiRoutes(v1)
	v1.Any("", s.passThrough)
	v1.Any("/*", s.passThrough)
	e.RouteNotFound("/*", func(c echo.Context) error {
		return &APIError{Status: http.StatusNotFound, Message: "unknown path " + c.Request().URL.Path + " (memproxy serves the OpenAI API under /v1)", Type: "invalid_request_error", Code: "not_found"}
	})
	return e
}

// ipExtractor is how c.RealIP() finds the client (the admin rate limit
// keys on it): the socket peer, unless the peer is one of the trusted
// proxies, whose X-Forwarded-For is then read from the right, skipping
// trusted hops. Anyone else's X-Forwarded-For is ignored, so a client
// cannot pick its own key (or a victim's).
func ipExtractor(trusted []string) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, t := range trusted {
		if n, err := policy.ParseCIDR(t); err == nil { // validated with the policy
			opts = append(opts, echo.TrustIPRange(n))
		}
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

type ctxKey int

const keyRequestID ctxKey = iota

// requestID gives every response, on every route, an
// X-Memproxy-Request-Id.
func (s *Server) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := newRequestID()
		c.Set("request_id", id)
		r := c.Request()
		c.SetRequest(r.WithContext(withStart(r.Context(), time.Now())))
		c.Response().Header().Set(HeaderRequestID, id)
		return next(c)
	}
}

// recoverPanic turns a handler panic into a logged 500 in OpenAI's error
// shape instead of a dropped connection.
func (s *Server) recoverPanic(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				err = &APIError{Status: http.StatusInternalServerError, Message: "internal error", Type: "server_error", Err: fmt.Errorf("panic: %v", p)}
			}
		}()
		return next(c)
	}
}

func requestID(c echo.Context) string {
	id, _ := c.Get("request_id").(string)
	return id
}

// newRequestID returns 24 lowercase hex characters: the time in
// milliseconds (48 bits, so ids sort by when they were made, as UUIDv7's
// do) and 48 random bits. The recall log is indexed by request id (both
// stores): random ids spread a flush window's rows over the whole index,
// a leaf page read, journalled and logged for nearly every row; ids in
// time order add to its last pages.
func newRequestID() string {
	return requestIDAt(time.Now())
}

func requestIDAt(t time.Time) string {
	var b [12]byte
	ms := uint64(t.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (8 * (5 - i)))
	}
	_, _ = rand.Read(b[6:])
	return hex.EncodeToString(b[:])
}

// readyTimeout bounds /readyz: a probe must get an answer within a second
// whatever the database does.
const readyTimeout = time.Second

func (s *Server) readyz(c echo.Context) error {
	if s.cfg.Ready != nil {
		ctx, cancel := context.WithTimeout(c.Request().Context(), readyTimeout)
		defer cancel()
		errc := make(chan error, 1)
		go func() { errc <- s.cfg.Ready(ctx) }() // a hung connection may ignore ctx: not waited for
		var err error
		select {
		case err = <-errc:
		case <-ctx.Done():
			err = fmt.Errorf("store did not answer within %v", readyTimeout)
			s.limits.readyTimeouts.Inc()
		}
		if err != nil {
			return &APIError{Status: http.StatusServiceUnavailable, Message: "not ready: " + err.Error(), Type: "server_error", Code: "not_ready", Err: err}
		}
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}

// upstreamURL maps /v1/X?q to the upstream base + /X?q.
func (s *Server) upstreamURL(in *url.URL) *url.URL {
	u := *s.upstream
	u.Path = s.upstream.Path + strings.TrimPrefix(in.Path, "/v1")
	u.RawPath = ""
	u.RawQuery = in.RawQuery
	return &u
}

// Serve serves on ln until ctx is done, then stops accepting and lets
// in-flight requests (streams included) finish for up to the policy's
// server.shutdown_timeout before closing them.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.pol.Server.ReadHeaderTimeout.D(),
		IdleTimeout:       s.pol.Server.IdleTimeout.D(),
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	return ServeGracefully(ctx, hs, ln, s.pol.Server.ShutdownTimeout.D())
}

// ServeGracefully runs hs on ln until ctx is done, then shuts it down,
// waiting up to drain for in-flight requests.
func ServeGracefully(ctx context.Context, hs *http.Server, ln net.Listener, drain time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
