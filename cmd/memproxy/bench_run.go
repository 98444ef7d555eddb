package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
	"github.com/memproxy/memproxy/store/sqlite"
)

// overheadResult is what the bench prints and writes as JSON.
type overheadResult struct {
	Corpus      string `json:"corpus"`
	CorpusTurns int    `json:"corpus_turns"`
	CorpusFacts int    `json:"corpus_facts"`
	Users       int    `json:"users"`
	Memories    int    `json:"memories_per_user"`
	Clients     int    `json:"clients"`
	Rounds      int    `json:"rounds"`
	Duration    string `json:"duration"`
	Stream      bool   `json:"stream"`
	Policy      string `json:"policy"`
	// Build is the commit the binary was built from, when Go stamped it.
	Build  string         `json:"build,omitempty"`
	Stores []*storeResult `json:"stores"`
}

type storeResult struct {
	Store string `json:"store"`
	// FixtureSeconds is how long preparing the users' memories took
	// (a copy of the kept fixture, or a fresh load).
	FixtureSeconds float64 `json:"fixture_seconds"`
	FixtureCached  bool    `json:"fixture_cached"`
	// Skipped names APIs this build does not serve, with the reason.
	Skipped map[string]string `json:"skipped_apis,omitempty"`
	Rows    []*pathRow        `json:"rows"`
	// SegmentSeconds is how long each path ran per round.
	SegmentSeconds float64 `json:"segment_seconds"`
	// IngestedDuring is how many turns the background ingested while the
	// requests ran; IngestedAfter how many more until the queue was empty.
	IngestedDuring int64 `json:"ingested_during_run"`
	IngestedAfter  int64 `json:"ingested_after_run"`
	// LoadBefore and LoadAfter are the machine's load averages (1, 5 and
	// 15 minutes, from /proc/loadavg where there is one) before the
	// fixture and after the run: other work on the machine shows there.
	LoadBefore string `json:"load_before,omitempty"`
	LoadAfter  string `json:"load_after,omitempty"`
	// IngestLagSeconds is how long after the last request the queue was
	// empty; QueueEmpty is false when --lag-limit passed first.
	IngestLagSeconds float64 `json:"ingest_lag_seconds"`
	QueueEmpty       bool    `json:"queue_empty"`
	// Yields is how often the background waited for rewrites in flight
	// before a batch (loadshed) during the run, YieldSeconds for how long
	// in all.
	Yields       int64   `json:"background_yields"`
	YieldSeconds float64 `json:"background_yield_seconds"`
	// Paces is how often the background paused or waited for its turn
	// while the request path was busy (policy ingest.yield), PaceSeconds
	// for how long in all.
	Paces       int64   `json:"background_paces"`
	PaceSeconds float64 `json:"background_pace_seconds"`
	// Consolidations is how many clusters of similar events the background
	// folded into summaries from the first round until the queue was
	// empty: a workload that repeats itself costs the background more.
	Consolidations int64 `json:"consolidations"`
	// JobErrors is how many background job attempts failed from the
	// first round until the queue was empty, ParkedTurns how many turns
	// were set aside after repeated failures: a retried job's backoff
	// shows in the ingest lag, and this says why.
	JobErrors   int64    `json:"background_job_errors"`
	ParkedTurns int64    `json:"parked_turns"`
	FirstErrors []string `json:"first_errors,omitempty"` // the server's first error lines
	// Ingest is the ingest measurement after the run (--ingest-turns).
	Ingest *ingestRate `json:"ingest_rate,omitempty"`
}

// ingestRate is how fast the background ingested a burst of distinct
// turns into the loaded scopes, nothing else running: from the first
// enqueue until the queue was idle.
type ingestRate struct {
	Turns       int     `json:"turns"`
	Seconds     float64 `json:"seconds"`
	TurnsPerSec float64 `json:"turns_per_second"`
	// CPUMsPerTurn is the process's CPU per turn over that time.
	CPUMsPerTurn float64 `json:"cpu_ms_per_turn"`
}

