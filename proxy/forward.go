package proxy

import (
	"context"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/memproxy/memproxy/policy"
)

// newTransport builds the upstream transport: a short connect timeout
// (dial failures are 502) and a generous first-byte timeout (504).
// Compression is left to the client so bytes relay unchanged.
func newTransport(p *policy.Policy) *http.Transport {
	d := &net.Dialer{Timeout: p.Server.ConnectTimeout.D(), KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, &dialError{err: err}
			}
			return c, nil
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   p.Server.ConnectTimeout.D(),
		ResponseHeaderTimeout: p.Server.FirstByteTimeout.D(),
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
	}
}

// hopHeaders are connection-scoped and never forwarded (RFC 9110 7.6.1).
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// outboundHeader copies the client's headers for the upstream: hop-by-hop
// and X-Memproxy-* headers are dropped; Authorization, OpenAI-Organization
// and OpenAI-Project pass through unless memproxy uses its own key.
func outboundHeader(in http.Header, upstreamKey string) http.Header {
	out := make(http.Header, len(in))
	for k, v := range in {
		out[k] = v
	}
	stripHeaders(out)
	if upstreamKey != "" {
		out.Set("Authorization", "Bearer "+upstreamKey)
	}
	return out
}

// stripHeaders removes hop-by-hop headers (including those named by
// Connection) and every X-Memproxy-* header in place.
func stripHeaders(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			if name = textproto.TrimString(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	for k := range h {
		if len(k) >= 11 && strings.EqualFold(k[:11], "X-Memproxy-") {
			delete(h, k)
		}
	}
}

// copyResponseHeader copies upstream response headers to the client
// (hop-by-hop ones dropped).
func copyResponseHeader(dst, src http.Header) {
	for k, v := range src {
		switch textproto.CanonicalMIMEHeaderKey(k) {
		case "Connection", "Keep-Alive", "Transfer-Encoding", "Trailer", "Upgrade", "Proxy-Connection":
			continue
		}
		dst[k] = append(dst[k][:0:0], v...)
	}
}
