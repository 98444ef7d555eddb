package proxy

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/memproxy/memproxy/memory"
)

// chat serves POST /v1/chat/completions.
func (s *Server) chat(c echo.Context) error { return s.serve(c, chatWire{}) }

// serve runs the memory pipeline for one request of any API: parse into
// the neutral view, resolve identity, session and arm, recall and place
// the section, forward, relay and capture.
func (s *Server) serve(c echo.Context, wf wire) error {
	// In an execution trace (memproxy bench overhead --trace) each request
	// is a region, its recall another (recallpath).
	defer trace.StartRegion(c.Request().Context(), "memproxy.request").End()
	start := time.Now()
	r := c.Request()
	rid := requestID(c)
	body, err := readBody(r, s.pol.Server.MaxBodyBytes)
	if err != nil {
		return err
	}
	body, decoded, err := decodeBody(r.Header, body, s.pol.Server.MaxBodyBytes)
	if err != nil {
		return err
	}
	cv, err := wf.parse(body)
	if err != nil {
		return err
	}
	ka := keyAuthOf(c)
	api := wf.api()
	in := IdentityInput{
		Header: identityHeader(r.Header, api), BodyUser: cv.User, SafetyIdentifier: cv.SafetyIdentifier,
		KeyUser: ka.user, AllowNamed: ka.allowNamed, Policy: s.pol.Identity, Salt: s.cfg.Salt,
	}
	user, _ := ResolveUser(in)
	if err := checkNamedUser(in, user); err != nil {
		return err
	}
	if err := s.anonymousRule(c.Response().Header(), user); err != nil {
		return err
	}
	ns, ok := ResolveNamespace(r.Header)
	if !ok {
		return badRequest(HeaderNamespace, "invalid_header", "invalid "+HeaderNamespace+": must be 1-256 bytes of UTF-8 without control characters")
	}
	scope := memory.Scope{User: user, Namespace: ns}
	session := ResolveSession(r.Header, cv.Messages, s.pol.Identity.SessionMessages)
	turnContext := prevExchange(cv.Messages)
	if turnContext != "" && cv.Previous == "" && cv.Conversation == "" && strings.TrimSpace(r.Header.Get(HeaderSession)) == "" {
		// The history ends with an exchange this replica captured: the
		// conversation goes on in its session, whatever its first
		// messages are now (a sliding window drops them).
		if l, ok, _ := s.exchanges.ResolveResponse(r.Context(), scope, exchangeKey(turnContext)); ok && l.Session != "" {
			session = l.Session
		}
	}
	if cv.Previous != "" {
		// The history lives at the provider: the session and the
		// context follow the chain of response ids.
		l, _ := s.resolveChain(r.Context(), scope, cv.Previous)
		turnContext = l.Context
		if l.Session != "" && strings.TrimSpace(r.Header.Get(HeaderSession)) == "" {
			session = l.Session
		}
	} else if cv.Conversation != "" {
		// A provider-side conversation is the session; its last exchange
		// is linked under the conversation (linkConversation).
		l, _ := s.resolveChain(r.Context(), scope, conversationKey(cv.Conversation))
		turnContext = l.Context
		if strings.TrimSpace(r.Header.Get(HeaderSession)) == "" {
			session = conversationSession(cv.Conversation)
		}
	}
	arm, err := s.arm(r.Header, user, session)
	if err != nil {
		return err
	}
	req := &ChatRequest{
		API: api, RequestID: rid, Scope: scope, Session: session, Arm: arm,
		Time:   RequestTime(r.Header, s.cfg.AdminToken, s.now()),
		Header: r.Header, Model: cv.Model, Stream: cv.Stream, Messages: cv.Messages,
	}
	out, rw := s.applyRewrite(r.Context(), req, cv)
	if cv.Breakpoints > 0 && rw.Section != "" && s.pol.Inject.Placement == "system" {
		s.met.breakpointRebuilds.Inc()
	}

	h := c.Response().Header()
	h.Set(HeaderArm, arm)
	h.Set(HeaderRecall, rw.Status)
	h.Set(HeaderMemories, strconv.Itoa(rw.Memories))

	up, err := http.NewRequestWithContext(r.Context(), http.MethodPost, s.wireURL(api, r.URL).String(), bytes.NewReader(out))
	if err != nil {
		return fmt.Errorf("build upstream request: %w", err)
	}
	up.Header = s.wireHeader(api, r.Header)
	// Ask for identity encoding so the tee can read what it relays.
	up.Header.Del("Accept-Encoding")
	if decoded {
		up.Header.Del("Content-Encoding") // the body goes on decoded
	}
	up.Header.Del("Content-Length")
	overhead := time.Since(start)
	s.met.overhead.Observe(overhead.Seconds())
	h.Set(HeaderOverhead, strconv.FormatFloat(float64(overhead.Microseconds())/1000, 'f', 3, 64))
	if s.cfg.Observer != nil {
		s.cfg.Observer.Observe(req, rw, overhead)
	}

	resp, err := s.client.Do(up)
	if err != nil {
		ae := upstreamError(r.Context(), err)
		s.met.upstreamErrors.WithLabelValues(ae.Code).Inc()
		return ae
	}
	defer resp.Body.Close()
	copyResponseHeader(h, resp.Header)
	s.met.requests.WithLabelValues(api, arm, statusClass(resp.StatusCode)).Inc()

	cp := &capture{wf: wf}
	if resp.StatusCode/100 == 2 {
		if s.cfg.Sink != nil && Ingests(arm, s.pol.AB.OffArmIngests) && !rw.SkipCapture {
			cp.turn = &memory.Turn{
				API: api, RequestID: rid, Scope: scope, Session: session, Time: req.Time,
				User: newUserText(cv.Messages), Context: turnContext, Model: cv.Model, Arm: arm,
				Refs: TurnRefs(r.Header), Injected: rw.Injected, Intent: rw.Intent,
			}
		}
		// A Responses reply is read even when not captured: its id links
		// the next chained request to this session.
		cp.link = api == APIResponses
		cp.scope, cp.session, cp.conversation = scope, session, cv.Conversation
	}
	if isEventStream(resp.Header) {
		return s.relayStream(c, resp, cp)
	}
	return s.relayBody(c, resp, cp)
}