// pathRow is one path of one API: medians over rounds.
type pathRow struct {
	API  string  `json:"api"`
	Path string  `json:"path"`
	Kind string  `json:"kind,omitempty"`
	Arm  string  `json:"arm,omitempty"`
	P50  float64 `json:"p50_ms"`
	P99  float64 `json:"p99_ms"`
	// AddedP50 and AddedP99 are the median over rounds of this path's
	// percentile minus the direct path's in the same round (absent for the
	// direct path).
	AddedP50 *float64 `json:"added_p50_ms,omitempty"`
	AddedP99 *float64 `json:"added_p99_ms,omitempty"`
	Requests int      `json:"requests"`
	PerSec   float64  `json:"requests_per_second"`
	// CPUPerReq is the process's CPU time per request while the path ran
	// (the bench's clients, the fake upstream and the background
	// included); AddedCPU is that minus the direct path's, median over
	// rounds. It moves less with the machine's load than latency.
	CPUPerReq float64  `json:"cpu_ms_per_request"`
	AddedCPU  *float64 `json:"added_cpu_ms_per_request,omitempty"`
	// MachinePerReq is the machine's busy CPU time per request while the
	// path ran (every process: the database server's too), and
	// AddedMachine that minus the direct path's, medians over rounds;
	// absent where /proc/stat cannot be read.
	MachinePerReq *float64 `json:"machine_cpu_ms_per_request,omitempty"`
	AddedMachine  *float64 `json:"added_machine_cpu_ms_per_request,omitempty"`
	// InjectedShare is the share of requests answered with
	// X-Memproxy-Recall: injected (ordinary messages on recalling arms).
	InjectedShare *float64 `json:"injected_share,omitempty"`
	// BeforeP50 and BeforeP99 are the median over rounds of the time
	// memproxy spent on a request before forwarding it (its
	// X-Memproxy-Overhead header: the gate and recall), on its own paths.
	// The rest of what it adds is relaying the reply and capturing the
	// turn.
	BeforeP50 *float64 `json:"before_forward_p50_ms,omitempty"`
	BeforeP99 *float64 `json:"before_forward_p99_ms,omitempty"`
	PerRound  []round  `json:"per_round"`

	path     benchPath
	injected int
	elapsed  time.Duration
}

type round struct {
	P50      float64  `json:"p50_ms"`
	P99      float64  `json:"p99_ms"`
	CPU      float64  `json:"cpu_ms_per_request"`
	AddedCPU *float64 `json:"added_cpu_ms_per_request,omitempty"`
	// Machine and AddedMachine: as pathRow's, for the round.
	Machine      *float64 `json:"machine_cpu_ms_per_request,omitempty"`
	AddedMachine *float64 `json:"added_machine_cpu_ms_per_request,omitempty"`
	AddedP50     *float64 `json:"added_p50_ms,omitempty"`
	AddedP99     *float64 `json:"added_p99_ms,omitempty"`
	// BeforeP50 and BeforeP99: as pathRow's, for the round.
	BeforeP50 *float64 `json:"before_forward_p50_ms,omitempty"`
	BeforeP99 *float64 `json:"before_forward_p99_ms,omitempty"`
	Requests  int      `json:"requests"`
}

