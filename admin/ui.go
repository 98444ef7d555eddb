package admin

import (
	"embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// uiFiles is the memory browser page: plain HTML, JS and CSS, no build
// step. It holds no secret and calls only the admin API, with the token
// the operator types in.
//
//go:embed ui/index.html ui/app.js ui/app.css
var uiFiles embed.FS

func (a *API) mountUI(e *echo.Echo) {
	serve := func(name, ctype string) echo.HandlerFunc {
		return func(c echo.Context) error {
			b, err := uiFiles.ReadFile("ui/" + name)
			if err != nil {
				return err
			}
			h := c.Response().Header()
			h.Set("Cache-Control", "no-cache")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "no-referrer")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
			return c.Blob(http.StatusOK, ctype, b)
		}
	}
	e.GET("/admin", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/admin/") })
	e.GET("/admin/", serve("index.html", "text/html; charset=utf-8"))
	e.GET("/admin/app.js", serve("app.js", "text/javascript; charset=utf-8"))
	e.GET("/admin/app.css", serve("app.css", "text/css; charset=utf-8"))
}