// capture is what a relay rebuilds the reply for: the turn to queue
// (nil when none) and whether to link a response id to the session.
type capture struct {
	wf      wire
	turn    *memory.Turn
	link    bool
	scope   memory.Scope
	session string
	// conversation is the Responses conversation id, linked to the
	// session and exchange as a response id is.
	conversation string
}

func (c *capture) wanted() bool { return c.turn != nil || c.link }

// arm resolves the A/B arm: the X-Memproxy-Memory override, else the
// salted hash of the policy's unit.
func (s *Server) arm(h http.Header, user, session string) (string, error) {
	if arm, ok := anonymousArm(user); ok {
		return arm, nil
	}
	if v := h.Get(HeaderMemory); v != "" {
		v = strings.ToLower(strings.TrimSpace(v))
		if !ValidArm(v) {
			return "", badRequest(HeaderMemory, "invalid_header", "invalid "+HeaderMemory+": use on, off, readonly or writeonly")
		}
		return v, nil
	}
	unit := user
	if s.pol.AB.Unit == "session" {
		unit = session
	}
	return AssignArm(s.cfg.Salt, unit, s.pol.AB.OffPercent), nil
}

// applyRewrite runs the Rewriter for the recalling arms and returns the
// body to forward. Any Rewriter or placement failure, panic included,
// forwards the original bytes (fail open).
func (s *Server) applyRewrite(ctx context.Context, req *ChatRequest, cv *convo) ([]byte, *Rewrite) {
	switch {
	case req.Arm != ArmOn && req.Arm != ArmReadonly:
		return cv.raw, &Rewrite{Status: RecallOff}
	case s.cfg.Rewriter == nil:
		return cv.raw, &Rewrite{Status: RecallSkipped}
	}
	rw, err := s.callRewriter(ctx, req)
	if err == nil && rw == nil {
		rw = &Rewrite{}
	}
	var out []byte
	if err == nil {
		switch {
		case rw.Section != "":
			out, err = cv.place(rw.Section, s.pol.Inject.Placement)
		case rw.Messages != nil && cv.spliceMessages != nil:
			out = cv.spliceMessages(rw.Messages)
		default:
			out = cv.raw
		}
	}
	if err != nil {
		s.met.recallFailures.Inc()
		s.log.Warn("recall failed; forwarding the request unchanged", "request_id", req.RequestID, "api", req.API, "err", err)
		return cv.raw, &Rewrite{Status: RecallError}
	}
	if rw.Status == "" {
		rw.Status = RecallSkipped
	}
	return out, rw
}

