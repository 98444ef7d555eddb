package background

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// BenchmarkIngest measures end-to-end ingest throughput with the local
// embedder, on each store (sub-benchmarks sqlite and postgres): enqueue
// (group commit) through the workers to stored events. Reported as
// turns/s.
// benchScopes users share the turns (an import is one user; live traffic
// many).
const benchScopes = 20

func BenchmarkIngest(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) { benchIngest(b, backend) })
	}
}

func benchIngest(b *testing.B, backend string) {
	// The production poll interval: this process's inserts wake its
	// workers, so polling is only a fallback, and a test's fast poll
	// would bill its idle fetches to ingest.
	e := newEnv(b, backend, envOpts{poll: DefaultPollInterval})
	ctx := context.Background()
	turns := make([]*memory.Turn, b.N)
	for i := range turns {
		turns[i] = &memory.Turn{
			RequestID: fmt.Sprintf("b-%d", i), Scope: scope(fmt.Sprintf("u%d", i%benchScopes)),
			Time: e.clock.Now().Add(time.Duration(i) * time.Second),
			User: oneOff(i), Assistant: oneOffReply(i),
		}
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	if err := e.q.ImportTurns(ctx, turns); err != nil {
		b.Fatal(err)
	}
	e.wait()
	el := time.Since(start)
	b.ReportMetric(float64(b.N)/el.Seconds(), "turns/s")
	// CPU per turn (whole process: workers, River, SQLite; PostgreSQL's
	// server is not in it) tells what 2 idle cores could do when the
	// machine is shared and wall time lies.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/turn")
}

// BenchmarkIngestLive is BenchmarkIngest through the proxy's path: each
// turn enqueued on its own by one of 32 concurrent requests (Enqueue, group
// committed to the spool), as live traffic does. It also reports what a
// capture costs while the background ingests (capture-p50-ms, -p99-ms).
func BenchmarkIngestLive(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) { benchIngestLive(b, backend) })
	}
}

func benchIngestLive(b *testing.B, backend string) {
	e := newEnv(b, backend, envOpts{poll: DefaultPollInterval})
	ctx := context.Background()
	turns := make(chan *memory.Turn, b.N)
	for i := range b.N {
		turns <- &memory.Turn{
			RequestID: fmt.Sprintf("b-%d", i), Scope: scope(fmt.Sprintf("u%d", i%benchScopes)),
			Time: e.clock.Now().Add(time.Duration(i) * time.Second),
			User: oneOff(i), Assistant: oneOffReply(i),
		}
	}
	close(turns)
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	// What a request pays for its capture while the background ingests
	// the turns before it (Enqueue's latency).
	lat := make([][]time.Duration, 32)
	for w := range 32 {
		wg.Go(func() {
			for t := range turns {
				t0 := time.Now()
				if err := e.q.Enqueue(ctx, t); err != nil {
					errs <- err
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	e.wait()
	el := time.Since(start)
	b.ReportMetric(float64(b.N)/el.Seconds(), "turns/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/turn")
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "capture-p50-ms")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "capture-p99-ms")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
