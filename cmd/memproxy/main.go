// Command memproxy is the memproxy binary. Subcommands:
//
//	memproxy [serve] [flags]   run the proxy (default)
//	memproxy serve --check     validate the policy and configuration, then exit
//	memproxy migrate           bring the store's and the queue's schema up to date
//	memproxy export --user U   write a user's memories as JSON or Markdown
//	memproxy reembed --yes     re-embed every memory with the configured embedder
//	memproxy reextract --yes   rebuild extracted facts from the turn log
//	memproxy bench overhead    measure what a user pays end to end over HTTP (docs/overhead.md)
//	memproxy eval locomo       replay LoCoMo against memproxy
//	memproxy ab report         the A/B report of a running memproxy
//
// Further subcommands plug into the switch in run.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "memproxy:", err)
		os.Exit(1)
	}
}

// run dispatches a subcommand; serve is the default, so bare flags
// ("memproxy --listen :9090") mean serve.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, stdout, stderr)
	case "eval":
		return evalCmd(ctx, args, stdout, stderr)
	case "ab":
		return abCmd(ctx, args, stdout, stderr)
	case "bench":
		return bench(ctx, args, stdout, stderr)
	case "migrate":
		return migrateCmd(ctx, args, stdout, stderr)
	case "export":
		return exportCmd(ctx, args, stdout, stderr)
	case "reembed":
		return reembedCmd(ctx, args, stdout, stderr)
	case "reextract":
		return reextractCmd(ctx, args, stdout, stderr)
	case "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown subcommand %q\n%s", cmd, usage)
}

const usage = `usage:
  memproxy [serve] [--listen addr] [--upstream url] [--policy file] [--db file] [--check]
  memproxy migrate [--db file] [--policy file]
  memproxy export --user U [--namespace NS] [--format json|markdown] [--out file] [--db file]
  memproxy reembed [--db file] [--policy file] [--yes]
  memproxy reextract [--db file] [--policy file] [--user U] [--yes]
  memproxy bench overhead [--duration 1m] [--rounds 5] [--store sqlite|postgres|both] [--api chat,responses,messages] [--json file]
  memproxy eval locomo --data FILE [...]
  memproxy ab report [--proxy URL] [...]
MEMPROXY_DATABASE_URL (PostgreSQL) wins over --db / MEMPROXY_DB.`
