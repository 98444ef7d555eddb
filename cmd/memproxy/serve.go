package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

// serveConfig is the serve command's configuration: flags win over
// environment variables, which win over defaults.
type serveConfig struct {
	Listen      string
	Upstream    string
	PolicyFile  string // "" = built-in defaults
	DB          string
	DatabaseURL string
	AdminToken  string
	Check       bool
}

func parseServeFlags(args []string, getenv func(string) string, stderr io.Writer) (*serveConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &serveConfig{}
	fs.StringVar(&cfg.Listen, "listen", envOr(getenv, "MEMPROXY_LISTEN", ":8080"), "address to listen on (MEMPROXY_LISTEN)")
	fs.StringVar(&cfg.Upstream, "upstream", envOr(getenv, "MEMPROXY_UPSTREAM", "https://api.openai.com/v1"), "OpenAI-compatible upstream base URL (MEMPROXY_UPSTREAM)")
	fs.StringVar(&cfg.PolicyFile, "policy", getenv("MEMPROXY_POLICY"), "policy file (MEMPROXY_POLICY; default ./policy.yaml if present, else built-in defaults)")
	fs.StringVar(&cfg.DB, "db", envOr(getenv, "MEMPROXY_DB", "./memproxy.db"), "embedded SQLite database (MEMPROXY_DB)")
	fs.BoolVar(&cfg.Check, "check", false, "validate the policy and configuration, then exit")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	cfg.DatabaseURL = getenv("MEMPROXY_DATABASE_URL")
	cfg.AdminToken = getenv("MEMPROXY_ADMIN_TOKEN")
	if cfg.PolicyFile == "" {
		if _, err := os.Stat("policy.yaml"); err == nil {
			cfg.PolicyFile = "policy.yaml"
		}
	}
	return cfg, nil
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

func loadPolicy(file string) (*policy.Policy, error) {
	if file == "" {
		return policy.Default(), nil
	}
	return policy.LoadFile(file)
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseServeFlags(args, os.Getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	pol, err := loadPolicy(cfg.PolicyFile)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	app, err := buildServer(ctx, cfg, pol, log)
	if err != nil {
		return err
	}
	defer app.Close()
	if cfg.Check {
		fmt.Fprintf(stdout, "policy %s ok; upstream %s\n", orDefault(cfg.PolicyFile), cfg.Upstream)
		return nil
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	log.Info("memproxy listening", "addr", ln.Addr().String(), "upstream", cfg.Upstream, "policy", orDefault(cfg.PolicyFile))
	err = app.Proxy.Serve(ctx, ln)
	log.Info("memproxy stopped")
	return err
}

func orDefault(file string) string {
	if file == "" {
		return "(built-in defaults)"
	}
	return file
}

// app is everything serve runs; Close stops it in reverse order of start.
type app struct {
	Proxy   *proxy.Server
	closers []func() error
}

func (a *app) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	return errors.Join(errs...)
}

// buildServer wires the proxy and its dependencies. It is the one place
// to plug in the store, the background queue, recall and the admin API.
func buildServer(ctx context.Context, cfg *serveConfig, pol *policy.Policy, log *slog.Logger) (*app, error) {
	a := &app{}
	var upstreamKey string
	if pol.Upstream.APIKeyEnv != "" {
		upstreamKey = os.Getenv(pol.Upstream.APIKeyEnv)
	}
	// TODO(lead): Salt comes from the store (Admin.SetMetaIfAbsent("salt",
	// random)) so bearer-hash identities and A/B arms survive restarts.
	p, err := proxy.New(proxy.Config{
		Upstream:    cfg.Upstream,
		Policy:      pol,
		Sink:        logSink{log: log},
		Logger:      log,
		AdminToken:  cfg.AdminToken,
		UpstreamKey: upstreamKey,
	})
	if err != nil {
		a.Close()
		return nil, err
	}
	a.Proxy = p
	return a, nil
}

// logSink logs captured turns (ids and sizes only) until the background
// queue is wired in.
type logSink struct{ log *slog.Logger }

var _ proxy.TurnSink = logSink{}

func (s logSink) Enqueue(ctx context.Context, t *memory.Turn) error {
	s.log.DebugContext(ctx, "turn captured", "request_id", t.RequestID, "scope", t.Scope.String(), "user_chars", len(t.User), "assistant_chars", len(t.Assistant))
	return nil
}
