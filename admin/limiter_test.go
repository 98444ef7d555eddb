package admin_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/policy"
)

// adminGet sends GET /admin/v1/users with a wrong token (a guess) and the
// given X-Forwarded-For, returning the status.
func (s *stack) adminGuess(xff string) int {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.front.URL+"/admin/v1/users", nil)
	req.Header.Set("Authorization", "Bearer guess")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestLimiterIgnoresClientForwardedFor: without trusted proxies the limiter
// keys on the socket peer, so rotating X-Forwarded-For buys no guesses.
func TestLimiterIgnoresClientForwardedFor(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		s := newStack(t, st, func(p *policy.Policy) { p.Admin.RatePerSecond, p.Admin.Burst = 0.01, 5 })
		limited := 0
		for i := range 20 {
			switch code := s.adminGuess("198.51.100." + itoa(i+1)); code {
			case http.StatusUnauthorized:
			case http.StatusTooManyRequests:
				limited++
			default:
				t.Fatalf("guess %d: status %d", i, code)
			}
		}
		if limited != 15 {
			t.Errorf("20 guesses with rotated X-Forwarded-For, burst 5: %d limited, want 15", limited)
		}
	})
}

// TestLimiterBehindTrustedProxy: with the proxy in front named in
// server.trusted_proxies, each forwarded client has its own budget, taken
// from the right of X-Forwarded-For, so an attacker who writes a victim's
// address into the header spends only its own.
func TestLimiterBehindTrustedProxy(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		s := newStack(t, st, func(p *policy.Policy) {
			p.Admin.RatePerSecond, p.Admin.Burst = 0.01, 3
			p.Server.TrustedProxies = []string{"127.0.0.1", "::1"}
		})
		const victim, attacker = "203.0.113.5", "198.51.100.66"
		limited := 0
		for range 10 {
			// The proxy appends the attacker's real address.
			if s.adminGuess(victim+", "+attacker) == http.StatusTooManyRequests {
				limited++
			}
		}
		if limited != 7 {
			t.Errorf("attacker: %d of 10 limited, want 7", limited)
		}
		if code := s.adminGuess(victim); code != http.StatusUnauthorized {
			t.Errorf("victim after the attacker spoofed its address: %d, want 401 (not locked out)", code)
		}
	})
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestAdminSlowBodyIsCut: the proxy's minimum-rate body rule covers the
// admin routes mounted on it.
func TestAdminSlowBodyIsCut(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		s := newStack(t, st, func(p *policy.Policy) {
			p.Server.BodyStallTimeout = policy.Duration(300 * time.Millisecond)
		})
		conn, err := net.Dial("tcp", strings.TrimPrefix(s.front.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /admin/v1/users/alice/memories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"text\":", token)
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		br := bufio.NewReader(conn)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusRequestTimeout || !res.Close || !strings.Contains(string(b), "request_timeout") {
			t.Fatalf("stalled admin body: %d close=%v %s", res.StatusCode, res.Close, b)
		}
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("connection open after the 408: %v", err)
		}
	})
}
