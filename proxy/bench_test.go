package proxy_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/policy"
)

// BenchmarkOverhead measures the latency memproxy adds: each iteration
// sends the same chat request once straight to the fake upstream and once
// through memproxy, and the p50/p99 differences are reported
// (overhead-p50-ms, overhead-p99-ms), for a noise message (the gate skips)
// and an ordinary one (recall runs). memproxy runs with its production
// wiring (internal/app): the embedded SQLite store, the durable queue as
// the turn sink, the recall path, the admin API.
//
//	go test ./proxy -run '^$' -bench BenchmarkOverhead -benchtime 2000x
func BenchmarkOverhead(b *testing.B) {
	noise := `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"ok"}]}`
	b.Run("noise", func(b *testing.B) { benchOverhead(b, func(int) []byte { return []byte(noise) }) })
	b.Run("ordinary", func(b *testing.B) { benchOverhead(b, ordinaryBody) })
}

var (
	benchPlaces = []string{"Lisbon", "Kyoto", "Oaxaca", "Tallinn", "Hobart", "Porto", "Seoul", "Quebec", "Split", "Valparaiso", "Bergen", "Hanoi", "Cusco"}
	benchThings = []string{"small hotels near the old town", "seafood", "walking tours", "museums", "street food", "hiking", "live music", "bookshops", "markets", "cycling", "architecture"}
	benchPeople = []string{"my sister", "my partner", "two colleagues", "my parents", "an old friend", "my kids"}
)

// ordinaryBody is the i-th ordinary chat request: varied, as real
// traffic is, so the store grows with distinct events.
func ordinaryBody(i int) []byte {
	place, who := benchPlaces[i%len(benchPlaces)], benchPeople[i/len(benchPlaces)%len(benchPeople)]
	a, c := benchThings[i%len(benchThings)], benchThings[(i/3+5)%len(benchThings)]
	return fmt.Appendf(nil, `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},`+
		`{"role":"user","content":"I am planning a trip to %s in May with %s."},{"role":"assistant","content":"Great! How long will you stay, and what do you enjoy?"},`+
		`{"role":"user","content":"%d days. We like %s and %s. Can you suggest an itinerary?"}],"temperature":0.7}`, place, who, 3+i%9, a, c)
}

func benchOverhead(b *testing.B, body func(i int) []byte) {
	fake := fakeupstream.New()
	fake.Record = false
	up := httptest.NewServer(fake.Handler())
	defer up.Close()
	a, err := app.New(b.Context(), app.Options{
		Upstream: up.URL + "/v1", Policy: policy.Default(), DB: filepath.Join(b.TempDir(), "bench.db"),
		Logger: discardLogger(), Getenv: func(string) string { return "" },
	})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	front := httptest.NewServer(a.Handler())
	defer front.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	call := func(base string, body []byte) time.Duration {
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer sk-bench")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
		return d
	}
	for i := range 50 { // warm connections on both paths
		call(up.URL, body(i))
		call(front.URL, body(i))
	}
	direct := make([]time.Duration, 0, b.N)
	proxied := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := body(50 + i)
		direct = append(direct, call(up.URL, req))
		proxied = append(proxied, call(front.URL, req))
	}
	b.StopTimer()
	slices.Sort(direct)
	slices.Sort(proxied)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(ms(pct(proxied, 50)-pct(direct, 50)), "overhead-p50-ms")
	b.ReportMetric(ms(pct(proxied, 99)-pct(direct, 99)), "overhead-p99-ms")
	b.ReportMetric(ms(pct(direct, 50)), "direct-p50-ms")
	b.ReportMetric(ms(pct(proxied, 50)), "proxied-p50-ms")
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)*p/100]
}
