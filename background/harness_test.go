package background

import (
	"cmp"
	"context"
	"database/sql"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/store/postgres"
	"github.com/memproxy/memproxy/store/sqlite"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

const testDim = 256

// testStore is what the harness needs of a backend.
type testStore interface {
	memory.Store
	memory.Admin
	DB() *sql.DB
}

// clock is an injectable, settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type env struct {
	t      testing.TB
	q      *Queue
	st     testStore
	river  *sql.DB
	driver Driver
	spool  memory.TurnSpool // SQLite's own file; nil: the store is one
	clock  *clock
	pol    *policy.Policy
	emb    Embedder
	// target is the DSN or file path, for a second queue or a child.
	target string
}

type envOpts struct {
	pol        *policy.Policy
	llm        LLM
	insertOnly bool
	id         string
	// lease and sweep override the spool lease and the sweep interval.
	lease, sweep time.Duration
	// maxAttempts is Config.MaxTurnAttempts.
	maxAttempts int
	// wrap, when set, stands between the queue and the store.
	wrap func(testStore) testStore
	// emb replaces the local embedder.
	emb Embedder
	// poll is the workers' poll interval; 0 means 20ms, so tests whose
	// jobs come from another process or a schedule do not wait long.
	poll time.Duration
	// load is Config.Load: the request path's activity.
	load Load
	// inv is Config.Invalidator.
	inv Invalidator
}

var backends = []string{"sqlite", "postgres"}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newEnv opens a fresh database of the backend and a started queue on it.
func newEnv(t testing.TB, backend string, o envOpts) *env {
	t.Helper()
	target := ""
	switch backend {
	case "sqlite":
		target = filepath.Join(t.TempDir(), "memproxy.db")
	case "postgres":
		target = testpg.New(t)
	}
	return openEnv(t, backend, target, o)
}

// openEnv opens a queue on an existing database.
func openEnv(t testing.TB, backend, target string, o envOpts) *env {
	t.Helper()
	ctx := context.Background()
	emb := newEmbedder()
	if o.emb != nil {
		emb = o.emb
	}
	opts := memory.OpenOptions{Model: emb.Model(), Dim: emb.Dim()}
	e := &env{t: t, clock: newClock(), emb: emb, target: target}
	switch backend {
	case "sqlite":
		st, err := sqlite.Open(ctx, target, opts)
		if err != nil {
			t.Fatal(err)
		}
		rdb, err := sqlite.OpenRiverDB(target)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := sqlite.OpenSpool(ctx, sqlite.SpoolPath(target))
		if err != nil {
			t.Fatal(err)
		}
		e.st, e.river, e.driver, e.spool = st, rdb, DriverSQLite, sp
	case "postgres":
		st, err := postgres.Open(ctx, target, opts)
		if err != nil {
			t.Fatal(err)
		}
		e.st, e.river, e.driver = st, st.DB(), DriverPostgres
	}
	if o.wrap != nil {
		if e.spool == nil {
			e.spool = e.st.(interface{ Spool() memory.TurnSpool }).Spool()
		}
		e.st = o.wrap(e.st)
	}
	e.pol = o.pol
	if e.pol == nil {
		e.pol = policy.Default()
	}
	q, err := New(Config{
		Store: e.st, Admin: e.st, Spool: e.spool, Embedder: emb, Policy: e.pol, Driver: e.driver, DB: e.river,
		Logger: quiet(), Clock: e.clock.Now, LLM: o.llm, InsertOnly: o.insertOnly, ID: o.id,
		PollInterval: cmp.Or(o.poll, 20*time.Millisecond), Lease: o.lease, SweepInterval: o.sweep,
		MaxTurnAttempts: o.maxAttempts, Load: o.load, Invalidator: o.inv,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	e.q = q
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := q.Stop(sctx); err != nil {
			t.Errorf("stop: %v", err)
		}
		if sp, ok := e.spool.(*sqlite.Spool); ok {
			e.river.Close()
			sp.Close()
		}
		e.st.Close()
	})
	return e
}

func (e *env) wait() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := e.q.WaitIdle(ctx); err != nil {
		res, _ := e.q.Client().JobList(context.Background(), river.NewJobListParams().States(rivertype.JobStateAvailable, rivertype.JobStateRunning).First(5))
		for _, j := range res.Jobs {
			e.t.Logf("stuck job %d %s %s attempt %d errors %v", j.ID, j.Kind, j.State, j.Attempt, j.Errors)
		}
		e.t.Fatal(err)
	}
}

var turnSeq struct {
	mu sync.Mutex
	n  int
}

// turn builds a turn at the env clock, advancing it by a minute.
func (e *env) turn(s memory.Scope, user, reply string) *memory.Turn {
	turnSeq.mu.Lock()
	turnSeq.n++
	n := turnSeq.n
	turnSeq.mu.Unlock()
	e.clock.Add(time.Minute)
	return &memory.Turn{
		RequestID: "req-" + itoa(n), Scope: s, Time: e.clock.Now(), User: user, Assistant: reply,
		Refs: []string{"ref-" + itoa(n)},
	}
}

func (e *env) say(s memory.Scope, user string) *memory.Turn {
	e.t.Helper()
	t := e.turn(s, user, "Noted.")
	if err := e.q.Enqueue(context.Background(), t); err != nil {
		e.t.Fatal(err)
	}
	return t
}

func itoa(n int) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{digits[n%10]}, b...)
		n /= 10
	}
	return string(b)
}

// live lists a scope's live memories of the given tiers (all when none).
func (e *env) list(s memory.Scope, state memory.State, tiers ...memory.Tier) []*memory.Memory {
	e.t.Helper()
	var out []*memory.Memory
	f := memory.ListFilter{State: state, Tiers: tiers, Limit: 500, At: e.clock.Now()}
	for {
		p, err := e.st.List(context.Background(), s, f)
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, p.Data...)
		if p.Next == "" {
			return out
		}
		f.Cursor = p.Next
	}
}

// fakeLLM points a langchaingo client at the repo's fake upstream.
func fakeLLM(t testing.TB, fake *fakeupstream.Server) LLM {
	t.Helper()
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)
	c := policy.Default().Consolidation
	c.BaseURL = srv.URL + "/v1"
	c.Model = "fake-model"
	c.Timeout = policy.Duration(10 * time.Second)
	llm, err := NewOpenAILLM(c)
	if err != nil {
		t.Fatal(err)
	}
	return llm
}

func scope(user string) memory.Scope { return memory.Scope{User: user, Namespace: "default"} }
