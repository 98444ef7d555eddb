package fault

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/store/postgres"
)

// TestThousandStreamsOnPostgres: 1,000 concurrent streamed chats of 50
// chunks each on PostgreSQL with small pools: every reply complete, no
// recall error (pool exhaustion fails open within the deadline as
// "timeout", never as an error), every turn stored, no capture failure,
// and this process's connections, counted by application_name, never
// above the pools' bound.
func TestThousandStreamsOnPostgres(t *testing.T) {
	const n, users = 1000, 50
	dsn := testpg.New(t)
	p := policy.Default()
	p.Postgres.MaxConns, p.Postgres.BackgroundMaxConns, p.Postgres.RiverMaxConns = 8, 4, 4
	bound := postgres.Pool{MaxConns: 8, BackgroundMaxConns: 4, RiverMaxConns: 4}.Bound()
	// capture keeps the default server.sink_timeout (2 s)
	app0 := "memproxy-load-" + memory.NewID()[:8]

	fake := fakeupstream.New()
	fake.Record = false
	chunks := make([]string, 50)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("w%d ", i)
	}
	for range n {
		fake.Push(fakeupstream.Reply{Chunks: chunks})
	}
	up := httptest.NewServer(fake.Handler())
	defer up.Close()
	s := newStack(t, app.Options{DatabaseURL: dsn, Policy: p, ApplicationName: app0, Upstream: up.URL + "/v1"})

	// Count this process's server connections while the load runs.
	mon, err := sql.Open("postgres", testpg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer mon.Close()
	var peak atomic.Int64
	stop := make(chan struct{})
	monDone := make(chan struct{})
	go func() {
		defer close(monDone)
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for {
			var c int64
			if err := mon.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE $1`, app0+"%").Scan(&c); err == nil && c > peak.Load() {
				peak.Store(c)
			}
			select {
			case <-stop:
				return
			case <-tk.C:
			}
		}
	}()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: 0}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	recalls := map[string]int{}
	incomplete := 0
	for i := range n {
		wg.Go(func() {
			body := fmt.Sprintf(`{"model":"m","stream":true,"messages":[{"role":"user","content":"note %d: my favourite tea is sencha number %d"}]}`, i, i)
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.front.URL+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("X-Memproxy-User", fmt.Sprintf("load%d", i%users))
			res, err := client.Do(req)
			ok := false
			rec := ""
			if err == nil {
				b := new(strings.Builder)
				buf := make([]byte, 64<<10)
				for {
					k, rerr := res.Body.Read(buf)
					b.Write(buf[:k])
					if rerr != nil {
						break
					}
				}
				res.Body.Close()
				rec = res.Header.Get("X-Memproxy-Recall")
				ok = res.StatusCode == 200 && strings.Contains(b.String(), `"w49 "`) && strings.HasSuffix(b.String(), "data: [DONE]\n\n")
			}
			mu.Lock()
			recalls[rec]++
			if !ok {
				incomplete++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	// Captures that passed server.sink_timeout get their outcome first.
	if err := s.app.Proxy.WaitCaptures(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.app.Queue.WaitIdle(ctx); err != nil {
		t.Fatalf("queue: %v", err)
	}
	close(stop)
	<-monDone
	stored := 0
	for u := range users {
		page, err := s.app.Store.Turns(t.Context(), memory.Scope{User: fmt.Sprintf("load%d", u), Namespace: memory.DefaultNamespace}, memory.TurnFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		stored += len(page.Data)
	}
	failures := metricValue(t, s, "memproxy_turn_capture_failures_total")
	t.Logf("%d streams: recall %v, incomplete %d, turns stored %d, capture failures %s (late %s), peak connections %d (bound %d)",
		n, recalls, incomplete, stored, failures, metricValue(t, s, "memproxy_turn_capture_late_total"), peak.Load(), bound)
	if incomplete != 0 || recalls["error"] != 0 || stored != n || failures != "0" {
		t.Errorf("under load: %d incomplete, %d recall errors, %d of %d turns stored, %s capture failures; memproxy said: %q", incomplete, recalls["error"], stored, n, failures, s.logs.matching("failed"))
	}
	if peak.Load() > int64(bound) {
		t.Errorf("peak %d connections named %s, above the bound %d", peak.Load(), app0, bound)
	}
}

func metricValue(t *testing.T, s *stack, name string) string {
	res, err := http.Get(s.front.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b := new(strings.Builder)
	buf := make([]byte, 64<<10)
	for {
		k, err := res.Body.Read(buf)
		b.Write(buf[:k])
		if err != nil {
			break
		}
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			return v
		}
	}
	return ""
}
