package proxy

import (
	"context"
	"io"
	"net/http"
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

// ResolveResponse implements ChainStore.
func (m *MemChains) ResolveResponse(_ context.Context, sc memory.Scope, id string) (ChainLink, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.links[chainKey(sc, id)]
	return l, ok, nil
}

// pendingTurns holds the turns of background responses until the app
// fetches them completed (GET /v1/responses/{id}); bounded and expiring.
type pendingTurns struct {
	mu    sync.Mutex
	turns map[string]pendingTurn
	ttl   time.Duration
	max   int
}

type pendingTurn struct {
	turn *memory.Turn
	at   time.Time
}

func newPendingTurns() *pendingTurns {
	return &pendingTurns{turns: map[string]pendingTurn{}, ttl: 24 * time.Hour, max: 10_000}
}

func (p *pendingTurns) put(id string, t *memory.Turn) {
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
	p.turns[id] = pendingTurn{turn: t, at: now}
}

func (p *pendingTurns) get(id string) *memory.Turn {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.turns[id]
	if !ok || time.Since(v.at) > p.ttl {
		delete(p.turns, id)
		return nil
	}
	return v.turn
}

func (p *pendingTurns) drop(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.turns, id)
}

// fetchResponse serves GET /v1/responses/{id}: relayed as is, and when it
// is a background response memproxy saw started, the completed response
// is captured as that request's turn.
func (s *Server) fetchResponse(c echo.Context) error {
	id := c.Param("id")
	turn := s.pending.get(id)
	if turn == nil || c.Request().URL.Query().Get("stream") == "true" {
		return s.passThrough(c)
	}
	r := c.Request()
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
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		h.Del("Content-Length")
		return upstreamError(r.Context(), err)
	}
	if resp.StatusCode/100 == 2 {
		rep := responsesWire{}.bodyReply(body)
		switch {
		case rep.OK:
			s.pending.drop(id)
			s.finishTurn(r.Context(), &capture{wf: responsesWire{}, turn: turn, link: true, scope: turn.Scope, session: turn.Session}, rep)
		case !rep.Pending:
			s.pending.drop(id) // failed or cancelled: nothing to learn
		}
	}
	c.Response().WriteHeader(resp.StatusCode)
	_, _ = c.Response().Write(body)
	return nil
}