func (s *Server) callRewriter(ctx context.Context, req *ChatRequest) (rw *Rewrite, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("rewriter panic: %v", p)
		}
	}()
	return s.cfg.Rewriter.Rewrite(ctx, req)
}

// readBody reads at most limit bytes; a larger body is a 413.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	n := r.ContentLength
	if n < 0 || n > 1<<20 {
		n = 512
	}
	buf := bytes.NewBuffer(make([]byte, 0, n+1))
	_, err := buf.ReadFrom(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, badRequest("", "invalid_body", "cannot read request body")
	}
	if int64(buf.Len()) > limit {
		return nil, tooLarge(limit)
	}
	return buf.Bytes(), nil
}

// decodeBody undoes a request body's Content-Encoding (gzip or deflate,
// as some HTTP clients compress uploads) so memproxy can read it; the
// body then goes upstream decoded. decoded says it was encoded. The
// decoded body is bounded by limit as a plain one is (413), a corrupt
// one is a 400, an encoding memproxy cannot read a 415: it used to be
// parsed as it came and refused as "not valid UTF-8".
func decodeBody(h http.Header, body []byte, limit int64) ([]byte, bool, error) {
	var codings []string
	for _, v := range h.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	if len(codings) == 0 {
		return body, false, nil
	}
	// Codings are listed in the order they were applied.
	for i := len(codings) - 1; i >= 0; i-- {
		var zr io.ReadCloser
		var err error
		switch codings[i] {
		case "gzip", "x-gzip":
			zr, err = gzip.NewReader(bytes.NewReader(body))
		case "deflate":
			zr, err = zlib.NewReader(bytes.NewReader(body))
		default:
			return nil, false, &APIError{Status: http.StatusUnsupportedMediaType, Type: "invalid_request_error", Param: "Content-Encoding", Code: "unsupported_content_encoding",
				Message: fmt.Sprintf("unsupported Content-Encoding %q: send the body as is, gzip or deflate", codings[i])}
		}
		if err == nil {
			var buf bytes.Buffer
			_, err = buf.ReadFrom(io.LimitReader(zr, limit+1))
			zr.Close()
			if int64(buf.Len()) > limit {
				return nil, false, &APIError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error", Code: "request_too_large",
					Message: fmt.Sprintf("decoded request body is larger than %d bytes (policy server.max_body_bytes)", limit)}
			}
			body = buf.Bytes()
		}
		if err != nil {
			return nil, false, badRequest("Content-Encoding", "invalid_body", fmt.Sprintf("request body is not valid %s: %v", codings[i], err))
		}
	}
	return body, true, nil
}

func tooLarge(limit int64) *APIError {
	return &APIError{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error", Code: "request_too_large",
		Message: fmt.Sprintf("request body is larger than %d bytes (policy server.max_body_bytes)", limit)}
}

func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// relayBody relays a non-streamed response. A reply to capture is read
// whole (it is one JSON document), its turn queued, then written.
func (s *Server) relayBody(c echo.Context, resp *http.Response, cp *capture) error {
	w := c.Response()
	if !cp.wanted() {
		w.WriteHeader(resp.StatusCode)
		relayRest(c.Request().Context(), w, resp.Body)
		return nil
	}
	body, err := readReply(resp, maxCapturedReply)
	if err != nil {
		w.Header().Del("Content-Length")
		ae := upstreamError(c.Request().Context(), err)
		return ae
	}
	if int64(len(body)) > maxCapturedReply {
		// Past what memproxy reads of a reply: relayed as it comes,
		// not captured.
		s.log.Warn("reply longer than memproxy reads for capture; relayed, not captured", "request_id", requestID(c), "limit_bytes", maxCapturedReply)
		w.WriteHeader(resp.StatusCode)
		if _, err := w.Write(body); err == nil {
			relayRest(c.Request().Context(), w, resp.Body)
		}
		return nil
	}
	s.finishTurn(c.Request().Context(), cp, cp.wf.bodyReply(body))
	w.WriteHeader(resp.StatusCode)
	_, err = w.Write(body)
	return ignoreRelayErr(err)
}

