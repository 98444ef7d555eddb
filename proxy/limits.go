package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/memproxy/memproxy/memory"
)

// limits are the HTTP front's protections against load and slow clients
// that are not in net/http's own timeouts: the in-flight cap and the
// minimum-rate request body.
type limits struct {
	inFlight    atomic.Int64
	maxInFlight int64
	minRate     int64
	stall       time.Duration

	gauge          prometheus.GaugeFunc
	rejected       prometheus.Counter
	slow           prometheus.Counter
	recallTimeouts prometheus.Counter
	readyTimeouts  prometheus.Counter
}

func newLimits(s *Server, reg prometheus.Registerer) (*limits, error) {
	l := &limits{
		maxInFlight: int64(s.pol.Server.MaxInFlight),
		minRate:     s.pol.Server.BodyMinRate,
		stall:       s.pol.Server.BodyStallTimeout.D(),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_requests_rejected_total", Help: "Requests refused with 503 because server.max_in_flight requests were in flight.",
		}),
		slow: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_slow_bodies_total", Help: "Request bodies cut with 408 for arriving too slowly (server.body_min_rate, server.body_stall_timeout).",
		}),
		recallTimeouts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_recall_timeouts_total", Help: "Chat requests forwarded unchanged because recall passed policy recall.timeout.",
		}),
		readyTimeouts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_readyz_timeouts_total", Help: "/readyz answers of 503 because the store did not answer within a second.",
		}),
	}
	l.gauge = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "memproxy_requests_in_flight", Help: "Requests being served (probes and /metrics not counted).",
	}, func() float64 { return float64(l.inFlight.Load()) })
	for _, c := range []prometheus.Collector{l.gauge, l.rejected, l.slow, l.recallTimeouts, l.readyTimeouts} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// exempt are the routes the in-flight cap never refuses: probes and
// metrics must answer while memproxy is saturated.
func exempt(path string) bool {
	return path == "/healthz" || path == "/readyz" || path == "/metrics"
}

// limitInFlight refuses a request with 503 when server.max_in_flight
// requests are already being served.
func (s *Server) limitInFlight(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if exempt(c.Request().URL.Path) {
			return next(c)
		}
		l := s.limits
		if l.inFlight.Add(1) > l.maxInFlight {
			l.inFlight.Add(-1)
			l.rejected.Inc()
			c.Response().Header().Set("Retry-After", "1")
			return &APIError{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "overloaded",
				Message: "memproxy is serving its limit of " + strconv.FormatInt(l.maxInFlight, 10) + " concurrent requests (policy server.max_in_flight); retry shortly"}
		}
		defer l.inFlight.Add(-1)
		if s.cfg.Requests != nil {
			defer s.cfg.Requests.Enter()()
		}
		return next(c)
	}
}

// errBodyTooSlow is what a body read returns once the body broke the
// minimum-rate rule.
var errBodyTooSlow = errors.New("request body arrived too slowly (policy server.body_min_rate, server.body_stall_timeout)")

// slowBodies puts every request body under the minimum-rate rule and
// turns the response of a request whose body broke it into a 408 with
// the connection closed, whatever the handler then answered (each route
// reports a failed read its own way).
func (s *Server) slowBodies(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Body == nil || r.Body == http.NoBody {
			return next(c)
		}
		w := c.Response()
		rb := &rateBody{rc: r.Body, ctl: http.NewResponseController(w.Writer), start: time.Now(), minRate: s.limits.minRate, stall: s.limits.stall}
		r.Body = rb
		sw := &slowBodyWriter{ResponseWriter: w.Writer, body: rb}
		w.Writer = sw
		err := next(c)
		if rb.tripped.Load() {
			s.limits.slow.Inc()
			s.log.Warn("request body too slow; cut with 408", "request_id", requestID(c), "path", r.URL.Path,
				"bytes", rb.n, "after_ms", time.Since(rb.start).Milliseconds())
			if !w.Committed {
				sw.WriteHeader(http.StatusRequestTimeout)
			}
			return nil
		}
		return err
	}
}

// rateBody is a request body that must keep arriving: before every read
// it sets the connection's read deadline to the earlier of "stall from
// now" and the moment the bytes so far would fall below the minimum
// average rate (counted after a grace of one stall). A trickle of a byte
// a second is cut one stall after it began; a steady upload far below
// the network's speed but above the minimum rate is never cut.
type rateBody struct {
	rc      io.ReadCloser
	ctl     *http.ResponseController
	start   time.Time
	n       int64
	minRate int64
	stall   time.Duration
	done    bool
	tripped atomic.Bool
}

