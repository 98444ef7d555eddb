package proxy

import (
	"context"
	"net/http"
	"net/http/httputil"

	"github.com/labstack/echo/v4"
)

// newPassThrough relays every other /v1 route as is: body and response
// streamed, SSE flushed per write (FlushInterval -1), X-Memproxy-* headers
// stripped.
func (s *Server) newPassThrough() *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.Host = ""
			stripHeaders(pr.Out.Header)
			if isAnthropic(pr.In) {
				pr.Out.URL = s.anthropicURL(pr.In.URL)
				setAnthropicKey(pr.Out.Header, s.cfg.AnthropicKey)
				return
			}
			pr.Out.URL = s.upstreamURL(pr.In.URL)
			if s.cfg.UpstreamKey != "" {
				pr.Out.Header.Set("Authorization", "Bearer "+s.cfg.UpstreamKey)
			}
		},
		Transport:     s.transport,
		BufferPool:    relayBufPool{},
		FlushInterval: -1,
		ErrorLog:      nil,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			ae := upstreamError(r.Context(), err)
			s.met.upstreamErrors.WithLabelValues(ae.Code).Inc()
			c, _ := r.Context().Value(echoCtxKey{}).(echo.Context)
			if c == nil {
				http.Error(w, ae.Message, ae.Status)
				return
			}
			s.errorHandler(ae, c)
		},
	}
}

// relayBufPool lends the pass-through copyBufs' relay buffers
// (httputil.ReverseProxy allocates 32 KB a response without a pool).
type relayBufPool struct{}

func (relayBufPool) Get() []byte { return *copyBufs.Get().(*[]byte) }

func (relayBufPool) Put(b []byte) {
	if cap(b) >= 32<<10 {
		b = b[:cap(b)]
		copyBufs.Put(&b)
	}
}

type echoCtxKey struct{}

func (s *Server) passThrough(c echo.Context) error {
	r := c.Request()
	r = r.WithContext(contextWith(r, c))
	s.rp.ServeHTTP(c.Response(), r)
	s.met.requests.WithLabelValues("passthrough", "", statusClass(c.Response().Status)).Inc()
	return nil
}

func statusClass(code int) string {
	switch {
	case code >= 500:
		return "5xx"
	case code >= 400:
		return "4xx"
	case code >= 300:
		return "3xx"
	}
	return "2xx"
}

func contextWith(r *http.Request, c echo.Context) context.Context {
	return context.WithValue(r.Context(), echoCtxKey{}, c)
}
