package admin_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/background"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/store/postgres"
	"github.com/memproxy/memproxy/store/sqlite"
)

const token = "admin-secret-token"

// testStore is what the tests need of a backend: the admin surface and
// its database handle (to scan every table). Both stores also implement
// memory.KeyStore.
type testStore interface {
	admin.Store
	DB() *sql.DB
}

// testDim is the embedding dimension of test stores.
const testDim = 16

var openOpts = memory.OpenOptions{Model: "admin-test", Dim: testDim}

// fixture is a fresh store with what the queue and the table scan need.
type fixture struct {
	testStore
	river  *sql.DB
	driver background.Driver
	spool  memory.TurnSpool // nil: the store is one
	tables string           // lists every table of the store's database
}

// backends opens a fresh store of each kind.
var backends = []struct {
	name string
	open func(t *testing.T) *fixture
}{
	{"sqlite", func(t *testing.T) *fixture {
		path := filepath.Join(t.TempDir(), "memproxy.db")
		st, err := sqlite.Open(context.Background(), path, openOpts)
		if err != nil {
			t.Fatalf("open sqlite: %v", err)
		}
		rdb, err := sqlite.OpenRiverDB(path)
		if err != nil {
			t.Fatalf("open sqlite river pool: %v", err)
		}
		sp, err := sqlite.OpenSpool(context.Background(), sqlite.SpoolPath(path))
		if err != nil {
			t.Fatalf("open sqlite spool: %v", err)
		}
		t.Cleanup(func() { _ = sp.Close(); _ = rdb.Close(); _ = st.Close() })
		return &fixture{testStore: st, river: rdb, driver: background.DriverSQLite, spool: sp,
			tables: `SELECT name FROM sqlite_master WHERE type = 'table'`}
	}},
	{"postgres", func(t *testing.T) *fixture {
		st, err := postgres.Open(context.Background(), testpg.New(t), openOpts)
		if err != nil {
			t.Fatalf("open postgres: %v", err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return &fixture{testStore: st, river: st.DB(), driver: background.DriverPostgres,
			tables: `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`}
	}},
}

// forEachStore runs fn once per backend.
func forEachStore(t *testing.T, fn func(t *testing.T, st testStore)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b.open(t)) })
	}
}

// tablesOf lists every table in the store's database.
func tablesOf(t *testing.T, st testStore) []string {
	t.Helper()
	rows, err := st.DB().Query(st.(*fixture).tables)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		t.Fatal("no tables found")
	}
	return out
}

// spoolOf is the fixture's turn spool: SQLite's own file, or the store.
func spoolOf(f *fixture) memory.TurnSpool {
	if f.spool != nil {
		return f.spool
	}
	return f.testStore.(interface{ Spool() memory.TurnSpool }).Spool()
}

// newQueue starts a background queue on the fixture's database; with
// insertOnly it only commits jobs (they stay pending).
func newQueue(t *testing.T, st testStore, insertOnly bool, clock func() time.Time) *background.Queue {
	t.Helper()
	f := st.(*fixture)
	q, err := background.New(background.Config{
		Store: f, Admin: f, Spool: spoolOf(f), Embedder: testEmbedder{}, Driver: f.driver, DB: f.river,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Clock: clock, InsertOnly: insertOnly,
		PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopQueue(t, q) })
	return q
}

func stopQueue(t *testing.T, q *background.Queue) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := q.Stop(ctx); err != nil {
		t.Errorf("stop queue: %v", err)
	}
}

func waitIdle(t *testing.T, q *background.Queue) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := q.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

// env is an admin API mounted on a real echo server over a real store.
type env struct {
	t   *testing.T
	st  testStore
	api *admin.API
	srv *httptest.Server
	now time.Time
}

type envOption func(*admin.Config)

func newEnv(t *testing.T, st testStore, opts ...envOption) *env {
	t.Helper()
	e := &env{t: t, st: st, now: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	pol := policy.Default()
	pol.Admin.RatePerSecond, pol.Admin.Burst = 10000, 10000
	rec, err := memory.NewRecaller(memory.RecallerConfig{Search: st, Profiles: st, Recall: pol.Recall, Decay: pol.Decay, Now: func() time.Time { return e.now }})
	if err != nil {
		t.Fatal(err)
	}
	cfg := admin.Config{
		Token: token, Store: st, Searcher: rec, Policy: pol,
		Embedder: testEmbedder{}, Clock: func() time.Time { return e.now },
	}
	if ks, ok := keysOf(st.(*fixture).testStore); ok {
		cfg.Keys = ks
	}
	for _, o := range opts {
		o(&cfg)
	}
	e.api = admin.New(cfg)
	ech := echo.New()
	e.api.Mount(ech)
	e.srv = httptest.NewServer(ech)
	t.Cleanup(e.srv.Close)
	return e
}

// testEmbedder is a deterministic bag-of-letters vector: enough for
// vectors of the store's dimension, not a stand-in for a real embedder.
type testEmbedder struct{}

func (testEmbedder) Dim() int      { return testDim }
func (testEmbedder) Model() string { return "admin-test" }

func (testEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, testDim)
		for _, r := range strings.ToLower(s) {
			v[int(r)%testDim]++
		}
		out[i] = v
	}
	return out, nil
}

