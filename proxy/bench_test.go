package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

// benchDeps builds the sink and rewriter the overhead benchmark runs with.
// It is a variable so the production wiring (queue on the embedded store,
// gate + recall) can be plugged in from another file of this package
// without touching the benchmark; cleanup runs after the benchmark.
var benchDeps = func(b *testing.B) (sink proxy.TurnSink, rw proxy.Rewriter, cleanup func()) {
	return &encodeSink{}, nil, func() {}
}

// encodeSink serialises each turn as a queue job would; it stands in until
// benchDeps is given the production sink.
type encodeSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *encodeSink) Enqueue(_ context.Context, t *memory.Turn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Reset()
	return json.NewEncoder(&s.buf).Encode(t)
}

// BenchmarkOverhead measures the latency memproxy adds: each iteration
// sends the same chat request once straight to the fake upstream and once
// through the proxy, and the p50/p99 differences are reported
// (overhead-p50-ms, overhead-p99-ms), for a noise message and an ordinary
// one.
//
//	go test ./proxy -run '^$' -bench BenchmarkOverhead -benchtime 2000x
func BenchmarkOverhead(b *testing.B) {
	for _, tc := range []struct{ name, body string }{
		{"noise", `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"ok"}]}`},
		{"ordinary", `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},` +
			`{"role":"user","content":"I am planning a trip to Lisbon in May with my sister."},{"role":"assistant","content":"Great! How long will you stay, and what do you enjoy?"},` +
			`{"role":"user","content":"Five days. We like small hotels near the old town, seafood, and walking tours. Can you suggest an itinerary?"}],"temperature":0.7}`},
	} {
		b.Run(tc.name, func(b *testing.B) { benchOverhead(b, []byte(tc.body)) })
	}
}

func benchOverhead(b *testing.B, body []byte) {
	fake := fakeupstream.New()
	fake.Record = false
	up := httptest.NewServer(fake.Handler())
	defer up.Close()
	sink, rw, cleanup := benchDeps(b)
	defer cleanup()
	srv, err := proxy.New(proxy.Config{
		Upstream: up.URL + "/v1", Policy: policy.Default(), Salt: "bench", Sink: sink, Rewriter: rw,
		Registry: prometheus.NewRegistry(), Logger: discardLogger(),
	})
	if err != nil {
		b.Fatal(err)
	}
	front := httptest.NewServer(srv.Handler())
	defer front.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	call := func(base string) time.Duration {
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
	for range 50 { // warm connections on both paths
		call(up.URL)
		call(front.URL)
	}
	direct := make([]time.Duration, 0, b.N)
	proxied := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		direct = append(direct, call(up.URL))
		proxied = append(proxied, call(front.URL))
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
