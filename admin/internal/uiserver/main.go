// Command uiserver serves the admin API and the memory browser page over a
// seeded SQLite store, for the headless-browser test (test/browser). It
// prints "listening http://ADDR" once it accepts connections and stops on
// SIGINT/SIGTERM.
//
//	MEMPROXY_ADMIN_TOKEN=t go run ./admin/internal/uiserver -db /tmp/ui.db
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/store/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "uiserver:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	db := flag.String("db", "", "SQLite file (created and seeded)")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	flag.Parse()
	token := os.Getenv("MEMPROXY_ADMIN_TOKEN")
	if *db == "" || token == "" {
		return errors.New("need -db and MEMPROXY_ADMIN_TOKEN")
	}
	st, err := sqlite.Open(ctx, *db, memory.OpenOptions{Model: "uiserver-letters", Dim: dim})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := seed(ctx, st); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	pol := policy.Default()
	rec, err := memory.NewRecaller(memory.RecallerConfig{Search: st, Profiles: st, Embedder: letters{}, Recall: pol.Recall, Decay: pol.Decay})
	if err != nil {
		return err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	admin.New(admin.Config{Token: token, Store: st, Searcher: rec, Embedder: letters{}, Policy: pol,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}).Mount(e)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Printf("listening http://%s\n", ln.Addr())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

const dim = 32

// letters is a tiny deterministic embedder (letter counts): the page test
// needs vectors, not good ones, and must run offline.
type letters struct{}

func (letters) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, dim)
		for _, r := range strings.ToLower(s) {
			v[int(r)%dim]++
		}
		out[i] = v
	}
	return out, nil
}

// seed writes two users' memories (every tier, a supersede chain, an
// archived one) and a few recall rows for the A/B charts, once.
func seed(ctx context.Context, st *sqlite.Store) error {
	alice := memory.Scope{User: "alice", Namespace: memory.DefaultNamespace}
	if p, err := st.List(ctx, alice, memory.ListFilter{Limit: 1}); err != nil || len(p.Data) > 0 {
		return err
	}
	now := time.Now().UTC()
	day := 24 * time.Hour
	mk := func(s memory.Scope, tier memory.Tier, text string, age time.Duration, hits int, f ...func(*memory.Memory)) *memory.Memory {
		vs, _ := letters{}.Embed(ctx, []string{text})
		m := &memory.Memory{ID: memory.NewID(), Scope: s, Tier: tier, Text: text, Embedding: vs[0], Value: 0.6, Confidence: 0.9,
			Source: memory.SourceExtracted, CreatedAt: now.Add(-age), LastUsedAt: now.Add(-age), ValidFrom: now.Add(-age), Hits: hits}
		for _, fn := range f {
			fn(m)
		}
		return m
	}
	oldCity := mk(alice, memory.TierSemantic, "Alice lives in Berlin", 200*day, 2, func(m *memory.Memory) { m.Key = "user.city" })
	newCity := mk(alice, memory.TierSemantic, "Alice moved to Lisbon in October", 20*day, 1, func(m *memory.Memory) { m.Key = "user.city" })
	ms := []*memory.Memory{
		mk(alice, memory.TierProfile, "Alice prefers concise answers with code first", 90*day, 12, func(m *memory.Memory) { m.NoDecay = true; m.Source = memory.SourceExplicit; m.Value = 0.95 }),
		mk(alice, memory.TierSemantic, "Alice's favourite tea is genmaicha", 40*day, 3),
		oldCity, newCity,
		mk(alice, memory.TierEpisodic, "On Nov 3 Alice and the team shipped the billing release after two delays", 25*day, 0),
		mk(alice, memory.TierEvent, "User asked how to parse RFC 3339 times in Go; assistant showed time.Parse", 10*day, 0, func(m *memory.Memory) { m.Source = memory.SourceEvent; m.Value = 0.4 }),
		mk(alice, memory.TierEvent, "User said thanks for the regex help", 70*day, 0, func(m *memory.Memory) { m.Source = memory.SourceEvent; m.Value = 0.1 }),
	}
	if err := st.Insert(ctx, alice, ms...); err != nil {
		return err
	}
	if err := st.Supersede(ctx, alice, oldCity.ID, newCity.ID, now.Add(-20*day)); err != nil {
		return err
	}
	bob := memory.Scope{User: "bob", Namespace: memory.DefaultNamespace}
	if err := st.Insert(ctx, bob, mk(bob, memory.TierSemantic, "Bob plays chess on Sundays", 5*day, 1)); err != nil {
		return err
	}
	fb := func(v float64) *float64 { return &v }
	for i := range 24 {
		arm, status, tokens, over := "on", "injected", 60+i*3, 0.4+float64(i%5)*0.2
		if i%3 == 0 {
			status, tokens = "skipped", 0
		}
		if i%4 == 0 {
			arm, status, tokens, over = "off", "off", 0, 0.05
		}
		r := &memory.RecallRecord{RequestID: fmt.Sprintf("seed-%02d", i), Scope: alice, Time: now.Add(-time.Duration(i) * time.Hour),
			Arm: arm, Status: status, GateReason: "seeded", InjectedTokens: tokens, OverheadMs: over}
		if i%2 == 0 {
			r.Feedback = fb(float64(1 - 2*(i/2%3%2)))
		}
		if err := st.AppendRecall(ctx, r); err != nil {
			return err
		}
	}
	return nil
}