// resp is a decoded answer.
type resp struct {
	Status int
	Body   []byte
	Header http.Header
}

func (r resp) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

func (r resp) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	r.json(t, &m)
	return m
}

// errParam returns the OpenAI error's param and type, failing when the
// body is not the error envelope.
func (r resp) errParam(t *testing.T) (param, typ string) {
	t.Helper()
	var b struct {
		Error *struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	r.json(t, &b)
	if b.Error == nil || b.Error.Message == "" || b.Error.Type == "" || b.Error.Param == nil || b.Error.Code == nil {
		t.Fatalf("not an OpenAI error envelope: %s", r.Body)
	}
	return *b.Error.Param, b.Error.Type
}

// do sends a request with the admin token.
func (e *env) do(method, path string, body any) resp {
	e.t.Helper()
	return e.doAuth(method, path, body, "Bearer "+token)
}

func (e *env) doAuth(method, path string, body any, auth string) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp{Status: res.StatusCode, Body: b, Header: res.Header}
}

// want fails unless r has the status.
func want(t *testing.T, r resp, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
}

// wantBad fails unless r is a 400 naming param.
func wantBad(t *testing.T, r resp, param string) {
	t.Helper()
	want(t, r, http.StatusBadRequest)
	if p, _ := r.errParam(t); p != param {
		t.Fatalf("error param %q, want %q: %s", p, param, r.Body)
	}
}

// seed inserts a memory directly into the store.
func (e *env) seed(s memory.Scope, tier memory.Tier, text string, mut ...func(*memory.Memory)) *memory.Memory {
	e.t.Helper()
	vs, _ := testEmbedder{}.Embed(context.Background(), []string{text})
	m := &memory.Memory{
		ID: memory.NewID(), Scope: s, Tier: tier, Text: text, Embedding: vs[0], Value: 0.6, Confidence: 0.9,
		Source: memory.SourceExtracted, CreatedAt: e.now.Add(-time.Hour), LastUsedAt: e.now.Add(-time.Hour), ValidFrom: e.now.Add(-time.Hour),
	}
	for _, f := range mut {
		f(m)
	}
	if err := e.st.Insert(context.Background(), s, m); err != nil {
		e.t.Fatalf("seed %q: %v", text, err)
	}
	return m
}

func scope(user string) memory.Scope {
	return memory.Scope{User: user, Namespace: memory.DefaultNamespace}
}

// scanAll returns every table's rows that contain any of needles, as
// "table: row" strings: the forget-user check reads the whole database.
// scanStore is scanAll over the store's tables and, on SQLite, the turn
// spool's file.
func scanStore(t *testing.T, st testStore, tables []string, needles ...string) []string {
	t.Helper()
	hits := scanAll(t, st.DB(), tables, needles...)
	if sp, ok := st.(*fixture).spool.(*sqlite.Spool); ok {
		hits = append(hits, scanAll(t, sp.DB(), []string{"spool"}, needles...)...)
	}
	return hits
}

func scanAll(t *testing.T, db *sql.DB, tables []string, needles ...string) []string {
	t.Helper()
	var hits []string
	for _, tb := range tables {
		rows, err := db.Query(`SELECT * FROM "` + tb + `"`)
		if err != nil {
			t.Fatalf("scan %s: %v", tb, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("scan %s: %v", tb, err)
			}
			var b strings.Builder
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					b.Write(bs)
				} else {
					fmt.Fprint(&b, v)
				}
				b.WriteByte('|')
			}
			row := b.String()
			for _, n := range needles {
				if strings.Contains(row, n) {
					hits = append(hits, tb+": "+row)
					break
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("scan %s: %v", tb, err)
		}
		rows.Close()
	}
	return hits
}

func newRecorder(h http.Handler, method, path string) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec.Code
}

// time1 is i minutes, for spreading seeded rows in time.
func time1(i int) time.Duration { return time.Duration(i) * time.Minute }

// equalJSON compares two values by their JSON form (times compared as
// serialised, which is what a client sees).
func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// keysOf is a store's client keys (Store.Keys), if it has them.
func keysOf(st any) (memory.KeyStore, bool) {
	k, ok := st.(interface{ Keys() memory.KeyStore })
	if !ok {
		return nil, false
	}
	return k.Keys(), true
}