// runOverheadStore measures every path of every API on one store.
func runOverheadStore(ctx context.Context, o *overheadOpts, store string, c *benchCorpus, pol *policy.Policy, upURL, floorURL string, log io.Writer) (*storeResult, error) {
	sr := &storeResult{Store: store, Skipped: map[string]string{}, LoadBefore: loadAvg()}
	defer func() { sr.LoadAfter = loadAvg() }()
	cfg := &serveConfig{Upstream: upURL + "/v1", IndexMiB: int64(sqlite.DefaultIndexBytes >> 20)}
	start := time.Now()
	fmt.Fprintf(log, "bench overhead: %s: preparing %d users × %d memories…\n", store, o.Users, o.Memories)
	switch store {
	case "sqlite":
		work, err := os.MkdirTemp("", "memproxy-bench-overhead-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
		tmpl, cached, err := sqliteFixture(ctx, o, c, pol)
		if err != nil {
			return nil, err
		}
		cfg.DB = filepath.Join(work, "memproxy.db")
		if err := copySQLite(tmpl, cfg.DB); err != nil {
			return nil, err
		}
		sr.FixtureCached = cached
	case "postgres":
		dsn, drop, cached, err := pgFixture(ctx, o, c, pol, log)
		if err != nil {
			return nil, err
		}
		defer drop()
		sr.FixtureCached = cached
		cfg.DatabaseURL = dsn
	}
	sr.FixtureSeconds = time.Since(start).Seconds()

	// The server, wired and served as `memproxy serve` does.
	errLog := &firstErrors{}
	a, err := buildServer(ctx, cfg, pol, errLog.logger())
	if err != nil {
		return nil, err
	}
	defer a.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- a.Proxy.Serve(sctx, ln) }()
	defer func() { stop(); <-served }()
	pxURL := "http://" + ln.Addr().String()

	hc := benchClient(o.Clients)
	defer hc.CloseIdleConnections()
	msgs := &messages{c: c, users: o.Users}

	// Which APIs this build serves: one gate-skip request each, direct and
	// through memproxy.
	var apis []benchAPI
	for _, name := range o.APIs {
		api, _ := apiByName(name)
		var why error
		for _, p := range []benchPath{{Name: "direct", Base: upURL, Label: "direct"}, {Name: "memproxy", Arm: proxy.ArmOn, Base: pxURL, Label: "memproxy"}} {
			if _, _, _, err := benchRequest(ctx, hc, api, p, benchUser(0), nil, "ok", o.Stream); err != nil && why == nil {
				why = err
			}
		}
		if why != nil {
			if o.apisGiven {
				return nil, why
			}
			sr.Skipped[api.Name] = why.Error()
			continue
		}
		apis = append(apis, api)
	}
	if len(apis) == 0 {
		return nil, errors.New("no API to measure")
	}

	// The paths of each API, in the order of the first round.
	paths := []benchPath{
		{Name: "direct", Kind: "ordinary", Base: upURL, Label: "direct (fake upstream)"},
		{Name: "floor", Kind: "ordinary", Base: floorURL, Label: "bare reverse proxy (floor)"},
	}
	if slicesContains(o.Arms, proxy.ArmOn) {
		paths = append(paths, benchPath{Name: "memproxy", Kind: "gate-skip", Arm: proxy.ArmOn, Base: pxURL, Label: "memproxy, gate skips, on"})
	}
	for _, arm := range o.Arms {
		paths = append(paths, benchPath{Name: "memproxy", Kind: "ordinary", Arm: arm, Base: pxURL, Label: "memproxy, ordinary, " + arm})
	}
	rows := map[string][]*pathRow{}
	for _, api := range apis {
		for _, p := range paths {
			rows[api.Name] = append(rows[api.Name], &pathRow{API: api.Name, Path: p.Label, Kind: p.Kind, Arm: p.Arm, path: p})
		}
	}
	seg := o.Duration / time.Duration(o.Rounds*len(apis)*len(paths))
	seg = max(seg, 50*time.Millisecond)
	sr.SegmentSeconds = seg.Seconds()

	// Warm-up, not measured: every user's scope loads its indexes, every
	// path opens its connections; then the queue empties so the run starts
	// from a quiet background.
	fmt.Fprintf(log, "bench overhead: %s: fixture ready in %.1f s (kept: %v); warming up…\n", store, sr.FixtureSeconds, sr.FixtureCached)
	for _, api := range apis {
		for u := range o.Users {
			_, h, m := msgs.next("ordinary")
			p := benchPath{Name: "memproxy", Arm: proxy.ArmReadonly, Base: pxURL, Label: "warm-up"}
			if _, _, _, err := benchRequest(ctx, hc, api, p, benchUser(u), h, m, o.Stream); err != nil {
				return nil, err
			}
		}
		for _, p := range paths {
			if _, err := runSegment(ctx, hc, api, p, msgs, o.Clients, min(seg, 300*time.Millisecond), o.Stream); err != nil {
				return nil, err
			}
		}
	}
	// A warm-up request's recall may give up on its deadline while its
	// scope's indexes go on loading: wait for every load, so no round pays
	// for one.
	for u := range o.Users {
		sc := memory.Scope{User: benchUser(u), Namespace: memory.DefaultNamespace}
		if _, err := a.Store.LexicalSearch(ctx, sc, "warm up", memory.SearchOptions{Limit: 1}); err != nil {
			return nil, fmt.Errorf("warm-up: load %s: %w", sc.User, err)
		}
	}
	if err := a.Queue.WaitIdle(ctx); err != nil {
		return nil, err
	}

	fmt.Fprintf(log, "bench overhead: %s: %d rounds × %d APIs × %d paths, %v each…\n", store, o.Rounds, len(apis), len(paths), seg.Round(time.Millisecond))
	ingested0 := a.Queue.IngestedTurns()
	jobErrs0, parked0 := a.Queue.Failures()
	yields0, waited0 := a.Load.Stats()
	paces0, paced0 := a.Queue.Yielded()
	cons0 := a.Queue.Consolidations()
	if o.CPUProfile != "" {
		f, err := os.Create(strings.ReplaceAll(o.CPUProfile, "{store}", store))
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if o.BlockProfile != "" {
		runtime.SetBlockProfileRate(int(10 * time.Microsecond))
		defer writeProfile("block", strings.ReplaceAll(o.BlockProfile, "{store}", store), func() { runtime.SetBlockProfileRate(0) })
	}
	if o.MutexProfile != "" {
		runtime.SetMutexProfileFraction(5)
		defer writeProfile("mutex", strings.ReplaceAll(o.MutexProfile, "{store}", store), func() { runtime.SetMutexProfileFraction(0) })
	}
	if o.Trace != "" {
		f, err := os.Create(strings.ReplaceAll(o.Trace, "{store}", store))
		if err != nil {
			return nil, err
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return nil, err
		}
		defer func() { trace.Stop(); f.Close() }()
	}
	if o.MemProfile != "" {
		path := strings.ReplaceAll(o.MemProfile, "{store}", store)
		runtime.GC() // the profile is as of the last collection
		writeProfile("allocs", path+".base", func() {})
		defer func() { runtime.GC(); writeProfile("allocs", path, func() {}) }()
	}
	for r := range o.Rounds {
		for _, api := range apis {
			rs := rows[api.Name]
			got := make([]*segment, len(rs))
			for k := range rs {
				i := (k + r) % len(rs) // each round starts one path later
				// The background paces itself while memproxy has requests
				// (ingest.yield); the direct and floor paths send it none,
				// and unpaced it would take both cores from them. Every
				// path is measured beside the same paced background: as
				// under a steady stream of requests.
				leave := a.Requests.Enter()
				s, err := runSegment(ctx, hc, api, rs[i].path, msgs, o.Clients, seg, o.Stream)
				leave()
				if err != nil {
					return nil, err
				}
				got[i] = s
			}
			direct := got[0]
			for i, s := range got {
				rd := round{P50: pct(s.Lat, 0.50), P99: pct(s.Lat, 0.99), CPU: s.cpuPerReq(), Machine: s.machinePerReq(), Requests: len(s.Lat)}
				if len(s.Before) > 0 {
					b50, b99 := pct(s.Before, 0.50), pct(s.Before, 0.99)
					rd.BeforeP50, rd.BeforeP99 = &b50, &b99
				}
				if i > 0 {
					a50, a99, ac := rd.P50-pct(direct.Lat, 0.50), rd.P99-pct(direct.Lat, 0.99), rd.CPU-direct.cpuPerReq()
					rd.AddedP50, rd.AddedP99, rd.AddedCPU = &a50, &a99, &ac
					if dm := direct.machinePerReq(); rd.Machine != nil && dm != nil {
						am := *rd.Machine - *dm
						rd.AddedMachine = &am
					}
				}
				row := rs[i]
				row.PerRound = append(row.PerRound, rd)
				row.Requests += len(s.Lat)
				row.injected += s.Injected
				row.elapsed += s.Elapsed
			}
		}
	}
	ended := time.Now()
	ingested1 := a.Queue.IngestedTurns()
	yields1, waited1 := a.Load.Stats()
	sr.Yields, sr.YieldSeconds = yields1-yields0, (waited1 - waited0).Seconds()
	paces1, paced1 := a.Queue.Yielded()
	sr.Paces, sr.PaceSeconds = paces1-paces0, (paced1 - paced0).Seconds()
	lctx, cancel := context.WithTimeout(ctx, o.LagLimit)
	err = a.Queue.WaitIdle(lctx)
	cancel()
	sr.IngestLagSeconds = time.Since(ended).Seconds()
	sr.QueueEmpty = err == nil
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	sr.IngestedDuring, sr.IngestedAfter = ingested1-ingested0, a.Queue.IngestedTurns()-ingested1
	sr.Consolidations = a.Queue.Consolidations() - cons0
	jobErrs1, parked1 := a.Queue.Failures()
	sr.JobErrors, sr.ParkedTurns = jobErrs1-jobErrs0, parked1-parked0
	if sr.JobErrors > 0 || sr.ParkedTurns > 0 {
		sr.FirstErrors = errLog.first()
	}
	if o.IngestTurns > 0 && sr.QueueEmpty {
		fmt.Fprintf(log, "bench overhead: %s: ingesting %d turns…\n", store, o.IngestTurns)
		if sr.Ingest, err = measureIngest(ctx, a, msgs, o.IngestTurns, o.LagLimit); err != nil {
			return nil, fmt.Errorf("ingest measurement: %w", err)
		}
	}

	for _, api := range apis {
		for _, row := range rows[api.Name] {
			row.finish()
			sr.Rows = append(sr.Rows, row)
		}
	}
	return sr, nil
}

// finish computes a row's medians over rounds.
func (row *pathRow) finish() {
	var p50, p99, cpu, a50, a99, acpu, b50, b99, mach, amach []float64
	for _, rd := range row.PerRound {
		p50, p99, cpu = append(p50, rd.P50), append(p99, rd.P99), append(cpu, rd.CPU)
		if rd.Machine != nil {
			mach = append(mach, *rd.Machine)
		}
		if rd.AddedMachine != nil {
			amach = append(amach, *rd.AddedMachine)
		}
		if rd.BeforeP50 != nil {
			b50, b99 = append(b50, *rd.BeforeP50), append(b99, *rd.BeforeP99)
		}
		if rd.AddedP50 != nil {
			a50, a99, acpu = append(a50, *rd.AddedP50), append(a99, *rd.AddedP99), append(acpu, *rd.AddedCPU)
		}
	}
	row.P50, row.P99, row.CPUPerReq = median(p50), median(p99), median(cpu)
	if len(mach) == len(row.PerRound) && len(mach) > 0 {
		m := median(mach)
		row.MachinePerReq = &m
	}
	if len(amach) > 0 && len(amach) == len(a50) {
		m := median(amach)
		row.AddedMachine = &m
	}
	if len(a50) > 0 {
		m50, m99, mc := median(a50), median(a99), median(acpu)
		row.AddedP50, row.AddedP99, row.AddedCPU = &m50, &m99, &mc
	}
	if len(b50) > 0 {
		m50, m99 := median(b50), median(b99)
		row.BeforeP50, row.BeforeP99 = &m50, &m99
	}
	if row.elapsed > 0 {
		row.PerSec = float64(row.Requests) / row.elapsed.Seconds()
	}
	if row.path.recalls() && row.Requests > 0 {
		sh := float64(row.injected) / float64(row.Requests)
		row.InjectedShare = &sh
	}
}

// fixtureVersion changes whenever fixtureMemories would build other
// memories, so kept fixtures are rebuilt.
const fixtureVersion = "overhead-fixture-v2"

// fixtureKey names a fixture by everything its memories depend on; the
// month is in it so that a kept fixture does not age past a month of
// decay.
func fixtureKey(o *overheadOpts, c *benchCorpus, pol *policy.Policy) string {
	e := pol.Embedder
	h := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%d|%d|%s|%s|%d|%s", fixtureVersion, c.Sum, o.Users, o.Memories,
		e.Provider, e.Model, e.Dim, time.Now().UTC().Format("2006-01"))))
	return hex.EncodeToString(h[:6])
}

