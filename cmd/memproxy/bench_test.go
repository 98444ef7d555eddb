package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/testpg"
)

// The overhead bench runs end to end on a tiny configuration, on both
// stores and the three APIs: every path has percentiles, the
// recalling arms an injected share (and the tiny corpus's messages do find
// their facts), and the turns the run captured were ingested. Only what
// was measured is checked, never how fast.
func TestBenchOverheadTiny(t *testing.T) {
	var b [4]byte
	_, _ = rand.Read(b[:])
	schema := "bench_overhead_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		if err := pgDropSchemas(context.Background(), testpg.URL(), schema); err != nil {
			t.Errorf("drop the bench's schemas: %v", err)
		}
	})
	out := filepath.Join(t.TempDir(), "overhead.json")
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"bench", "overhead",
		"--corpus", "testdata/overhead-corpus.json", "--users", "2", "--memories", "40",
		"--clients", "2", "--rounds", "2", "--duration", "1s", "--store", "both",
		"--database-url", testpg.URL(), "--pg-schema", schema,
		"--api", "chat,responses,messages", "--ingest-turns", "40",
		"--fixtures", t.TempDir(), "--policy", "", "--json", out,
	}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("bench overhead: %v\n%s", err, stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res overheadResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("decode %s: %v", out, err)
	}
	if len(res.Stores) != 2 || res.Stores[0].Store != "sqlite" || res.Stores[1].Store != "postgres" {
		t.Fatalf("stores: %+v", res.Stores)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for _, s := range res.Stores {
		paths := map[string]bool{}
		for _, row := range s.Rows {
			what := s.Store + " " + row.API + " " + row.Path
			paths[row.API+"/"+row.Kind+"/"+row.Arm] = true
			if row.Requests == 0 || len(row.PerRound) != 2 || !finite(row.P50) || row.P50 <= 0 || row.P99 < row.P50 {
				t.Errorf("%s: requests %d, rounds %d, p50 %v, p99 %v", what, row.Requests, len(row.PerRound), row.P50, row.P99)
			}
			direct := row.Path == "direct (fake upstream)"
			if (row.AddedP50 == nil || row.AddedP99 == nil) != direct {
				t.Errorf("%s: added p50/p99 %v/%v", what, row.AddedP50, row.AddedP99)
			} else if !direct && (!finite(*row.AddedP50) || !finite(*row.AddedP99)) {
				t.Errorf("%s: added %v/%v", what, *row.AddedP50, *row.AddedP99)
			}
			if _, ok := machineCPU(); ok {
				if row.MachinePerReq == nil || *row.MachinePerReq < 0 || (row.AddedMachine == nil) != direct {
					t.Errorf("%s: machine CPU %v, added %v", what, row.MachinePerReq, row.AddedMachine)
				}
			}
			recalls := row.Kind == "ordinary" && (row.Arm == "on" || row.Arm == "readonly")
			if (row.InjectedShare != nil) != recalls {
				t.Errorf("%s: injected share %v", what, row.InjectedShare)
			}
			if recalls && (*row.InjectedShare <= 0 || *row.InjectedShare > 1) {
				t.Errorf("%s: injected share %v; the tiny corpus's messages match its facts", what, *row.InjectedShare)
			}
		}
		for _, api := range []string{"chat", "responses", "messages"} {
			for _, p := range []string{"/ordinary/", "/gate-skip/on", "/ordinary/on", "/ordinary/off", "/ordinary/readonly", "/ordinary/writeonly"} {
				if !paths[api+p] {
					t.Errorf("%s: no row for %s (have %v)", s.Store, api+p, paths)
				}
			}
		}
		if r := s.Ingest; r == nil || r.Turns != 40 || !(r.TurnsPerSec > 0) || !finite(r.TurnsPerSec) {
			t.Errorf("%s: ingest rate %+v", s.Store, r)
		}
		if !s.QueueEmpty || s.IngestedDuring+s.IngestedAfter == 0 {
			t.Errorf("%s: queue empty %v, ingested %d during + %d after the run", s.Store, s.QueueEmpty, s.IngestedDuring, s.IngestedAfter)
		}
	}
	text := stdout.String()
	for _, want := range []string{"store sqlite", "store postgres", "added p50", "memproxy, ordinary, on", "bare reverse proxy (floor)", "ingest:", "ingest rate:", "gate-skip added p50 by API: chat"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
}

func TestBenchArgs(t *testing.T) {
	for _, args := range [][]string{
		{"bench"}, {"bench", "nothing"},
		{"bench", "overhead", "--api", "soap"},
		{"bench", "overhead", "--arms", "sometimes"},
		{"bench", "overhead", "--store", "postgres", "--database-url", ""},
		{"bench", "overhead", "--rounds", "0"},
	} {
		if err := run(t.Context(), args, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// --short measures the target figures only; flags given explicitly win.
func TestBenchShortFlags(t *testing.T) {
	none := func(string) string { return "" }
	o, err := parseOverheadFlags([]string{"--short"}, none, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Rounds != 3 || o.Duration.Seconds() != 24 || strings.Join(o.Arms, ",") != "on" {
		t.Errorf("--short: rounds %d, duration %v, arms %v", o.Rounds, o.Duration, o.Arms)
	}
	o, err = parseOverheadFlags([]string{"--short", "--rounds", "5", "--arms", "on,off"}, none, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Rounds != 5 || o.Duration.Seconds() != 24 || strings.Join(o.Arms, ",") != "on,off" {
		t.Errorf("--short with flags: rounds %d, duration %v, arms %v", o.Rounds, o.Duration, o.Arms)
	}
}

// TestParseProcStatCPU: the machine's busy time is every tick but idle
// and I/O wait, at 100 ticks a second; other lines are refused.
func TestParseProcStatCPU(t *testing.T) {
	d, ok := parseProcStatCPU("cpu  100 5 50 1000 40 3 2 1 0 0\n")
	if !ok || d != 1610*time.Millisecond {
		t.Errorf("busy %v, %v; want 1.61s", d, ok)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7 8", "cpu 1 2 x 4 5 6 7 8", "cpu 1 2 3"} {
		if _, ok := parseProcStatCPU(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