// relayRest copies an upstream body to the client as it comes. When the
// upstream's connection breaks (a read error, not its end) while the
// client is still there, the client's response is broken too
// (abortReply): ending it cleanly would hand the client a cut reply as
// a whole one.
func relayRest(ctx context.Context, w io.Writer, body io.Reader) {
	buf := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(buf)
	for {
		n, err := body.Read(*buf)
		if n > 0 {
			if _, werr := w.Write((*buf)[:n]); werr != nil {
				return // client gone
			}
		}
		switch {
		case err == io.EOF:
			return
		case err != nil:
			if ctx.Err() == nil {
				abortReply()
			}
			return
		}
	}
}

// abortReply breaks the client's connection (HTTP/2: resets its stream)
// without ending the response: net/http does so for this panic and logs
// nothing, and recoverPanic lets it through. A reply the upstream broke
// off mid-way reaches the client broken, as it would directly.
func abortReply() { panic(http.ErrAbortHandler) }

// copyBufs are relay buffers: io.Copy would allocate 32 KB per reply,
// most of what a request that memory skips allocates.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// maxCapturedReply bounds what memproxy reads of a reply to capture it:
// a plain reply is read whole only up to it, a stream's event data is
// rebuilt only up to it, and one stream event is held whole only up to
// it. A reply past it is relayed as it comes and not captured, so one
// reply never costs memproxy more memory than this (an endless reply
// or event cost without bound). A variable for tests.
var maxCapturedReply int64 = 64 << 20

// readReply reads a reply whole, into a buffer of its announced length
// when it has one (io.ReadAll grows from 512 bytes), but no more than
// limit+1 bytes: longer than limit, it returns the first limit+1 and the
// rest stays in resp.Body.
func readReply(resp *http.Response, limit int64) ([]byte, error) {
	body := io.LimitReader(resp.Body, limit+1)
	n := resp.ContentLength
	if n <= 0 || n > limit {
		return io.ReadAll(body)
	}
	b := make([]byte, 0, n+1) // +1: room for the read that sees EOF
	for {
		k, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+k]
		switch {
		case err == io.EOF:
			return b, nil
		case err != nil:
			return b, err
		case len(b) == cap(b):
			// Longer than announced: the rest as it comes.
			rest, err := io.ReadAll(body)
			return append(b, rest...), err
		}
	}
}

