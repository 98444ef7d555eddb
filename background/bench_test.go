package background

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/sqlite"
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
	finishLive(b, e, &wg, errs, start, cpu0)
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "capture-p50-ms")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "capture-p99-ms")
	}
}

// BenchmarkIngestNoise is BenchmarkIngestLive with acknowledgements
// ("ok", "thanks") the background drops: what a gate-skipped request's turn
// costs the background (spool claim and completion, the turn log), which
// the bench overhead command's gate-skip path pays beside its requests.
func BenchmarkIngestNoise(b *testing.B) {
	e := newEnv(b, "sqlite", envOpts{poll: DefaultPollInterval})
	skips := []string{"ok", "thanks", "ok thanks", "thank you", "great", "cool"}
	turns := make(chan *memory.Turn, b.N)
	for i := range b.N {
		turns <- &memory.Turn{
			RequestID: fmt.Sprintf("n-%d", i), Scope: scope(fmt.Sprintf("u%d", i%benchScopes)),
			Time: e.clock.Now().Add(time.Duration(i) * time.Second),
			User: skips[i%len(skips)], Assistant: "You're welcome!",
		}
	}
	close(turns)
	enqueueAll(b, e, turns)
}

// enqueueAll starts the clock and has 32 concurrent captures enqueue
// turns, each on its own, as live traffic does, then waits for the
// background (finishLive).
func enqueueAll(b *testing.B, e *env, turns <-chan *memory.Turn) {
	b.Helper()
	ctx := context.Background()
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			for t := range turns {
				if err := e.q.Enqueue(ctx, t); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	finishLive(b, e, &wg, errs, start, cpu0)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIngestLarge is BenchmarkIngestLive into large scopes, on
// SQLite: benchLargeScopes users, each holding benchLargeMemories
// memories (events and facts made from the LoCoMo dev turns) before the
// run, take distinct LoCoMo turns, each enqueued on its own by one of 32
// concurrent captures. It reports CPU per turn, where the neighbour
// searches, reconcile and cluster checks into a big scope show (the
// small scopes of BenchmarkIngest hide them). The corpus is
// MEMPROXY_BENCH_CORPUS, else ../../shared/bench/locomo-dev.json; without
// one the benchmark is skipped.
func BenchmarkIngestLarge(b *testing.B) {
	corpus := largeCorpus(b)
	tmpl := largeFixture(b, corpus)
	target := filepath.Join(b.TempDir(), "memproxy.db")
	if err := copyFile(tmpl, target); err != nil {
		b.Fatal(err)
	}
	e := openEnv(b, "sqlite", target, envOpts{poll: DefaultPollInterval})
	ctx := context.Background()
	turns := make(chan *memory.Turn, b.N)
	start0 := e.clock.Now()
	for i := range b.N {
		k := (i*7919 + 13) % (len(corpus) - 1) // distinct, spread over the conversations
		user := corpus[k]
		if i >= len(corpus)-1 {
			user += " " + corpus[(k*31+5)%len(corpus)]
		}
		turns <- &memory.Turn{
			RequestID: fmt.Sprintf("large-%d", i), Scope: scope(fmt.Sprintf("L%d", i%benchLargeScopes)),
			Time: start0.Add(time.Duration(i) * time.Second), User: user, Assistant: corpus[k+1],
		}
	}
	close(turns)
	// Each scope's index loads on its first search: before the clock.
	for u := range benchLargeScopes {
		v, err := e.emb.Embed(ctx, []string{"warm up"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.st.VectorSearch(ctx, scope(fmt.Sprintf("L%d", u)), v[0], memory.SearchOptions{Limit: 1}); err != nil {
			b.Fatal(err)
		}
	}
	enqueueAll(b, e, turns)
}

const (
	benchLargeScopes   = 4
	benchLargeMemories = 10000
)

// largeCorpus is the LoCoMo dev turns' texts, in order.
func largeCorpus(b *testing.B) []string {
	b.Helper()
	path := cmp.Or(os.Getenv("MEMPROXY_BENCH_CORPUS"), filepath.Join("..", "..", "shared", "bench", "locomo-dev.json"))
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no LoCoMo corpus (MEMPROXY_BENCH_CORPUS): %v", err)
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		b.Fatalf("corpus %s: %v", path, err)
	}
	var out []string
	for _, s := range samples {
		for n := 1; ; n++ {
			msg, ok := s.Conversation[fmt.Sprintf("session_%d", n)]
			if !ok {
				break
			}
			var turns []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(msg, &turns); err != nil {
				b.Fatalf("corpus %s: session_%d: %v", path, n, err)
			}
			for _, t := range turns {
				if strings.TrimSpace(t.Text) != "" {
					out = append(out, t.Text)
				}
			}
		}
	}
	if len(out) < 100 {
		b.Skipf("corpus %s: %d turns", path, len(out))
	}
	return out
}

var largeOnce struct {
	sync.Once
	path string
	err  error
}

// largeFixture builds, once per process, a SQLite store whose scopes hold
// benchLargeMemories memories each: a fifth facts, the rest events, their
// texts the corpus's turns joined in distinct pairs.
func largeFixture(b *testing.B, corpus []string) string {
	b.Helper()
	largeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "memproxy-ingest-large")
		if err != nil {
			largeOnce.err = err
			return
		}
		largeOnce.path = filepath.Join(dir, "fixture.db")
		largeOnce.err = buildLargeFixture(largeOnce.path, corpus)
	})
	if largeOnce.err != nil {
		b.Fatal(largeOnce.err)
	}
	return largeOnce.path
}