// sqliteFixture returns the kept SQLite fixture for this corpus, size and
// embedder, building it on first use; cached reports that it was kept.
func sqliteFixture(ctx context.Context, o *overheadOpts, c *benchCorpus, pol *policy.Policy) (path string, cached bool, err error) {
	path = filepath.Join(o.Fixtures, "sqlite-"+fixtureKey(o, c, pol)+".db")
	if _, err := os.Stat(path); err == nil {
		return path, true, nil
	}
	if err := os.MkdirAll(o.Fixtures, 0o755); err != nil {
		return "", false, err
	}
	building := path + ".building." + strconv.Itoa(os.Getpid())
	defer removeSQLite(building)
	if err := loadFixtureApp(ctx, &app.Options{DB: building}, pol, c, o, ""); err != nil {
		return "", false, err
	}
	if err := copySQLite(building, path); err != nil {
		return "", false, err
	}
	// A fixture built over a month ago is of a past month: never used again.
	old, _ := filepath.Glob(filepath.Join(o.Fixtures, "sqlite-*.db"))
	for _, f := range old {
		if fi, err := os.Stat(f); err == nil && f != path && time.Since(fi.ModTime()) > 32*24*time.Hour {
			removeSQLite(f)
		}
	}
	return path, false, nil
}

// loadFixtureApp opens the store as memproxy does (migrations, identity
// check), with a queue that does no work, and loads every user's memories.
// When mark is set, the meta key mark is set to "complete" after the load.
func loadFixtureApp(ctx context.Context, ao *app.Options, pol *policy.Policy, c *benchCorpus, o *overheadOpts, mark string) error {
	ao.Upstream = "http://127.0.0.1:9/v1" // never called
	ao.Policy, ao.Logger, ao.NoWorkers = pol, discardLogger(), true
	a, err := app.New(ctx, *ao)
	if err != nil {
		return err
	}
	err = loadFixtures(ctx, a.Store, a.Embedder, c, o.Users, o.Memories)
	if err == nil && mark != "" {
		_, err = a.Store.SetMetaIfAbsent(ctx, mark, "complete")
	}
	if err != nil {
		a.Close()
		return err
	}
	return a.Close()
}

