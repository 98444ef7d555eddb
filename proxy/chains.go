package proxy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/memproxy/memproxy/memory"
)

// chainTimeout bounds a chain lookup or link on the request path; past
// it the request goes on as a new session.
const chainTimeout = 250 * time.Millisecond

// resolveChain returns the link of a previous response id; any failure
// or miss is an empty link (the request simply has no earlier context).
func (s *Server) resolveChain(ctx context.Context, sc memory.Scope, id string) (ChainLink, bool) {
	ctx, cancel := context.WithTimeout(ctx, chainTimeout)
	defer cancel()
	l, ok, err := s.chains.ResolveResponse(ctx, sc, id)
	if err != nil {
		s.log.Warn("responses: resolve previous_response_id", "err", err)
		return ChainLink{}, false
	}
	return l, ok
}

func (s *Server) linkChain(ctx context.Context, sc memory.Scope, id string, l ChainLink) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), chainTimeout)
	defer cancel()
	if err := s.chains.LinkResponse(ctx, sc, id, l); err != nil {
		s.log.Warn("responses: link response id", "response_id", id, "err", err)
	}
}

// exchangeKey is the key of the session an exchange (its
// memory.ExchangeContext) was captured in. A chat app that resends a
// sliding window of its history drops the first messages the session is
// hashed from (ResolveSession); the exchange before its new message is
// the one memproxy captured last, so the request goes on in that
// session. Links are this replica's (MemChains): on another replica the
// request falls back to the hash.
func exchangeKey(exchange string) string {
	sum := sha256.Sum256([]byte(exchange))
	return "exchange:" + hex.EncodeToString(sum[:16])
}

// conversationKey is the ChainStore key of a Responses conversation's
// last exchange (response ids start "resp_", so the two never meet).
func conversationKey(id string) string { return "conversation:" + id }

// conversationSession is the session of a Responses conversation: the
// same on every replica, without a lookup. An id too long for a session
// is hashed.
func conversationSession(id string) string {
	if len(id) <= 200 {
		return "conv:" + id
	}
	sum := sha256.Sum256([]byte(id))
	return "conv:h:" + hex.EncodeToString(sum[:12])
}

// MemChains is a ChainStore in memory, bounded to max links (the oldest
// go first). It is the default; a store-backed ChainStore shares links
// between replicas.
type MemChains struct {
	mu    sync.Mutex
	max   int
	links map[string]ChainLink
	order []string
}

// NewMemChains returns a MemChains holding up to max links (<= 0: 100k).
func NewMemChains(max int) *MemChains {
	if max <= 0 {
		max = 100_000
	}
	return &MemChains{max: max, links: map[string]ChainLink{}}
}

func chainKey(sc memory.Scope, id string) string {
	return sc.User + "\x00" + sc.Namespace + "\x00" + id
}

// LinkResponse implements ChainStore.
func (m *MemChains) LinkResponse(_ context.Context, sc memory.Scope, id string, l ChainLink) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := chainKey(sc, id)
	if _, ok := m.links[k]; !ok {
		m.order = append(m.order, k)
	}
	m.links[k] = l
	for len(m.order) > m.max {
		delete(m.links, m.order[0])
		m.order = m.order[1:]
	}
	return nil
}

// ForgetUser drops every link of user's scopes: a link may hold an
// exchange's text, which a request chained to it after the user was
// deleted would store again.
func (m *MemChains) ForgetUser(user string) { m.forget(user + "\x00") }

// ForgetScope drops every link of the scope (after a forget there: a
// chained request then reads its session and context from the spool and
// the turn log, which the forget erased).
func (m *MemChains) ForgetScope(sc memory.Scope) { m.forget(chainKey(sc, "")) }

// forget drops the links whose keys start with prefix.
func (m *MemChains) forget(prefix string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kept := m.order[:0]
	for _, k := range m.order {
		if strings.HasPrefix(k, prefix) {
			delete(m.links, k)
			continue
		}
		kept = append(kept, k)
	}
	clear(m.order[len(kept):])
	m.order = kept
}

// ResolveResponse implements ChainStore.
func (m *MemChains) ResolveResponse(_ context.Context, sc memory.Scope, id string) (ChainLink, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.links[chainKey(sc, id)]
	return l, ok, nil
}

// memHeld is the HeldTurns of a Server configured without one: the held
// turns in this process's memory, bounded and expiring, queued through
// the Sink when released. A replica that did not see the POST, or a
// restart, loses them; the background queue's HeldTurns does not.
type memHeld struct {
	mu    sync.Mutex
	turns map[string]heldEntry
	ttl   time.Duration
	max   int
}

type heldEntry struct {
	turn *memory.Turn
	at   time.Time
}

func newMemHeld() *memHeld {
	return &memHeld{turns: map[string]heldEntry{}, ttl: 24 * time.Hour, max: 10_000}
}

// HoldTurn implements HeldTurns.
func (p *memHeld) HoldTurn(_ context.Context, t *memory.Turn) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if len(p.turns) >= p.max {
		for k, v := range p.turns {
			if now.Sub(v.at) > p.ttl || len(p.turns) >= p.max {
				delete(p.turns, k)
			}
		}
	}
	c := *t
	p.turns[chainKey(t.Scope, t.ResponseID)] = heldEntry{turn: &c, at: now}
	return nil
}

