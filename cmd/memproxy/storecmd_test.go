package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/postgres"
	"github.com/memproxy/memproxy/store/sqlite"
)

// cmdBackend is a fresh store location for the maintenance commands: the
// flags that point at it, and how a test opens it directly.
type cmdBackend struct {
	name  string
	flags []string // --db FILE, or none with MEMPROXY_DATABASE_URL set
	open  func(t *testing.T, o memory.OpenOptions) (memoryStore, error)
}

// cmdBackends are both backends; the postgres one sets
// MEMPROXY_DATABASE_URL for the rest of the (serial) subtest.
var cmdBackends = []struct {
	name  string
	setup func(t *testing.T) cmdBackend
}{
	{"sqlite", func(t *testing.T) cmdBackend {
		t.Setenv("MEMPROXY_DATABASE_URL", "")
		path := filepath.Join(t.TempDir(), "memproxy.db")
		return cmdBackend{name: "sqlite:" + path, flags: []string{"--db", path},
			open: func(t *testing.T, o memory.OpenOptions) (memoryStore, error) {
				return sqlite.Open(context.Background(), path, o)
			}}
	}},
	{"postgres", func(t *testing.T) cmdBackend {
		dsn := testpg.New(t)
		t.Setenv("MEMPROXY_DATABASE_URL", dsn)
		// --db must lose to MEMPROXY_DATABASE_URL.
		return cmdBackend{name: "postgres", flags: []string{"--db", filepath.Join(t.TempDir(), "unused.db")},
			open: func(t *testing.T, o memory.OpenOptions) (memoryStore, error) {
				return postgres.Open(context.Background(), dsn, o)
			}}
	}},
}

func mustOpen(t *testing.T, b cmdBackend, o memory.OpenOptions) memoryStore {
	t.Helper()
	st, err := b.open(t, o)
	if err != nil {
		t.Fatalf("open %s for %+v: %v", b.name, o, err)
	}
	return st
}

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

var versionLine = regexp.MustCompile(`(?m)^store (\S+): schema version (\d+) \((.*)\)\nqueue river: version (\d+) \((.*)\)$`)

func TestMigrate(t *testing.T) {
	for _, bk := range cmdBackends {
		t.Run(bk.name, func(t *testing.T) {
			b := bk.setup(t)
			out, _, err := runCmd(t, append([]string{"migrate"}, b.flags...)...)
			if err != nil {
				t.Fatalf("migrate: %v", err)
			}
			m := versionLine.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("migrate output lacks the version lines:\n%s", out)
			}
			if m[1] != b.name || m[2] == "0" || m[3] != "migrated from 0" || m[4] == "0" || m[5] != "migrated from 0" {
				t.Errorf("first migrate:\n%s", out)
			}
			if b.name == "postgres" && !strings.Contains(out, "embedder local-hash-v1, 256 dimensions") {
				t.Errorf("postgres is created for the policy's embedder:\n%s", out)
			}
			again, _, err := runCmd(t, append([]string{"migrate"}, b.flags...)...)
			if err != nil {
				t.Fatalf("migrate again: %v", err)
			}
			m2 := versionLine.FindStringSubmatch(again)
			if m2 == nil || m2[2] != m[2] || m2[3] != "up to date" || m2[4] != m[4] || m2[5] != "up to date" {
				t.Errorf("second migrate is not a no-op:\n%s", again)
			}
			// The migrated store opens (and records the embedder on SQLite).
			st := mustOpen(t, b, memory.OpenOptions{Model: embed.LocalModel, Dim: 256})
			st.Close()
			third, _, err := runCmd(t, append([]string{"migrate"}, b.flags...)...)
			if err != nil || !strings.Contains(third, "embedder local-hash-v1, 256 dimensions") {
				t.Errorf("migrate after open: %v\n%s", err, third)
			}
		})
	}
}

func TestExport(t *testing.T) {
	for _, bk := range cmdBackends {
		t.Run(bk.name, func(t *testing.T) {
			b := bk.setup(t)
			ctx := context.Background()
			// A store made for another embedder than the policy's default:
			// export opens it for the embedder it records.
			e := embed.NewLocal(32)
			st := mustOpen(t, b, memory.OpenOptions{Model: e.Model(), Dim: e.Dim()})
			for _, m := range []struct{ user, ns, text string }{
				{"alice", "default", "alice keeps bees"},
				{"alice", "work", "alice manages the payroll team"},
				{"bob", "default", "bob sails on weekends"},
			} {
				sc := memory.Scope{User: m.user, Namespace: m.ns}
				if err := st.Insert(ctx, sc, &memory.Memory{Tier: memory.TierSemantic, Text: m.text, Embedding: e.Vector(m.text)}); err != nil {
					t.Fatal(err)
				}
			}
			st.Close()

			out, _, err := runCmd(t, append([]string{"export", "--user", "alice"}, b.flags...)...)
			if err != nil {
				t.Fatalf("export: %v", err)
			}
			var ex admin.Export
			if err := json.Unmarshal([]byte(out), &ex); err != nil {
				t.Fatalf("export output is not JSON: %v\n%s", err, out)
			}
			if ex.Format != admin.ExportFormat || ex.User != "alice" || len(ex.Memories) != 2 || ex.Embedding == nil || ex.Embedding.Dim != 32 {
				t.Fatalf("export = %+v", ex)
			}
			for _, m := range ex.Memories {
				if m.Scope.User != "alice" || len(m.Embedding) != 32 {
					t.Errorf("exported memory %+v", m)
				}
			}

			file := filepath.Join(t.TempDir(), "alice.md")
			_, msg, err := runCmd(t, append([]string{"export", "--user", "alice", "--namespace", "work", "--format", "markdown", "--out", file}, b.flags...)...)
			if err != nil {
				t.Fatalf("export markdown: %v", err)
			}
			md, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(md), "# Memories of alice") || !strings.Contains(string(md), "payroll") || strings.Contains(string(md), "bees") {
				t.Errorf("markdown of alice/work:\n%s", md)
			}
			if !strings.Contains(msg, "exported 1 memories") {
				t.Errorf("export message %q", msg)
			}
			if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("export file mode: %v %v", fi.Mode(), err)
			}

			for _, bad := range [][]string{
				{"export"},
				{"export", "--user", "alice", "--format", "pdf"},
				{"export", "--user", "alice", "--namespace", "tab\there"},
			} {
				if _, _, err := runCmd(t, append(bad, b.flags...)...); err == nil {
					t.Errorf("%v accepted", bad)
				}
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		t.Setenv("MEMPROXY_DATABASE_URL", "")
		path := filepath.Join(t.TempDir(), "nope.db")
		if _, _, err := runCmd(t, "export", "--user", "alice", "--db", path); err == nil {
			t.Error("export of a missing database succeeded")
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("export created %s", path)
		}
	})
}

