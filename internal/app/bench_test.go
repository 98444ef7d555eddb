package app_test

// BenchmarkRecallPath measures the synchronous recall path of the
// production app (app.New: gate, cached local embedder, vector and lexical
// candidate search, fusion and scoring, rendering and placement) through
// the real recallpath.Hook.Rewrite, on both stores, at 10k and 100k
// memories per scope, for short questions and long chat messages:
//
//	go test ./internal/app -run '^$' -bench BenchmarkRecallPath -benchtime 400x
//
// Each sub-benchmark reports p50_ms, p99_ms and cpu_ms/op (process CPU per
// request, all goroutines: on a shared machine the figure that does not
// move with the load). Targets (DESIGN.md): p99 ≤ 3 ms at 10k, ≤ 15 ms at
// 100k.
//
// Fixtures are built once and kept, so reruns start in seconds: SQLite in
// $TMPDIR/memproxy-recall-bench-v3.db, PostgreSQL in the schema
// bench_recall_v2 of TEST_DATABASE_URL. Delete the file or
// `DROP SCHEMA bench_recall_v2 CASCADE` to rebuild.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storebench"
	"github.com/memproxy/memproxy/proxy"
)

const recallFixtureDone = "bench.recall.v1"

func BenchmarkRecallPath(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			a := recallApp(b, backend)
			for _, sz := range storebench.Sizes {
				for _, kind := range []string{"short", "long"} {
					b.Run(sz.Name+"/"+kind, func(b *testing.B) {
						reqs := recallRequests(sz.Scope, kind, 256)
						ctx := context.Background()
						// Load the scope's indexes first, without the
						// recall's deadline, which a slow run (callgrind)
						// passes while they load.
						if _, err := a.Store.LexicalSearch(ctx, sz.Scope, "warm up", memory.SearchOptions{Limit: 1}); err != nil {
							b.Fatal(err)
						}
						// Warm the embedding cache and the scope's lazily
						// loaded state outside the timing, then flush the
						// warm-up's touches and collect its garbage (the
						// first search of a scope loads its indexes), so the
						// timed loop pays for its own writes and garbage only.
						for _, r := range reqs {
							if _, err := a.Hook.Rewrite(ctx, r); err != nil {
								b.Fatal(err)
							}
						}
						if err := a.Hook.Flush(ctx); err != nil {
							b.Fatal(err)
						}
						runtime.GC()
						lat := make(storebench.Latencies, 0, b.N)
						injected, i := 0, 0
						cpu0 := storebench.CPUTime()
						for b.Loop() {
							t := time.Now()
							rw, err := a.Hook.Rewrite(ctx, reqs[i%len(reqs)])
							lat = append(lat, time.Since(t))
							if err != nil {
								b.Fatal(err)
							}
							if len(rw.Injected) > 0 {
								injected++
							}
							i++
						}
						b.ReportMetric(float64(storebench.CPUTime()-cpu0)/float64(time.Millisecond)/float64(i), "cpu_ms/op")
						b.ReportMetric(float64(injected)/float64(i), "injected/op")
						lat.Report(b)
					})
				}
			}
		})
	}
}

// recallApp opens the app on the kept fixture of backend, filling it on
// first use. The queue is insert-only: no workers compete for the CPU.
func recallApp(b *testing.B, backend string) *app.App {
	b.Helper()
	ctx := context.Background()
	o := app.Options{
		Upstream:  "http://127.0.0.1:9/v1", // never called: only the hook runs
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Getenv:    func(string) string { return "" },
		NoWorkers: true,
	}
	switch backend {
	case "sqlite":
		o.DB = filepath.Join(os.TempDir(), "memproxy-recall-bench-v3.db")
	case "postgres":
		o.DatabaseURL = testpg.NewNamed(b, "bench_recall_v2")
	}
	a, err := app.New(ctx, o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = a.Close() })
	if v, ok, err := a.Store.Meta(ctx, recallFixtureDone); err != nil {
		b.Fatal(err)
	} else if ok && v == "complete" {
		return a
	}
	start := time.Now()
	for i, sz := range storebench.Sizes {
		if err := storebench.Fill(ctx, a.Store, sz.Scope, storebench.NewCorpus(uint64(i+1)), sz.N, 2000); err != nil {
			b.Fatal(err)
		}
	}
	if backend == "postgres" {
		if _, err := a.Store.DB().ExecContext(ctx, `VACUUM ANALYZE memories`); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := a.Store.SetMetaIfAbsent(ctx, recallFixtureDone, "complete"); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %s recall fixture in %v", backend, time.Since(start).Round(time.Second))
	return a
}

// recallRequests are chat requests whose last user message the gate sends
// to recall: short questions ("do you remember kalomi and sane?") or long
// chat messages (60 words of the corpus's Zipf vocabulary, most of which
// match most memories: the worst case for lexical search), after a system
// prompt and one earlier exchange.
func recallRequests(sc memory.Scope, kind string, n int) []*proxy.ChatRequest {
	c := storebench.NewCorpus(77)
	r := rand.New(rand.NewPCG(77, 1))
	var out []*proxy.ChatRequest
	for i := range n {
		var text string
		switch kind {
		case "short":
			text = "do you remember what I said about " + c.Query() + "?"
		default:
			text = "so here is the thing, " + c.Text(60) + ". what do you think I should do next?"
		}
		msgs := []proxy.Message{
			{Role: "system", Text: "You are a helpful assistant."},
			{Role: "user", Text: "hi, " + c.Text(6+r.IntN(6))},
			{Role: "assistant", Text: "Sure. " + c.Text(10)},
			{Role: "user", Text: text},
		}
		for j := range msgs {
			msgs[j].Raw = rawMessage(msgs[j])
		}
		out = append(out, &proxy.ChatRequest{
			RequestID: fmt.Sprintf("bench-%d", i), Scope: sc, Session: "bench",
			Arm: "on", Time: storebench.Epoch, Model: "gpt-bench", Messages: msgs,
		})
	}
	return out
}

func rawMessage(m proxy.Message) []byte {
	var b strings.Builder
	b.WriteString(`{"role":"` + m.Role + `","content":"`)
	b.WriteString(strings.NewReplacer(`"`, `\"`, `\`, `\\`).Replace(m.Text))
	b.WriteString(`"}`)
	return []byte(b.String())
}