// HeldTurn implements HeldTurns.
func (p *memHeld) HeldTurn(_ context.Context, sc memory.Scope, id string) (*memory.Turn, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := chainKey(sc, id)
	v, ok := p.turns[k]
	if !ok || time.Since(v.at) > p.ttl {
		delete(p.turns, k)
		return nil, false, nil
	}
	c := *v.turn
	return &c, true, nil
}

// ReleaseTurn implements HeldTurns: it only forgets the turn, which the
// Server then queues through its Sink (heldLocal).
func (p *memHeld) ReleaseTurn(_ context.Context, t *memory.Turn) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := chainKey(t.Scope, t.ResponseID)
	if _, ok := p.turns[k]; !ok {
		return false, nil
	}
	delete(p.turns, k)
	return true, nil
}

// holdTurn keeps the turn of a background response (answered "queued")
// until the app fetches it completed; a failure is counted and logged as
// a turn not captured.
func (s *Server) holdTurn(ctx context.Context, id string, t *memory.Turn) {
	if s.fence.fenced(ctx, t.Scope.User) {
		return // its user was deleted while the request ran (as cappedSink)
	}
	t.ResponseID = id
	s.capTurn(t)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.pol.Server.SinkTimeout.D())
	defer cancel()
	if err := s.held.HoldTurn(ctx, t); err != nil {
		s.met.captureFailures.Inc()
		s.log.Error("background response's turn not held; it will not be captured", "request_id", t.RequestID, "response_id", id, "err", err)
	}
}

// capTurn cuts a held turn's texts to policy ingest.max_turn_bytes, as
// cappedSink does for the turns handed to the Sink.
func (s *Server) capTurn(t *memory.Turn) {
	if n := s.pol.Ingest.MaxTurnBytes; n > 0 {
		var cu, ca bool
		t.User, cu = cutText(t.User, n)
		t.Assistant, ca = cutText(t.Assistant, n)
		t.Truncated = t.Truncated || cu || ca
	}
}

// maxFetchedBody bounds the response body GET /v1/responses/{id} reads
// to capture; a larger one is relayed without capture.
const maxFetchedBody = 16 << 20

// fetchResponse serves GET /v1/responses/{id}: relayed as is, and when it
// is a completed background response whose turn is held for the caller's
// scope (by any replica), that turn is captured with the reply, once.
// The caller is identified as on the POST, from its headers and key: a
// user named only in the POST's body is not known here.
func (s *Server) fetchResponse(c echo.Context) error {
	r := c.Request()
	if r.URL.Query().Get("stream") == "true" {
		return s.passThrough(c)
	}
	up, err := http.NewRequestWithContext(r.Context(), http.MethodGet, s.upstreamURL(r.URL).String(), nil)
	if err != nil {
		return err
	}
	up.Header = outboundHeader(r.Header, s.cfg.UpstreamKey)
	up.Header.Del("Accept-Encoding")
	resp, err := s.client.Do(up)
	if err != nil {
		ae := upstreamError(r.Context(), err)
		s.met.upstreamErrors.WithLabelValues(ae.Code).Inc()
		return ae
	}
	defer resp.Body.Close()
	h := c.Response().Header()
	copyResponseHeader(h, resp.Header)
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFetchedBody+1))
	if err != nil {
		h.Del("Content-Length")
		return upstreamError(r.Context(), err)
	}
	w := c.Response()
	if len(body) > maxFetchedBody {
		w.WriteHeader(resp.StatusCode)
		if _, err := w.Write(body); err == nil {
			relayRest(r.Context(), w, resp.Body)
		}
		return nil
	}
	if resp.StatusCode/100 == 2 && s.cfg.Sink != nil {
		if rep := (responsesWire{}).bodyReply(body); rep.OK && rep.ID == c.Param("id") {
			s.releaseHeld(c, rep)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
	return nil
}

// releaseHeld captures the held turn of the completed response rep, if
// the caller's scope holds one.
func (s *Server) releaseHeld(c echo.Context, rep reply) {
	r := c.Request()
	ka := keyAuthOf(c)
	in := IdentityInput{Header: identityHeader(r.Header, APIResponses), KeyUser: ka.user, AllowNamed: ka.allowNamed,
		Policy: s.pol.Identity, Salt: s.cfg.Salt}
	user, _ := ResolveUser(in)
	ns, ok := ResolveNamespace(r.Header)
	if user == Anonymous || !ok || checkNamedUser(in, user) != nil {
		return
	}
	sc := memory.Scope{User: user, Namespace: ns}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), chainTimeout)
	t, found, err := s.held.HeldTurn(lctx, sc, rep.ID)
	cancel()
	if err != nil {
		s.log.Warn("responses: look up a held background turn", "response_id", rep.ID, "err", err)
		return
	}
	if !found {
		return
	}
	t.Assistant, t.FinishReason = rep.Text, rep.Finish
	if rep.Model != "" {
		t.Model = rep.Model
	}
	s.capTurn(t)
	s.linkChain(r.Context(), sc, rep.ID, ChainLink{Session: t.Session, Context: memory.ExchangeContext(t.User, rep.Text)})
	rctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), s.pol.Server.SinkTimeout.D())
	defer cancel()
	released, err := s.held.ReleaseTurn(rctx, t)
	switch {
	case err != nil:
		s.met.captureFailures.Inc()
		s.log.Error("background response's turn not captured", "request_id", t.RequestID, "response_id", rep.ID, "err", err)
	case !released:
		// Another replica (or a concurrent fetch) captured it.
	case s.heldLocal:
		s.enqueue(r.Context(), t)
	default:
		s.met.captured.Inc()
	}
}