func (b *rateBody) Read(p []byte) (int, error) {
	if b.done {
		return b.rc.Read(p)
	}
	if b.tripped.Load() {
		return 0, errBodyTooSlow
	}
	dl := time.Now().Add(b.stall)
	if rd := b.start.Add(b.stall + time.Duration(float64(b.n)/float64(b.minRate)*float64(time.Second))); rd.Before(dl) {
		dl = rd
	}
	// Unsupported (a test recorder, HTTP/2 in a test): no deadline.
	_ = b.ctl.SetReadDeadline(dl)
	n, err := b.rc.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		// At the body's end net/http clears the deadline itself, before
		// its background read of the connection.
		b.done = true
	case err != nil && isTimeout(err):
		b.tripped.Store(true)
		return n, errBodyTooSlow
	}
	return n, err
}

func (b *rateBody) Close() error { return b.rc.Close() }

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// slowBodyWriter replaces the response of a request whose body was cut:
// its first WriteHeader becomes a 408 in OpenAI's error shape with
// "Connection: close", and what the handler writes after is dropped.
type slowBodyWriter struct {
	http.ResponseWriter
	body    *rateBody
	written bool
	discard bool
}

func (w *slowBodyWriter) WriteHeader(code int) {
	if w.written {
		return
	}
	w.written = true
	if !w.body.tripped.Load() {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.discard = true
	h := w.Header()
	for k := range h {
		if k != HeaderRequestID {
			delete(h, k)
		}
	}
	h.Set("Connection", "close")
	h.Set("Content-Type", "application/json")
	w.ResponseWriter.WriteHeader(http.StatusRequestTimeout)
	_, _ = w.ResponseWriter.Write([]byte(`{"error":{"message":"` + errBodyTooSlow.Error() + `","type":"invalid_request_error","param":null,"code":"request_timeout"}}` + "\n"))
}

func (w *slowBodyWriter) Write(p []byte) (int, error) {
	if !w.written {
		w.WriteHeader(http.StatusOK)
	}
	if w.discard {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines).
func (w *slowBodyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// cutText cuts s to at most n bytes at a character boundary.
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n]), true
}

// cappedSink caps what one turn hands the queue (policy
// ingest.max_turn_bytes): the user text and the reply are cut and the
// turn marked truncated, so a pasted document is not stored, embedded
// and extracted whole. It also drops the turn of a request that began
// before its user was deleted (FenceUser).
type cappedSink struct {
	TurnSink
	max   int
	fence *fences
	log   *slog.Logger
}

func (c cappedSink) Enqueue(ctx context.Context, t *memory.Turn) error {
	if c.fence.fenced(ctx, t.Scope.User) {
		// Deliberate, not a capture failure.
		c.log.Info("turn dropped: its user was deleted while the request ran", "request_id", t.RequestID)
		return nil
	}
	if c.max > 0 {
		var cu, ca bool
		t.User, cu = cutText(t.User, c.max)
		t.Assistant, ca = cutText(t.Assistant, c.max)
		t.Truncated = t.Truncated || cu || ca
	}
	return c.TurnSink.Enqueue(ctx, t)
}

// cappedRewriter hands the Rewriter messages whose text is cut to policy
// ingest.max_turn_bytes: the gate, the recall query and its exclusions
// read no more of a huge message than that. Raw, which a rewrite
// forwards, is untouched.
//
// It also bounds the whole decision by policy recall.timeout: past it the
// request goes on unchanged with X-Memproxy-Recall: timeout. The
// Rewriter's context ends then, but a dependency that ignores it (a
// database connection whose peer stopped answering) is not waited for.
type cappedRewriter struct {
	Rewriter
	max     int
	timeout time.Duration
	s       *Server
}

// RecallTimeout is the X-Memproxy-Recall value of a request whose recall
// did not finish within policy recall.timeout.
const RecallTimeout = "timeout"

