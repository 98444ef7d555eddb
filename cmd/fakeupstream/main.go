// Command fakeupstream serves memproxy's OpenAI-compatible fake upstream:
// deterministic chat, Responses and Anthropic Messages replies (streamed
// too), completions, embeddings and models, for smoke tests, demos and benchmarks without a real provider.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/memproxy/memproxy/internal/fakeupstream"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8081", "address to listen on (port 0 picks one)")
	echo := flag.Bool("echo-system", false, "add the instructions/system text received to default replies (shows what memproxy injected)")
	logBodies := flag.Bool("log-bodies", false, "log every request body to stderr")
	flag.Parse()
	if err := run(*listen, *echo, *logBodies); err != nil {
		fmt.Fprintln(os.Stderr, "fakeupstream:", err)
		os.Exit(1)
	}
}

func run(addr string, echo, logBodies bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	fake := fakeupstream.New()
	fake.Record = false
	fake.EchoSystem = echo
	if logBodies {
		fake.Log = os.Stderr
	}
	srv := &http.Server{Handler: fake.Handler()}
	fmt.Fprintf(os.Stderr, "fakeupstream listening on http://%s/v1\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if err := srv.Shutdown(context.Background()); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
