// Package fault holds memproxy's fault, load and hostile-input tests: a
// real App (the wiring `memproxy serve` uses) in front of the repository's
// fake upstream, on loopback, with the store's database made to hang or
// refuse, an embedder that hangs, bodies of 10 MB and thousands of
// concurrent streams. Each test is bounded in time.
package fault

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/policy"
)

// childEnv, when set in the environment, makes TestChildMemproxy serve a
// memproxy in front of the upstream URL it holds instead of testing.
const childEnv = "MEMPROXY_FAULT_CHILD_UPSTREAM"

// TestChildMemproxy is the subprocess of the memory tests: it serves an
// App on loopback, prints "addr=<host:port>", then answers each "idle"
// line on stdin, once the background queue is idle, with
// "hwm=<kB> rss=<kB>" (peak and current resident size from /proc).
func TestChildMemproxy(t *testing.T) {
	up := os.Getenv(childEnv)
	if up == "" {
		t.Skip("runs only as the subprocess of the memory tests")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pol := policy.Default()
	if d, err := time.ParseDuration(os.Getenv("MEMPROXY_FAULT_CHILD_SINK_TIMEOUT")); err == nil {
		pol.Server.SinkTimeout = policy.Duration(d)
	}
	a, err := app.New(ctx, app.Options{
		Upstream: up, Policy: pol, DB: filepath.Join(os.Getenv("MEMPROXY_FAULT_CHILD_DIR"), "m.db"),
		DatabaseURL: os.Getenv("MEMPROXY_FAULT_CHILD_DSN"),
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	defer a.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	go a.Proxy.Serve(ctx, ln)
	fmt.Printf("addr=%s\n", ln.Addr())
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		wait := a.Queue.WaitIdle
		switch sc.Text() {
		case "idle":
		case "ingested":
			wait = a.Queue.WaitIngested
		default:
			continue
		}
		wctx, wcancel := context.WithTimeout(ctx, 60*time.Second)
		err := wait(wctx)
		wcancel()
		hwm, rss := procMem("VmHWM"), procMem("VmRSS")
		fmt.Printf("hwm=%d rss=%d err=%v\n", hwm, rss, err)
	}
	os.Exit(0)
}

// procMem reads a "Vm..." line of /proc/self/status in kB.
func procMem(field string) int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return -1
}

// child is a running subprocess memproxy.
type child struct {
	t    *testing.T
	base string
	in   io.WriteCloser
	out  *bufio.Scanner
	cmd  *exec.Cmd
}

func startChild(t *testing.T, upstream string) *child {
	return startChildIn(t, upstream, t.TempDir())
}

// startChildIn starts a child memproxy whose SQLite files are in dir;
// env adds MEMPROXY_FAULT_CHILD_DSN (PostgreSQL instead) or
// MEMPROXY_FAULT_CHILD_SINK_TIMEOUT (server.sink_timeout) settings.
func startChildIn(t *testing.T, upstream, dir string, env ...string) *child {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestChildMemproxy$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), childEnv+"="+upstream, "MEMPROXY_FAULT_CHILD_DIR="+dir), env...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait(); cancel() })
	c := &child{t: t, in: in, out: bufio.NewScanner(outp), cmd: cmd}
	for c.out.Scan() {
		if addr, ok := strings.CutPrefix(c.out.Text(), "addr="); ok {
			c.base = "http://" + addr
			return c
		}
		if strings.HasPrefix(c.out.Text(), "error") {
			t.Fatal(c.out.Text())
		}
	}
	t.Fatal("child memproxy did not start")
	return nil
}

// idle waits for the child's queue to be idle and returns its peak and
// current resident size in bytes.
func (c *child) idle() (hwm, rss int64) {
	c.t.Helper()
	return c.wait("idle")
}

// ingested waits, at most 60 s, for every turn the child accepted to be
// ingested (Queue.WaitIngested), and returns what idle returns.
func (c *child) ingested() (hwm, rss int64) {
	c.t.Helper()
	return c.wait("ingested")
}

func (c *child) wait(what string) (hwm, rss int64) {
	c.t.Helper()
	fmt.Fprintln(c.in, what)
	for c.out.Scan() {
		var h, r int64
		line, e, _ := strings.Cut(c.out.Text(), " err=")
		if n, _ := fmt.Sscanf(line, "hwm=%d rss=%d", &h, &r); n == 2 {
			if e != "<nil>" {
				c.t.Errorf("child queue not %s: %s (peak resident %d MB)", what, e, h>>10)
			}
			return h << 10, r << 10
		}
	}
	c.t.Fatal("child memproxy gone")
	return 0, 0
}

func (c *child) post(path string, body io.Reader, n int64) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.base+path, body)
	req.ContentLength = n
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Memproxy-User", "hostile")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}
