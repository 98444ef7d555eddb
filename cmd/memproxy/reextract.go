package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/memproxy/memproxy/background"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/sqlite"
)

// reextractCmd rebuilds the extracted facts of every user (or one) from
// the turn log with the extraction the binary ships now: what a database
// written by an older version needs for today's facts. Like reembed it is
// an offline operation (memproxy stopped); without --yes it only says
// what it would do.
func reextractCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var yes bool
	var user string
	f, err := parseStoreCmd("reextract", args, os.Getenv, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&yes, "yes", false, "do it (memproxy must be stopped); without it, only say what would change")
		fs.StringVar(&user, "user", "", "only this user (default: every user)")
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
	o, ok, err := f.recordedEmbedder(ctx, db)
	db.Close()
	if err != nil {
		return fmt.Errorf("reextract: %w", err)
	}
	if !ok {
		return fmt.Errorf("reextract: %s holds no memproxy data yet", f.backend())
	}
	e, pol, err := policyEmbedder(f)
	if err != nil {
		return err
	}
	defer closeEmbedder(e)
	if e.Model() != o.Model || e.Dim() != o.Dim {
		return fmt.Errorf("reextract: the policy's embedder %s/%d is not the store's %s/%d; run memproxy reembed first", e.Model(), e.Dim(), o.Model, o.Dim)
	}
	st, err := f.openStore(ctx, o)
	if err != nil {
		return err
	}
	defer st.Close()
	scopes, err := st.Scopes(ctx)
	if err != nil {
		return fmt.Errorf("reextract: %w", err)
	}
	if user != "" {
		var mine []memory.Scope
		for _, s := range scopes {
			if s.User == user {
				mine = append(mine, s)
			}
		}
		scopes = mine
	}
	if !yes {
		return fmt.Errorf("reextract: would rebuild the extracted facts of %d scopes of %s from their turn logs; stop memproxy, then run again with --yes", len(scopes), f.backend())
	}
	// The queue is built for its ingest functions only: never started, it
	// inserts no job.
	cfg := background.Config{Store: st, Admin: st, Embedder: e, Policy: pol, Logger: slog.New(slog.NewTextHandler(stderr, nil))}
	var riverDB *sql.DB
	if f.DatabaseURL != "" {
		cfg.Driver, cfg.DB = background.DriverPostgres, st.(interface{ DB() *sql.DB }).DB()
	} else {
		if riverDB, err = sqlite.OpenRiverDB(f.DB); err != nil {
			return err
		}
		defer riverDB.Close()
		sp, err := sqlite.OpenSpool(ctx, sqlite.SpoolPath(f.DB))
		if err != nil {
			return err
		}
		defer sp.Close()
		cfg.Driver, cfg.DB, cfg.Spool = background.DriverSQLite, riverDB, sp
	}
	q, err := background.New(cfg)
	if err != nil {
		return err
	}
	var total background.ReextractResult
	for _, s := range scopes {
		r, err := q.Reextract(ctx, s)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "  %s: %d turns, %d facts removed, %d extracted\n", s, r.Turns, r.Removed, r.Facts)
		total.Turns += r.Turns
		total.Removed += r.Removed
		total.Facts += r.Facts
	}
	fmt.Fprintf(stdout, "re-extracted %d scopes of %s: %d turns read, %d facts removed, %d extracted\n",
		len(scopes), f.backend(), total.Turns, total.Removed, total.Facts)
	return nil
}
