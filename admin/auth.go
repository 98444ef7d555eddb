package admin

import (
	"crypto/sha256"
	"crypto/subtle"
	"strings"

	"github.com/labstack/echo/v4"
)

// requireToken admits a request only with the admin token. Both sides are
// hashed before the constant-time comparison so neither the content nor
// the length of the token leaks through timing.
func (a *API) requireToken(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !a.isAdmin(c) {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="memproxy-admin"`)
			return errUnauthorized
		}
		return next(c)
	}
}

func (a *API) isAdmin(c echo.Context) bool {
	got, ok := bearer(c.Request().Header.Get("Authorization"))
	if !ok || len(a.token) == 0 {
		return false
	}
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256(a.token)
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// bearer extracts the token of an "Authorization: Bearer <token>" header.
func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}