// copySQLite copies a closed SQLite database (and its WAL when one is left)
// to dst, through a temporary name so a half copy is never taken for one.
func copySQLite(src, dst string) error {
	tmp := dst + ".copy." + strconv.Itoa(os.Getpid())
	for _, suffix := range []string{"", "-wal"} {
		if suffix != "" {
			if _, err := os.Stat(src + suffix); errors.Is(err, os.ErrNotExist) {
				continue
			}
		}
		if err := copyFile(src+suffix, tmp+suffix); err != nil {
			removeSQLite(tmp)
			return err
		}
	}
	if _, err := os.Stat(tmp + "-wal"); err == nil {
		if err := os.Rename(tmp+"-wal", dst+"-wal"); err != nil {
			return err
		}
	}
	return os.Rename(tmp, dst)
}

func removeSQLite(path string) {
	for _, s := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(path + s)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// pgBenchSchema creates one of the bench's own schemas in the database at
// base (emptied first when empty is set): the bench never touches
// memproxy's tables elsewhere in that database. drop removes it.
func pgBenchSchema(ctx context.Context, base, schema string, empty bool) (dsn string, drop func(), err error) {
	if !validSchemaName(schema) {
		return "", nil, fmt.Errorf("--pg-schema %q: want lower-case letters, digits and underscores", schema)
	}
	db, err := sql.Open("postgres", base)
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	for _, q := range []string{
		// As testpg does: CREATE EXTENSION is not safe to race.
		`SELECT pg_advisory_lock(hashtext('memproxy.testpg.extension'));
		CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;
		SELECT pg_advisory_unlock(hashtext('memproxy.testpg.extension'))`,
		`CREATE SCHEMA IF NOT EXISTS ` + schema,
	} {
		if empty && strings.HasPrefix(q, "CREATE SCHEMA") {
			q = `DROP SCHEMA IF EXISTS ` + schema + ` CASCADE; CREATE SCHEMA ` + schema
		}
		if _, err := db.ExecContext(ctx, q); err != nil {
			return "", nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	if u, err := url.Parse(base); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("search_path", schema+",public")
		u.RawQuery = q.Encode()
		dsn = u.String()
	} else {
		dsn = base + " search_path=" + schema + ",public"
	}
	drop = func() {
		db, err := sql.Open("postgres", base)
		if err != nil {
			return
		}
		defer db.Close()
		_, _ = db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`)
	}
	return dsn, drop, nil
}

func validSchemaName(s string) bool {
	if s == "" || len(s) > 63 || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// pgAnalyze vacuums and analyzes the schema's tables after the bulk load,
// as autovacuum soon would in a deployment: the planner then knows the
// tables hold 10k rows per user, not none.
func pgAnalyze(ctx context.Context, base, schema string) error {
	db, err := sql.Open("postgres", base)
	if err != nil {
		return err
	}
	defer db.Close()
	tables, err := pgStrings(ctx, db, `SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY 1`, schema)
	if err != nil {
		return err
	}
	if len(tables) == 0 {
		return nil
	}
	for i, t := range tables {
		tables[i] = pq.QuoteIdentifier(schema) + "." + pq.QuoteIdentifier(t)
	}
	if _, err := db.ExecContext(ctx, `VACUUM (ANALYZE) `+strings.Join(tables, ", ")); err != nil {
		return fmt.Errorf("vacuum analyze: %w", err)
	}
	return nil
}

// loadAvg is the first three fields of /proc/loadavg, or "".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// buildRevision is the VCS revision Go stamped into the binary ("" when
// none), with "+dirty" for a modified tree.
func buildRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			if kv.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

// writeProfile writes the named runtime profile (block, mutex) to path,
// then calls off; a failure is only reported, the figures stand.
func writeProfile(name, path string, off func()) {
	defer off()
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench overhead: %s profile: %v\n", name, err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		fmt.Fprintf(os.Stderr, "bench overhead: %s profile: %v\n", name, err)
	}
}

// measureIngest enqueues n distinct ordinary turns (the run's message
// sequence continued, with the history as context) from 32 goroutines, as
// concurrent captures do, and times the background until the queue is
// idle.
func measureIngest(ctx context.Context, a *app.App, msgs *messages, n int, limit time.Duration) (*ingestRate, error) {
	turns := make(chan *memory.Turn, n)
	now := time.Now().UTC()
	for i := range n {
		user, history, msg := msgs.next("ordinary")
		t := &memory.Turn{
			API: "chat", RequestID: fmt.Sprintf("bench-ingest-%d-%d", now.UnixNano(), i),
			Scope: memory.Scope{User: user, Namespace: memory.DefaultNamespace}, Session: "bench-ingest-" + user,
			Time: now, User: msg, Assistant: "Thanks for telling me about that.", Arm: proxy.ArmOn,
		}
		if len(history) >= 2 {
			t.Context = memory.ExchangeContext(history[len(history)-2], history[len(history)-1])
		}
		turns <- t
	}
	close(turns)
	lctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cpu0 := processCPU()
	start := time.Now()
	errs := make(chan error, 32)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for t := range turns {
				if err := a.Queue.Enqueue(lctx, t); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	if err := a.Queue.WaitIdle(lctx); err != nil {
		return nil, err
	}
	el := time.Since(start)
	return &ingestRate{Turns: n, Seconds: el.Seconds(), TurnsPerSec: float64(n) / el.Seconds(),
		CPUMsPerTurn: float64(processCPU()-cpu0) / float64(time.Millisecond) / float64(n)}, nil
}