// relayStream relays an SSE response event by event, flushing each at
// once, and rebuilds the reply on the side. The turn is queued when the
// upstream has finished: before its terminal event ([DONE],
// response.completed, message_stop) is relayed, or at the end of a stream
// without one.
func (s *Server) relayStream(c echo.Context, resp *http.Response, cp *capture) error {
	w := c.Response()
	rc := http.NewResponseController(w)
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	if err := rc.Flush(); err != nil {
		return nil
	}
	sr := newSSEReader(resp.Body)
	sr.max = maxCapturedReply
	var asm streamReply
	queued := !cp.wanted()
	if !queued {
		asm = cp.wf.stream()
	}
	var fed int64 // event data handed to asm: what it may hold
	for {
		raw, data, err := sr.Next()
		if errors.Is(err, errEventTooLong) || (!queued && fed+int64(len(data)) > maxCapturedReply) {
			// Past what memproxy reads of a reply: relayed as it
			// comes, not captured.
			if !queued {
				s.log.Warn("streamed reply longer than memproxy reads for capture; relayed, not captured", "request_id", requestID(c), "limit_bytes", maxCapturedReply)
			}
			queued, err = true, nil
		}
		fed += int64(len(data))
		if len(raw) > 0 {
			if !queued {
				asm.Add(data)
				if asm.Done() {
					s.finishTurn(c.Request().Context(), cp, asm.Reply())
					queued = true
				}
			}
			if _, werr := w.Write(raw); werr != nil {
				return nil // client gone; its context cancels the upstream
			}
			if ferr := rc.Flush(); ferr != nil {
				return nil
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if c.Request().Context().Err() == nil {
				s.log.Warn("upstream stream broke; turn not captured", "request_id", requestID(c), "err", err)
				abortReply()
			}
			return nil
		}
	}
	if !queued {
		if rep := asm.Reply(); rep.OK {
			s.finishTurn(c.Request().Context(), cp, rep)
		}
	}
	return nil
}

// finishTurn links a response id to the session and queues the turn of
// a complete reply; a pending one (a background response) waits for the
// app to fetch it.
func (s *Server) finishTurn(ctx context.Context, cp *capture, rep reply) {
	ex := ""
	if cp.turn != nil {
		ex = memory.ExchangeContext(cp.turn.User, rep.Text)
	}
	if cp.link && rep.ID != "" {
		s.linkChain(ctx, cp.scope, rep.ID, ChainLink{Session: cp.session, Context: ex})
		if cp.conversation != "" && rep.OK {
			s.linkChain(ctx, cp.scope, conversationKey(cp.conversation), ChainLink{Session: cp.session, Context: ex})
		}
	}
	if cp.turn == nil {
		return
	}
	if rep.OK && !rep.Pending && cp.session != "" {
		_ = s.exchanges.LinkResponse(ctx, cp.scope, exchangeKey(ex), ChainLink{Session: cp.session})
	}
	if rep.Pending && rep.ID != "" {
		s.holdTurn(ctx, rep.ID, cp.turn)
		return
	}
	if !rep.OK {
		return
	}
	cp.turn.Assistant, cp.turn.FinishReason = rep.Text, rep.Finish
	if cp.link {
		cp.turn.ResponseID = rep.ID
	}
	if rep.Model != "" {
		cp.turn.Model = rep.Model
	}
	s.enqueue(ctx, cp.turn)
}

// enqueue hands a turn to the sink. The reply waits for the sink's
// answer up to server.sink_timeout; past it the reply goes on and the
// answer is awaited in the background, up to
// server.sink_abandon_timeout. The turn is counted and logged as not
// captured only when the sink says it was not stored (an error) or no
// answer came by the abandon bound: a slow commit that lands counts as
// captured (and as late), never as a failure. A failure never reaches the
// client.
func (s *Server) enqueue(ctx context.Context, t *memory.Turn) {
	if t.User == "" && t.Assistant == "" {
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.pol.Server.SinkAbandonTimeout.D())
	done := make(chan struct{})
	s.captures.Add(1)
	s.met.capturesPending.Inc()
	go func() {
		defer s.captures.Done()
		defer s.met.capturesPending.Dec()
		defer cancel()
		defer close(done)
		s.captureOutcome(t, s.callSink(sctx, t), sctx.Err() != nil)
	}()
	timer := time.NewTimer(s.pol.Server.SinkTimeout.D())
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		s.met.captureLate.Inc()
		s.log.Info("turn capture still pending at server.sink_timeout; the reply goes on, the outcome follows", "request_id", t.RequestID)
	}
}

// callSink runs the sink, turning a panic into an error.
func (s *Server) callSink(ctx context.Context, t *memory.Turn) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("sink panic: %v", p)
		}
	}()
	return s.cfg.Sink.Enqueue(ctx, t)
}

// captureOutcome counts and logs the sink's answer for t; abandoned means
// the abandon bound passed before it.
func (s *Server) captureOutcome(t *memory.Turn, err error, abandoned bool) {
	if err == nil {
		s.met.captured.Inc()
		return
	}
	if abandoned {
		err = fmt.Errorf("no answer from the sink within server.sink_abandon_timeout: %w", err)
	}
	s.met.captureFailures.Inc()
	s.log.Error("turn not captured", "request_id", t.RequestID, "scope", t.Scope.String(), "err", err)
}

// WaitCaptures waits until every turn handed to the sink has its outcome
// (those past server.sink_timeout included), or ctx ends. Call it after
// the HTTP server stopped and before the sink (the queue) stops.
func (s *Server) WaitCaptures(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.captures.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("proxy: captures still pending: %w", ctx.Err())
	}
}

// ignoreRelayErr drops write errors after the header went out: the
// client is gone and nothing more can be told to it.
func ignoreRelayErr(error) error { return nil }
