package proxy

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// apis is the Server state of the Responses and Anthropic routes.
type apis struct {
	anthropic *url.URL // origin, no path
	chains    ChainStore
	exchanges *MemChains // a captured exchange's session, by exchangeKey
	held      HeldTurns
	heldLocal bool // held is memHeld: a released turn still goes to the Sink
}

func (s *Server) initAPIs() error {
	origin := s.cfg.AnthropicUpstream
	if origin == "" {
		origin = s.upstream.Scheme + "://" + s.upstream.Host
	}
	u, err := url.Parse(strings.TrimSuffix(origin, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("proxy: anthropic upstream %q is not an http(s) URL", s.cfg.AnthropicUpstream)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	s.anthropic = u
	s.chains = s.cfg.Chains
	if s.chains == nil {
		s.chains = NewMemChains(0)
	}
	s.exchanges = NewMemChains(0)
	s.held = s.cfg.Held
	if s.held == nil {
		s.held, s.heldLocal = newMemHeld(), true
	}
	return nil
}

// apiRoutes adds the Responses and Anthropic Messages routes.
func (s *Server) apiRoutes(v1 *echo.Group) {
	v1.Any("/responses", func(c echo.Context) error {
		if c.Request().Method == http.MethodPost {
			return s.serve(c, responsesWire{})
		}
		return s.passThrough(c)
	})
	v1.Any("/responses/:id", func(c echo.Context) error {
		if c.Request().Method == http.MethodGet {
			return s.fetchResponse(c)
		}
		return s.passThrough(c)
	})
	v1.Any("/messages", func(c echo.Context) error {
		if c.Request().Method == http.MethodPost {
			return s.serve(c, messagesWire{})
		}
		return s.passThrough(c)
	})
}

// isAnthropic reports whether a request belongs to the Anthropic API: the
// Messages routes, or any request carrying anthropic-version (batches,
// files, models of an Anthropic SDK).
func isAnthropic(r *http.Request) bool {
	return r.URL.Path == "/v1/messages" || strings.HasPrefix(r.URL.Path, "/v1/messages/") || r.Header.Get("Anthropic-Version") != ""
}

// wireURL is the upstream URL of a request of api.
func (s *Server) wireURL(api string, in *url.URL) *url.URL {
	if api != APIMessages {
		return s.upstreamURL(in)
	}
	return s.anthropicURL(in)
}

// anthropicURL maps /v1/X?q to the Anthropic origin + /v1/X?q.
func (s *Server) anthropicURL(in *url.URL) *url.URL {
	u := *s.anthropic
	u.Path = s.anthropic.Path + in.Path
	u.RawPath = ""
	u.RawQuery = in.RawQuery
	return &u
}

// wireHeader is the upstream request header of api: the client's
// (x-api-key, anthropic-version and anthropic-beta included) less
// hop-by-hop and X-Memproxy-* headers, with memproxy's own key in place
// of the client's when it holds one.
func (s *Server) wireHeader(api string, in http.Header) http.Header {
	if api != APIMessages {
		return outboundHeader(in, s.cfg.UpstreamKey)
	}
	out := outboundHeader(in, "")
	setAnthropicKey(out, s.cfg.AnthropicKey)
	return out
}

func setAnthropicKey(h http.Header, key string) {
	if key == "" {
		return
	}
	h.Del("Authorization")
	h.Set("X-Api-Key", key)
}

// clientToken is the caller's key: the bearer token, or on Anthropic
// requests the x-api-key header.
func clientToken(r *http.Request) string {
	if t := BearerToken(r.Header); t != "" {
		return t
	}
	if isAnthropic(r) {
		return strings.TrimSpace(r.Header.Get("X-Api-Key"))
	}
	return ""
}

// identityHeader is the header identity resolution reads: an Anthropic
// caller's x-api-key counts as its bearer token, so a bare provider key
// hashes to the same user whichever header carries it.
func identityHeader(h http.Header, api string) http.Header {
	if api != APIMessages || BearerToken(h) != "" {
		return h
	}
	k := strings.TrimSpace(h.Get("X-Api-Key"))
	if k == "" {
		return h
	}
	out := h.Clone()
	out.Set("Authorization", "Bearer "+k)
	return out
}
