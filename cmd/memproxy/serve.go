package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/store/sqlite"
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
	IndexMiB    int64 // <= 0: no bound
	Check       bool

	// AnthropicUpstream is the Anthropic Messages origin (no /v1); ""
	// means the upstream's origin.
	AnthropicUpstream string
}

func parseServeFlags(args []string, getenv func(string) string, stderr io.Writer) (*serveConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &serveConfig{}
	fs.StringVar(&cfg.Listen, "listen", envOr(getenv, "MEMPROXY_LISTEN", defaultListen), "address to listen on; loopback by default, \":8080\" for every interface, as containers need (MEMPROXY_LISTEN)")
	fs.StringVar(&cfg.Upstream, "upstream", envOr(getenv, "MEMPROXY_UPSTREAM", "https://api.openai.com/v1"), "OpenAI-compatible upstream base URL (MEMPROXY_UPSTREAM)")
	fs.StringVar(&cfg.AnthropicUpstream, "anthropic-upstream", getenv("MEMPROXY_ANTHROPIC_UPSTREAM"), "Anthropic Messages API origin without /v1, e.g. https://api.anthropic.com; default: the upstream's origin (MEMPROXY_ANTHROPIC_UPSTREAM)")
	fs.StringVar(&cfg.PolicyFile, "policy", getenv("MEMPROXY_POLICY"), "policy file (MEMPROXY_POLICY; default ./policy.yaml if present, else built-in defaults)")
	fs.StringVar(&cfg.DB, "db", envOr(getenv, "MEMPROXY_DB", "./memproxy.db"), "embedded SQLite database (MEMPROXY_DB)")
	indexMiB := int64(sqlite.DefaultIndexBytes >> 20)
	if v := getenv("MEMPROXY_INDEX_MEMORY"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("MEMPROXY_INDEX_MEMORY=%q: want a whole number of MiB", v)
		}
		indexMiB = n
	}
	fs.Int64Var(&cfg.IndexMiB, "index-memory", indexMiB, "MiB the store's loaded in-process search indexes may hold before the least recently searched users' are unloaded; 0 or less: no bound (MEMPROXY_INDEX_MEMORY)")
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
	if cfg.Check {
		if u, err := url.Parse(cfg.Upstream); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("upstream %q is not an http(s) URL", cfg.Upstream)
		}
		fmt.Fprintf(stdout, "policy %s ok; upstream %s\n", orDefault(cfg.PolicyFile), cfg.Upstream)
		return nil
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	a, err := buildServer(ctx, cfg, pol, log)
	if err != nil {
		return err
	}
	defer a.Close()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	log.Info("memproxy listening", "addr", ln.Addr().String(), "upstream", cfg.Upstream,
		"policy", orDefault(cfg.PolicyFile), "config", a.Describe())
	warnExposure(ctx, log, ln.Addr(), pol, a)
	err = a.Proxy.Serve(ctx, ln)
	log.Info("memproxy stopped")
	return err
}

// defaultListen keeps a fresh memproxy off the network: identity headers
// are trusted by default, so anyone who can reach it could name any user.
const defaultListen = "127.0.0.1:8080"

// exposed reports whether addr (a listener's address) accepts connections
// from other hosts: any address but a loopback one.
func exposed(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return false
	}
	return !ta.IP.IsLoopback()
}

// exposureRisk says what is wrong when memproxy is reachable from other
// hosts while it trusts identity headers and no client key binds callers
// to users: every caller may then read and write any user's memory by
// naming them. Empty when the combination is safe.
func exposureRisk(addr net.Addr, trustHeaders bool, activeKeys int) string {
	if !exposed(addr) || !trustHeaders || activeKeys > 0 {
		return ""
	}
	return "memproxy listens on " + addr.String() + " (not loopback) and trusts identity headers (identity.trust_headers) " +
		"with no client keys: anyone who reaches it can read and write any user's memory by naming the user; " +
		"listen on 127.0.0.1, put memproxy behind your app's backend, or set identity.trust_headers: false and issue client keys"
}

// warnExposure logs exposureRisk at start-up.
func warnExposure(ctx context.Context, log *slog.Logger, addr net.Addr, pol *policy.Policy, a *app.App) {
	keys := 0
	if ks, ok := a.Store.(interface{ Keys() memory.KeyStore }); ok {
		all, err := ks.Keys().ListKeys(ctx)
		if err != nil {
			log.Warn("cannot list client keys for the exposure check", "err", err)
		}
		for _, k := range all {
			if k.RevokedAt == nil {
				keys++
			}
		}
	}
	if msg := exposureRisk(addr, pol.Identity.TrustHeaders, keys); msg != "" {
		log.Warn(msg, "addr", addr.String())
	}
}

func orDefault(file string) string {
	if file == "" {
		return "(built-in defaults)"
	}
	return file
}

// buildServer wires the whole memproxy (store, embedder, queue, recall,
// proxy, admin) from the serve configuration.
func buildServer(ctx context.Context, cfg *serveConfig, pol *policy.Policy, log *slog.Logger) (*app.App, error) {
	o := app.Options{
		Upstream:    cfg.Upstream,
		Policy:      pol,
		DB:          cfg.DB,
		DatabaseURL: cfg.DatabaseURL,
		AdminToken:  cfg.AdminToken,
		IndexBytes:  indexBytes(cfg.IndexMiB),
		Logger:      log,
	}
	o.AnthropicUpstream = cfg.AnthropicUpstream
	return app.New(ctx, o)
}

// indexBytes maps --index-memory to the stores' Options.IndexBytes.
func indexBytes(mib int64) int64 {
	if mib <= 0 {
		return -1
	}
	return mib << 20
}