func buildLargeFixture(path string, corpus []string) error {
	ctx := context.Background()
	emb := newEmbedder()
	st, err := sqlite.Open(ctx, path, memory.OpenOptions{Model: emb.Model(), Dim: emb.Dim()})
	if err != nil {
		return err
	}
	at := time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)
	for u := range benchLargeScopes {
		s := scope(fmt.Sprintf("L%d", u))
		const batch = 500
		for i0 := 0; i0 < benchLargeMemories; i0 += batch {
			ms := make([]*memory.Memory, 0, batch)
			texts := make([]string, 0, batch)
			for i := i0; i < min(i0+batch, benchLargeMemories); i++ {
				j := i*131 + u*17
				txt := corpus[j%len(corpus)] + " " + corpus[(j/len(corpus)+j*7+3)%len(corpus)]
				tier, src := memory.TierEvent, memory.SourceEvent
				if i%5 == 0 {
					tier, src = memory.TierSemantic, memory.SourceExtracted
				}
				t := at.Add(time.Duration(i) * time.Minute)
				ms = append(ms, &memory.Memory{
					ID: fmt.Sprintf("fx-%d-%d", u, i), Scope: s, Tier: tier, Text: txt, Source: src,
					Value: 0.5, Confidence: 1, CreatedAt: t, LastUsedAt: t, ValidFrom: t,
				})
				texts = append(texts, txt)
			}
			vecs, err := emb.Embed(ctx, texts)
			if err != nil {
				return err
			}
			for i, m := range ms {
				m.Embedding = vecs[i]
			}
			if err := st.Insert(ctx, s, ms...); err != nil {
				return err
			}
		}
	}
	return st.Close()
}

func copyFile(from, to string) error {
	raw, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, raw, 0o600)
}

// finishLive waits for a live benchmark's capturing goroutines and for the
// queue to empty, then reports turns per second and CPU per turn.
func finishLive(b *testing.B, e *env, wg *sync.WaitGroup, errs chan error, start time.Time, cpu0 time.Duration) {
	b.Helper()
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	e.wait()
	el := time.Since(start)
	b.ReportMetric(float64(b.N)/el.Seconds(), "turns/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/turn")
	b.ReportMetric(float64(e.q.Consolidations())/float64(b.N), "consolidations/turn")
}

// BenchmarkCapture is what a capture costs on its own (no workers run):
// captureClients concurrent requests each enqueue one turn after another,
// as the proxy's clients do, and the latency of each Enqueue (its share
// of a group commit to the spool) is reported (capture-p50-ms, -p99-ms).
func BenchmarkCapture(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			e := newEnv(b, backend, envOpts{insertOnly: true})
			ctx := context.Background()
			next := make(chan int, b.N)
			for i := range b.N {
				next <- i
			}
			close(next)
			lat := make([][]time.Duration, captureClients)
			errs := make(chan error, captureClients)
			var wg sync.WaitGroup
			b.ResetTimer()
			for c := range captureClients {
				wg.Go(func() {
					for i := range next {
						t := &memory.Turn{
							RequestID: fmt.Sprintf("c-%d", i), Scope: scope(fmt.Sprintf("u%d", i%benchScopes)),
							Time: e.clock.Now(), User: oneOff(i), Assistant: oneOffReply(i),
						}
						t0 := time.Now()
						if err := e.q.Enqueue(ctx, t); err != nil {
							errs <- err
							return
						}
						lat[c] = append(lat[c], time.Since(t0))
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			close(errs)
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
			all := slices.Concat(lat...)
			slices.Sort(all)
			b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "capture-p50-ms")
			b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "capture-p99-ms")
		})
	}
}

// captureClients is the bench overhead's closed loop of clients.
const captureClients = 4
