package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/proxy"
)

// bench runs "memproxy bench <what>"; other benchmarks add cases here.
func bench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("bench: name a benchmark: overhead")
	}
	switch args[0] {
	case "overhead":
		return benchOverhead(ctx, args[1:], os.Getenv, stdout, stderr)
	}
	return fmt.Errorf("bench: unknown benchmark %q (have: overhead)", args[0])
}

// overheadOpts are the flags of "memproxy bench overhead".
type overheadOpts struct {
	Duration    time.Duration
	Rounds      int
	Clients     int
	Users       int
	Memories    int
	Stores      []string
	DatabaseURL string
	PGSchema    string
	APIs        []string
	apisGiven   bool
	Arms        []string
	Corpus      string
	Fixtures    string
	JSON        string
	PolicyFile  string
	Stream      bool
	LagLimit    time.Duration
	CPUProfile  string
	// BlockProfile and MutexProfile: where the measured rounds waited.
	BlockProfile string
	MutexProfile string
	// MemProfile: what the measured rounds allocated (with a .base
	// written as they start, for pprof -base).
	MemProfile string
	// Trace: an execution trace of the measured rounds.
	Trace string
	// IngestTurns is how many turns the ingest measurement enqueues after
	// the run (0: none).
	IngestTurns int
}

func parseOverheadFlags(args []string, getenv func(string) string, stderr io.Writer) (*overheadOpts, error) {
	fs := flag.NewFlagSet("bench overhead", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &overheadOpts{}
	fs.DurationVar(&o.Duration, "duration", time.Minute, "measured time per store, over all rounds, APIs and paths (fixture loading, warm-up and the ingest lag come on top)")
	fs.IntVar(&o.Rounds, "rounds", 5, "rounds; each runs every path once, in a rotated order, and the figures are medians over rounds")
	fs.IntVar(&o.Clients, "clients", 4, "concurrent clients of the closed loop")
	fs.IntVar(&o.Users, "users", 8, "users the requests are spread over; each holds --memories memories before the run")
	fs.IntVar(&o.Memories, "memories", 10000, "memories per user loaded before the run")
	store := fs.String("store", "", "sqlite, postgres or both (default: both when a database URL is set, else sqlite)")
	fs.StringVar(&o.DatabaseURL, "database-url", getenv("MEMPROXY_DATABASE_URL"), "PostgreSQL URL for the postgres store; the bench works in its own schema, --pg-schema (MEMPROXY_DATABASE_URL)")
	fs.StringVar(&o.PGSchema, "pg-schema", "memproxy_bench_overhead", "schema the postgres store runs in: created empty for the run and dropped after it")
	apis := fs.String("api", "", "comma-separated APIs: chat, responses, messages (default: every one this build serves)")
	arms := fs.String("arms", "on,off,readonly,writeonly", "comma-separated arms measured with ordinary messages (gate-skip messages run on the on arm)")
	fs.StringVar(&o.Corpus, "corpus", "", "LoCoMo-format JSON the messages and facts come from (MEMPROXY_BENCH_CORPUS; default ../shared/bench/locomo-dev.json when present)")
	fs.StringVar(&o.Fixtures, "fixtures", "", "directory keeping the SQLite fixture between runs (default $TMPDIR/memproxy-bench-overhead)")
	fs.StringVar(&o.JSON, "json", "", "also write the results as JSON to this file (- for stdout)")
	fs.StringVar(&o.PolicyFile, "policy", getenv("MEMPROXY_POLICY"), "policy file (MEMPROXY_POLICY; default ./policy.yaml if present, else built-in defaults)")
	fs.BoolVar(&o.Stream, "stream", false, "streamed requests (the figures are to the last byte)")
	fs.DurationVar(&o.LagLimit, "lag-limit", 2*time.Minute, "longest wait for the background queue to empty after the run")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the measured rounds (the whole process: clients, server, background) to this file; {store} in the name is replaced by the store")
	fs.StringVar(&o.BlockProfile, "blockprofile", "", "write a blocking profile of the measured rounds (where goroutines waited: locks, channels, pools) to this file; {store} as in --cpuprofile")
	fs.StringVar(&o.MemProfile, "memprofile", "", "write an allocation profile to this file after the measured rounds, and one as they start to this file plus .base (go tool pprof -sample_index=alloc_space -base FILE.base FILE: what the rounds allocated); {store} as in --cpuprofile")
	fs.StringVar(&o.Trace, "trace", "", "write an execution trace of the measured rounds to this file (go tool trace; -pprof=sched: where runnable goroutines waited for a processor, the collector's workers included; regions memproxy.request and memproxy.recall mark each request and its recall); {store} as in --cpuprofile")
	fs.StringVar(&o.MutexProfile, "mutexprofile", "", "write a mutex contention profile of the measured rounds to this file; {store} as in --cpuprofile")
	fs.IntVar(&o.IngestTurns, "ingest-turns", 2000, "after the run, enqueue this many distinct turns as capture does (32 at a time) and time the background ingesting them into the loaded scopes: turns/s (0: skip)")
	short := fs.Bool("short", false, "the target figures only, in a few minutes: the on arm and gate skips, 3 rounds, 24s per store (flags given explicitly win)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *short {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["duration"] {
			o.Duration = 24 * time.Second
		}
		if !set["rounds"] {
			o.Rounds = 3
		}
		if !set["arms"] {
			*arms = proxy.ArmOn
		}
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("bench overhead: unexpected argument %q", fs.Arg(0))
	}
	if o.Rounds < 1 || o.Clients < 1 || o.Users < 1 || o.Memories < 0 || o.Duration <= 0 || o.IngestTurns < 0 {
		return nil, errors.New("bench overhead: --rounds, --clients, --users and --duration must be positive, --memories not negative")
	}
	switch *store {
	case "":
		o.Stores = []string{"sqlite"}
		if o.DatabaseURL != "" {
			o.Stores = append(o.Stores, "postgres")
		}
	case "sqlite", "postgres":
		o.Stores = []string{*store}
	case "both":
		o.Stores = []string{"sqlite", "postgres"}
	default:
		return nil, fmt.Errorf("bench overhead: --store %q: use sqlite, postgres or both", *store)
	}
	if slicesContains(o.Stores, "postgres") && o.DatabaseURL == "" {
		return nil, errors.New("bench overhead: the postgres store needs --database-url or MEMPROXY_DATABASE_URL")
	}
	if *apis != "" {
		o.apisGiven = true
		for _, a := range splitList(*apis) {
			if _, ok := apiByName(a); !ok {
				return nil, fmt.Errorf("bench overhead: unknown API %q (have: chat, responses, messages)", a)
			}
			o.APIs = append(o.APIs, a)
		}
	} else {
		for _, a := range benchAPIs {
			o.APIs = append(o.APIs, a.Name)
		}
	}
	for _, a := range splitList(*arms) {
		if !proxy.ValidArm(a) {
			return nil, fmt.Errorf("bench overhead: unknown arm %q (have: on, off, readonly, writeonly)", a)
		}
		o.Arms = append(o.Arms, a)
	}
	if o.PolicyFile == "" {
		if _, err := os.Stat("policy.yaml"); err == nil {
			o.PolicyFile = "policy.yaml"
		}
	}
	if o.Fixtures == "" {
		o.Fixtures = os.TempDir() + "/memproxy-bench-overhead"
	}
	return o, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(strings.ToLower(p)); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func slicesContains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// benchOverhead runs "memproxy bench overhead": what a user pays end to end
// over HTTP (docs/overhead.md).
func benchOverhead(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parseOverheadFlags(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	path, err := findCorpus(o.Corpus)
	if err != nil {
		return err
	}
	c, err := loadBenchCorpus(path)
	if err != nil {
		return err
	}
	pol, err := loadPolicy(o.PolicyFile)
	if err != nil {
		return err
	}
	if !pol.Identity.TrustHeaders {
		return errors.New("bench overhead: the policy must trust identity headers (identity.trust_headers): the bench names its users with X-Memproxy-User")
	}

	// The upstream: the repository's fake, answering at once.
	fake := fakeupstream.New()
	fake.Record = false
	upURL, stopUp, err := benchListen(fake.Handler())
	if err != nil {
		return err
	}
	defer stopUp()
	// The floor: the plainest Go reverse proxy in front of the same fake
	// (no buffer pool either: the floor issue 17 measured).
	target, _ := url.Parse(upURL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = nil
	// http.DefaultTransport keeps 2 idle connections a host: with more
	// clients than that the floor would dial the upstream again for most
	// requests and pass its connects off as proxy cost. Its idle pool
	// holds every client's connection, as memproxy's does.
	floorTransport := http.DefaultTransport.(*http.Transport).Clone()
	floorTransport.MaxIdleConnsPerHost = 2 * o.Clients
	rp.Transport = floorTransport
	floorURL, stopFloor, err := benchListen(rp)
	if err != nil {
		return err
	}
	defer stopFloor()

	res := &overheadResult{
		Corpus: c.Name, CorpusTurns: len(c.Turns), CorpusFacts: len(c.Facts),
		Users: o.Users, Memories: o.Memories, Clients: o.Clients, Rounds: o.Rounds,
		Duration: o.Duration.String(), Stream: o.Stream, Policy: orDefault(o.PolicyFile),
		Build: buildRevision(),
	}
	for _, st := range o.Stores {
		sr, err := runOverheadStore(ctx, o, st, c, pol, upURL, floorURL, stderr)
		if err != nil {
			return fmt.Errorf("bench overhead (%s): %w", st, err)
		}
		res.Stores = append(res.Stores, sr)
	}
	printOverhead(stdout, res)
	if o.JSON != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if o.JSON == "-" {
			_, err = stdout.Write(b)
			return err
		}
		return os.WriteFile(o.JSON, b, 0o644)
	}
	return nil
}

// benchListen serves h on a fresh loopback port.
func benchListen(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// benchClient keeps enough idle connections for every client on every
// target, so no request pays for a new connection after the warm-up.
func benchClient(clients int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{MaxIdleConns: 64 * clients, MaxIdleConnsPerHost: 2 * clients, DisableCompression: true},
		Timeout:   2 * time.Minute,
	}
}

// discardLogger logs as serve does (JSON, info) into nothing: the
// formatting a request costs is paid, the writes are not.
func discardLogger() *slog.Logger { return slog.New(slog.NewJSONHandler(io.Discard, nil)) }

// firstErrors keeps the first few error lines of the server the bench
// runs (its log is otherwise discarded), to say why background jobs
// failed.
type firstErrors struct {
	mu    sync.Mutex
	lines []string
}

const keptErrors = 3

func (e *firstErrors) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.lines) < keptErrors {
		e.lines = append(e.lines, strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

func (e *firstErrors) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(e, &slog.HandlerOptions{Level: slog.LevelError}))
}

func (e *firstErrors) first() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.lines)
}