func TestReembedCommand(t *testing.T) {
	for _, bk := range cmdBackends {
		t.Run(bk.name, func(t *testing.T) {
			b := bk.setup(t)
			ctx := context.Background()
			a, nb := embed.NewLocal(64), embed.NewLocal(128)
			oldO, newO := memory.OpenOptions{Model: a.Model(), Dim: 64}, memory.OpenOptions{Model: nb.Model(), Dim: 128}
			st := mustOpen(t, b, oldO)
			sc := memory.Scope{User: "alice", Namespace: "default"}
			event := "I adopted a grey cat called Tom\nAssistant: Congratulations on the new cat!"
			for _, m := range []*memory.Memory{
				{Tier: memory.TierSemantic, Text: "alice is allergic to peanuts", Embedding: a.Vector("alice is allergic to peanuts")},
				{Tier: memory.TierSemantic, Text: "alice drives a red bicycle to work", Embedding: a.Vector("alice drives a red bicycle to work")},
				{Tier: memory.TierEvent, Text: event, Embedding: a.Vector("I adopted a grey cat called Tom")},
			} {
				if err := st.Insert(ctx, sc, m); err != nil {
					t.Fatal(err)
				}
			}
			st.Close()
			pol := filepath.Join(t.TempDir(), "policy.yaml")
			if err := os.WriteFile(pol, []byte("embedder:\n  provider: local\n  dim: 128\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"reembed", "--policy", pol}, b.flags...)

			// Without --yes nothing changes.
			if _, _, err := runCmd(t, args...); err == nil || !strings.Contains(err.Error(), "--yes") || !strings.Contains(err.Error(), "3 memories") {
				t.Fatalf("reembed without --yes: %v", err)
			}
			mustOpen(t, b, oldO).Close()

			out, progress, err := runCmd(t, append(args, "--yes")...)
			if err != nil {
				t.Fatalf("reembed --yes: %v", err)
			}
			if !strings.Contains(out, "now embedded with local-hash-v1 (128 dimensions)") || !strings.Contains(progress, "3/3") {
				t.Errorf("reembed output %q, progress %q", out, progress)
			}
			if _, err := b.open(t, oldO); !errors.Is(err, memory.ErrEmbedderMismatch) {
				t.Fatalf("open with the old embedder: %v, want ErrEmbedderMismatch", err)
			}
			st = mustOpen(t, b, newO)
			defer st.Close()
			got, err := st.VectorSearch(ctx, sc, nb.Vector("which allergy does alice have"), memory.SearchOptions{Limit: 1})
			if err != nil || len(got) != 1 || !strings.Contains(got[0].Memory.Text, "peanuts") {
				t.Fatalf("search after reembed: %v %v", got, err)
			}
			// An event is embedded by its user part, as ingest does.
			got, err = st.VectorSearch(ctx, sc, nb.Vector("I adopted a grey cat called Tom"), memory.SearchOptions{Limit: 1})
			if err != nil || len(got) != 1 || got[0].Memory.Text != event || got[0].Score < 0.999 {
				t.Fatalf("event after reembed: %v %v", got, err)
			}

			again, _, err := runCmd(t, append(args, "--yes")...)
			if err != nil || !strings.Contains(again, "nothing to do") {
				t.Errorf("second reembed: %v %q", err, again)
			}
		})
	}
}

func TestMaintenanceFlags(t *testing.T) {
	env := map[string]string{"MEMPROXY_DB": "/env.db", "MEMPROXY_POLICY": "/env.yaml"}
	f, err := parseStoreCmd("x", []string{"--db", "/flag.db"}, func(k string) string { return env[k] }, &bytes.Buffer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.DB != "/flag.db" || f.PolicyFile != "/env.yaml" || f.backend() != "sqlite:/flag.db" {
		t.Errorf("flags %+v", f)
	}
	env["MEMPROXY_DATABASE_URL"] = "postgres://x"
	f, _ = parseStoreCmd("x", nil, func(k string) string { return env[k] }, &bytes.Buffer{}, nil)
	if f.DB != "/env.db" || f.backend() != "postgres" {
		t.Errorf("env %+v", f)
	}
	if _, err := parseStoreCmd("x", []string{"extra"}, func(string) string { return "" }, &bytes.Buffer{}, nil); err == nil {
		t.Error("stray argument accepted")
	}
	if out, _, err := runCmd(t, "help"); err != nil || !strings.Contains(out, "memproxy reembed") || !strings.Contains(out, "memproxy export") || !strings.Contains(out, "memproxy migrate") {
		t.Errorf("usage: %v\n%s", err, out)
	}
}
