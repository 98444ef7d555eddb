package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/postgres"
	"github.com/memproxy/memproxy/store/sqlite"
)

// reembedCmd re-embeds every memory with the embedder the policy
// configures now and records it as the store's, which is what a store
// refusing to open with "embedder mismatch" needs after the embedder model
// or dimension changed. It rewrites every vector in one transaction (a
// failure changes nothing), so memproxy must be stopped; without --yes it
// only says what it would do.
func reembedCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var yes bool
	f, err := parseStoreCmd("reembed", args, os.Getenv, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&yes, "yes", false, "do it (memproxy must be stopped); without it, only say what would change")
	})
	if err != nil {
		if isHelp(err) {
			return nil
		}
		return err
	}
	db, err := f.rawDB(true)
	if err != nil {
		return err
	}
	from, ok, err := f.recordedEmbedder(ctx, db)
	var n int
	if err == nil && ok {
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM memories`).Scan(&n)
	}
	db.Close()
	if err != nil {
		return fmt.Errorf("reembed: %w", err)
	}
	if !ok {
		return fmt.Errorf("reembed: %s holds no memproxy data yet", f.backend())
	}
	e, _, err := policyEmbedder(f)
	if err != nil {
		return err
	}
	defer closeEmbedder(e)
	to := memory.OpenOptions{Model: e.Model(), Dim: e.Dim()}
	if from == to {
		fmt.Fprintf(stdout, "%s is already embedded with %s (%d dimensions): nothing to do\n", f.backend(), to.Model, to.Dim)
		return nil
	}
	plan := fmt.Sprintf("%d memories of %s from %s (%d dimensions) to %s (%d dimensions)", n, f.backend(), from.Model, from.Dim, to.Model, to.Dim)
	if !yes {
		return fmt.Errorf("reembed: would re-embed %s; stop memproxy, then run again with --yes", plan)
	}
	fmt.Fprintf(stderr, "re-embedding %s\n", plan)
	fn := embedFunc(e)
	progress := func(done, total int) { fmt.Fprintf(stderr, "  %d/%d\n", done, total) }
	if f.DatabaseURL != "" {
		err = postgres.Reembed(ctx, f.DatabaseURL, to, postgres.EmbedFunc(fn), progress)
	} else {
		err = sqlite.Reembed(ctx, f.DB, to, sqlite.EmbedFunc(fn), progress)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s is now embedded with %s (%d dimensions)\n", f.backend(), to.Model, to.Dim)
	return nil
}

// embedFunc embeds memories the way they were embedded when written: an
// event by its user message (the ingest path's userPart: the text before
// "\nAssistant: "), every other memory by its text.
func embedFunc(e embed.Embedder) func(ctx context.Context, ms []*memory.Memory) ([][]float32, error) {
	return func(ctx context.Context, ms []*memory.Memory) ([][]float32, error) {
		texts := make([]string, len(ms))
		for i, m := range ms {
			texts[i] = embedText(m)
		}
		return e.Embed(ctx, texts)
	}
}

func embedText(m *memory.Memory) string {
	if m.Tier == memory.TierEvent {
		u, _, _ := strings.Cut(m.Text, "\nAssistant: ")
		return u
	}
	return m.Text
}
