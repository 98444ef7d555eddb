package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/memproxy/memproxy/internal/fakeupstream"
)

// benchBodies are the overhead benchmark's requests: a noise message the
// gate skips and an ordinary one.
var benchBodies = map[string]string{
	"noise": `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"ok"}]}`,
	"ordinary": `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},` +
		`{"role":"user","content":"I am planning a trip to Lisbon in May with my sister."},{"role":"assistant","content":"Great! How long will you stay, and what do you enjoy?"},` +
		`{"role":"user","content":"Five days. We like small hotels near the old town, seafood, and walking tours. Can you suggest an itinerary?"}],"temperature":0.7}`,
}

// bench runs "memproxy bench <what>"; other benchmarks add cases here.
func bench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("bench: name a benchmark: overhead")
	}
	switch args[0] {
	case "overhead":
		return benchOverhead(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("bench: unknown benchmark %q (have: overhead)", args[0])
}

// benchOverhead measures the latency the proxy adds: the same request
// straight to an in-process fake upstream and through the proxy (built by
// buildServer, so with the production wiring), alternately; it prints
// p50/p99 of both and of the difference.
func benchOverhead(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench overhead", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 5000, "requests per path and message")
	pfile := fs.String("policy", "", "policy file (default: built-in defaults)")
	db := fs.String("db", "", "database for the production sink (default: a temporary file)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	pol, err := loadPolicy(*pfile)
	if err != nil {
		return err
	}
	fake := fakeupstream.New()
	fake.Record = false
	upLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	up := &http.Server{Handler: fake.Handler()}
	go up.Serve(upLn)
	defer up.Close()
	upURL := "http://" + upLn.Addr().String()

	dir, dbPath := "", *db
	if dbPath == "" {
		if dir, err = mkTemp(); err != nil {
			return err
		}
		dbPath = dir + "/bench.db"
	}
	cfg := &serveConfig{Upstream: upURL + "/v1", DB: dbPath}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := buildServer(ctx, cfg, pol, log)
	if err != nil {
		return err
	}
	defer a.Close()
	pxLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	px := &http.Server{Handler: a.Proxy.Handler()}
	go px.Serve(pxLn)
	defer px.Close()
	pxURL := "http://" + pxLn.Addr().String()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	fmt.Fprintf(stdout, "%-9s %8s %8s %8s %8s %10s %10s\n", "message", "direct50", "proxy50", "direct99", "proxy99", "overhead50", "overhead99")
	for _, name := range []string{"noise", "ordinary"} {
		body := []byte(benchBodies[name])
		var direct, proxied []time.Duration
		for i := range *n + 50 {
			d, err := timedPost(ctx, client, upURL, body)
			if err != nil {
				return err
			}
			p, err := timedPost(ctx, client, pxURL, body)
			if err != nil {
				return err
			}
			if i >= 50 { // the first requests warm connections
				direct, proxied = append(direct, d), append(proxied, p)
			}
		}
		slices.Sort(direct)
		slices.Sort(proxied)
		q := func(s []time.Duration, p int) float64 { return float64(s[(len(s)-1)*p/100]) / 1e6 }
		fmt.Fprintf(stdout, "%-9s %8.3f %8.3f %8.3f %8.3f %10.3f %10.3f  (ms)\n", name,
			q(direct, 50), q(proxied, 50), q(direct, 99), q(proxied, 99),
			q(proxied, 50)-q(direct, 50), q(proxied, 99)-q(direct, 99))
	}
	if dir != "" {
		return rmTemp(dir)
	}
	return nil
}

func timedPost(ctx context.Context, c *http.Client, base string, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-bench")
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("bench: %s answered %d", base, resp.StatusCode)
	}
	return time.Since(start), nil
}

func mkTemp() (string, error) { return os.MkdirTemp("", "memproxy-bench-") }
func rmTemp(dir string) error { return os.RemoveAll(dir) }