func (c cappedRewriter) Rewrite(ctx context.Context, req *ChatRequest) (*Rewrite, error) {
	req = capMessages(req, c.max)
	if c.timeout <= 0 {
		return c.Rewriter.Rewrite(ctx, req)
	}
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	type result struct {
		rw  *Rewrite
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("rewriter panic: %v", p)}
			}
		}()
		rw, err := c.Rewriter.Rewrite(rctx, req)
		done <- result{rw, err}
	}()
	deadline, _ := rctx.Deadline()
	answer := func(r result) (*Rewrite, error) {
		if r.err != nil && pastDeadline(rctx.Err(), deadline, time.Now()) && ctx.Err() == nil {
			// Failed because the deadline passed (a pool wait, a dial, a
			// query cancelled): a timeout, not a store error.
			c.s.limits.recallTimeouts.Inc()
			return &Rewrite{Status: RecallTimeout}, nil
		}
		return r.rw, r.err
	}
	select {
	case r := <-done:
		return answer(r)
	case <-rctx.Done():
		// The Rewriter cancels rctx itself once it has answered: its
		// answer, sent first, wins over that cancellation (an error it
		// got from the deadline is still a timeout).
		select {
		case r := <-done:
			return answer(r)
		default:
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c.s.limits.recallTimeouts.Inc()
		c.s.log.Warn("recall deadline passed; forwarding the request unchanged", "request_id", req.RequestID,
			"timeout_ms", c.timeout.Milliseconds(), "scope", req.Scope.String())
		return &Rewrite{Status: RecallTimeout}, nil
	}
}

// pastDeadline reports whether a recall that failed had reached its
// deadline: its context says so, or the clock does. The context's error is
// set by a timer that can lag the deadline on a loaded machine, while a
// dial given the same deadline has already failed with "i/o timeout".
func pastDeadline(ctxErr error, deadline, now time.Time) bool {
	return errors.Is(ctxErr, context.DeadlineExceeded) || !deadline.IsZero() && !now.Before(deadline)
}

// capMessages returns req with each message's text cut to max bytes (a
// copy when anything was cut).
func capMessages(req *ChatRequest, max int) *ChatRequest {
	var copied bool
	for i, m := range req.Messages {
		t, cut := cutText(m.Text, max)
		if !cut {
			continue
		}
		if !copied {
			r := *req
			r.Messages = slices.Clone(req.Messages)
			req, copied = &r, true
		}
		req.Messages[i].Text = t
	}
	return req
}

// MaxJSONDepth is the deepest nesting of arrays and objects memproxy
// parses in a request body (encoding/json's own limit). The JSON parser
// recurses per level, so without the bound a 16 MiB body of "[" would
// overflow the stack and kill the process.
const MaxJSONDepth = 10000

// checkDepth refuses a body nested deeper than MaxJSONDepth with a 400,
// by one pass over the bytes (strings skipped) before any parser runs.
func checkDepth(body []byte) error {
	depth, inStr := 0, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			if depth++; depth > MaxJSONDepth {
				return badRequest("", "nesting_too_deep", "request body nests arrays and objects deeper than "+strconv.Itoa(MaxJSONDepth)+" levels")
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// fences remembers when users were deleted on this replica, so requests
// in flight at that moment store nothing afterwards. Entries live as
// long as a request may (they are few: one per deleted user).
type fences struct {
	mu sync.Mutex
	at map[string]time.Time
}

type startKey struct{}

// withStart records when a request began, for fenced.
func withStart(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, startKey{}, t)
}

func (f *fences) set(user string, t time.Time, keep time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.at == nil {
		f.at = map[string]time.Time{}
	}
	for u, at := range f.at {
		if t.Sub(at) > keep {
			delete(f.at, u)
		}
	}
	f.at[user] = t
}

// fenced reports that user was deleted after the request of ctx began.
func (f *fences) fenced(ctx context.Context, user string) bool {
	if f == nil {
		return false
	}
	start, ok := ctx.Value(startKey{}).(time.Time)
	if !ok {
		return false
	}
	f.mu.Lock()
	at, hit := f.at[user]
	f.mu.Unlock()
	return hit && !start.After(at)
}

// FenceUser tells the proxy that user is being deleted: the requests of
// that user in flight now store nothing (their turns are dropped when
// they finish; the client still gets its reply). The management API's
// forget-user calls it before it deletes.
func (s *Server) FenceUser(user string) {
	keep := s.pol.Server.FirstByteTimeout.D() + s.pol.Server.ShutdownTimeout.D() + time.Hour
	s.fence.set(user, time.Now(), keep)
	// Chain links hold the user's exchanges (a Responses chain's context):
	// a request chained to one after the deletion would store it again.
	s.exchanges.ForgetUser(user)
	if f, ok := s.chains.(interface{ ForgetUser(user string) }); ok {
		f.ForgetUser(user)
	}
}

// ForgetScope tells the proxy that memories of the scope were forgotten
// on request ("forget that …"): this replica's chain links of the scope
// go, since a link may hold the forgotten exchange as a chain's context.
func (s *Server) ForgetScope(sc memory.Scope) {
	if f, ok := s.chains.(interface{ ForgetScope(memory.Scope) }); ok {
		f.ForgetScope(sc)
	}
}
