package proxy

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

type keyAuth struct {
	user       string
	allowNamed bool
}

const keyAuthCtx = "memproxy_key_auth"

// authenticate resolves a memproxy client key. When memproxy holds its own
// upstream key every /v1 request must present a valid client key: memproxy
// is never an open relay. Without one, a recognised client key only binds
// the request to its user.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		tok := clientToken(r)
		own := s.cfg.UpstreamKey != ""
		if isAnthropic(r) {
			own = s.cfg.AnthropicKey != ""
		}
		if s.cfg.Authenticator == nil || tok == "" {
			if own {
				return unauthorized("a memproxy client key is required (Authorization: Bearer <key>, or x-api-key on Anthropic routes)")
			}
			return next(c)
		}
		user, named, ok, err := s.cfg.Authenticator.Authenticate(c.Request().Context(), tok)
		if err != nil {
			return &APIError{Status: http.StatusServiceUnavailable, Message: "cannot check the client key right now", Type: "server_error", Code: "auth_unavailable", Err: err}
		}
		if !ok {
			if own || isClientKey(s.cfg.Authenticator, tok) {
				return unauthorized("invalid memproxy client key")
			}
			return next(c)
		}
		c.Set(keyAuthCtx, keyAuth{user: user, allowNamed: named})
		return next(c)
	}
}

func unauthorized(msg string) *APIError {
	return &APIError{Status: http.StatusUnauthorized, Message: msg, Type: "invalid_request_error", Code: "invalid_api_key"}
}

func keyAuthOf(c echo.Context) keyAuth {
	k, _ := c.Get(keyAuthCtx).(keyAuth)
	return k
}

// ClientKeyRecognizer is an Authenticator that can tell its own key format
// from an upstream key. A token in that format that is not a live key (a
// revoked key, the key of a deleted user) is refused with 401 rather than
// forwarded as if it were an upstream key.
type ClientKeyRecognizer interface {
	IsClientKey(token string) bool
}

func isClientKey(a Authenticator, tok string) bool {
	r, ok := a.(ClientKeyRecognizer)
	return ok && r.IsClientKey(tok)
}
