package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

func TestServeFlagsAndEnv(t *testing.T) {
	env := map[string]string{"MEMPROXY_LISTEN": ":9999", "MEMPROXY_UPSTREAM": "http://env/v1", "MEMPROXY_ADMIN_TOKEN": "adm", "MEMPROXY_DATABASE_URL": "postgres://x"}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseServeFlags([]string{"--upstream", "http://flag/v1"}, getenv, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != ":9999" || cfg.Upstream != "http://flag/v1" || cfg.DB != "./memproxy.db" || cfg.AdminToken != "adm" || cfg.DatabaseURL != "postgres://x" {
		t.Errorf("cfg = %+v (flag must win over env, env over default)", cfg)
	}
	if cfg.IndexMiB != 512 || indexBytes(cfg.IndexMiB) != 512<<20 {
		t.Errorf("index memory = %d MiB, want the default 512", cfg.IndexMiB)
	}
	env["MEMPROXY_INDEX_MEMORY"] = "64"
	if cfg, err := parseServeFlags(nil, getenv, &bytes.Buffer{}); err != nil || indexBytes(cfg.IndexMiB) != 64<<20 {
		t.Errorf("MEMPROXY_INDEX_MEMORY=64: %+v %v", cfg, err)
	}
	if cfg, err := parseServeFlags([]string{"--index-memory", "0"}, getenv, &bytes.Buffer{}); err != nil || indexBytes(cfg.IndexMiB) >= 0 {
		t.Errorf("--index-memory 0 must mean no bound: %+v %v", cfg, err)
	}
	env["MEMPROXY_INDEX_MEMORY"] = "lots"
	if _, err := parseServeFlags(nil, getenv, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "MEMPROXY_INDEX_MEMORY") {
		t.Errorf("a malformed MEMPROXY_INDEX_MEMORY must be refused naming it: %v", err)
	}
	delete(env, "MEMPROXY_INDEX_MEMORY")
	if _, err := parseServeFlags([]string{"--nope"}, getenv, &bytes.Buffer{}); err == nil {
		t.Error("unknown flag accepted")
	}
}

func TestServeCheck(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(good, []byte("server:\n  max_body_bytes: 1024\n"), 0o600)
	os.WriteFile(bad, []byte("server:\n  max_body_bytes: 1024\n  nonsense: 3\n"), 0o600)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"serve", "--check", "--policy", good, "--upstream", "http://127.0.0.1:1/v1"}, &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("check good policy: %v", err)
	}
	if !strings.Contains(out.String(), "ok") {
		t.Errorf("check output = %q", out.String())
	}
	err := run(context.Background(), []string{"--check", "--policy", bad}, &out, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:3") || !strings.Contains(err.Error(), "server.nonsense") {
		t.Errorf("bad policy error = %v, want file:line and key", err)
	}
	if err := run(context.Background(), []string{"serve", "--check", "--upstream", "ftp://x"}, &out, &bytes.Buffer{}); err == nil {
		t.Error("bad upstream accepted")
	}
	if err := run(context.Background(), []string{"frobnicate"}, &out, &bytes.Buffer{}); err == nil {
		t.Error("unknown subcommand accepted")
	}
}

func TestServeListensOnLoopbackByDefault(t *testing.T) {
	cfg, err := parseServeFlags(nil, func(string) string { return "" }, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != "127.0.0.1:8080" {
		t.Errorf("default listen = %q, want 127.0.0.1:8080 (loopback unless told otherwise)", cfg.Listen)
	}
	cfg, err = parseServeFlags(nil, func(k string) string {
		if k == "MEMPROXY_LISTEN" {
			return ":8080"
		}
		return ""
	}, &bytes.Buffer{})
	if err != nil || cfg.Listen != ":8080" {
		t.Errorf("MEMPROXY_LISTEN=:8080 gives %+v %v", cfg, err)
	}
}

func TestExposureRisk(t *testing.T) {
	loop := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	loop6 := &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}
	all := &net.TCPAddr{IP: net.IPv4zero, Port: 8080}
	all6 := &net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}
	lan := &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 8080}
	for _, tc := range []struct {
		addr  net.Addr
		trust bool
		keys  int
		warn  bool
	}{
		{loop, true, 0, false}, {loop6, true, 0, false},
		{all, true, 0, true}, {all6, true, 0, true}, {lan, true, 0, true},
		{all, false, 0, false}, {all, true, 1, false},
	} {
		got := exposureRisk(tc.addr, tc.trust, tc.keys)
		if (got != "") != tc.warn {
			t.Errorf("exposureRisk(%v, trust=%v, keys=%d) = %q, want warning=%v", tc.addr, tc.trust, tc.keys, got, tc.warn)
		}
	}
}

// TestServeWarnsWhenExposed runs the start-up check on a real app: exposed
// with trusted headers and no client key warns; a live client key, or a
// loopback address, silences it.
func TestServeWarnsWhenExposed(t *testing.T) {
	ctx := t.Context()
	cfg := &serveConfig{Upstream: "http://127.0.0.1:1/v1", DB: filepath.Join(t.TempDir(), "m.db"), IndexMiB: 16}
	pol := policy.Default()
	a, err := buildServer(ctx, cfg, pol, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	check := func(addr net.Addr) string {
		var buf bytes.Buffer
		warnExposure(ctx, slog.New(slog.NewTextHandler(&buf, nil)), addr, pol, a)
		return buf.String()
	}
	exposedAddr := &net.TCPAddr{IP: net.IPv4zero, Port: 8080}
	if out := check(exposedAddr); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "trust_headers") {
		t.Errorf("exposed + trusted headers + no keys: log = %q, want a warning", out)
	}
	if out := check(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}); out != "" {
		t.Errorf("loopback: log = %q, want nothing", out)
	}
	ks := a.Store.(interface{ Keys() memory.KeyStore }).Keys()
	if err := ks.CreateKey(ctx, &memory.ClientKey{ID: memory.NewID(), Prefix: "mp_x", Hash: strings.Repeat("ab", 32), User: "u1", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if out := check(exposedAddr); out != "" {
		t.Errorf("with a client key: log = %q, want nothing", out)
	}
}
