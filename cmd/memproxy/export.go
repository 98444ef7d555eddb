package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/memproxy/memproxy/admin"
)

// exportCmd writes a user's memories and turn log as the admin API's
// export (JSON, re-importable, or a Markdown note), reading the store
// directly: no server, no admin token. It opens the store for the embedder
// the store records, so an export works even after the policy's embedder
// changed.
func exportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var user, ns, format, out string
	f, err := parseStoreCmd("export", args, os.Getenv, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&user, "user", "", "user to export (required)")
		fs.StringVar(&ns, "namespace", "", "only this namespace (default: every namespace of the user)")
		fs.StringVar(&format, "format", "json", "json (memproxy.export.v1, importable) or markdown")
		fs.StringVar(&out, "out", "", "write to this file instead of standard output")
	})
	if err != nil {
		if isHelp(err) {
			return nil
		}
		return err
	}
	if user == "" {
		return fmt.Errorf("export: --user is required")
	}
	if format != "json" && format != "markdown" {
		return fmt.Errorf("export: --format %q is not json or markdown", format)
	}
	db, err := f.rawDB(true)
	if err != nil {
		return err
	}
	o, ok, err := f.recordedEmbedder(ctx, db)
	db.Close()
	if err != nil {
		return err
	}
	pol, err := loadPolicy(f.PolicyFile)
	if err != nil {
		return err
	}
	if !ok {
		// Open records an embedder on first use: none means no store yet.
		return fmt.Errorf("export: %s holds no memproxy data yet", f.backend())
	}
	st, err := f.openStore(ctx, o)
	if err != nil {
		return err
	}
	defer st.Close()
	ex, err := admin.ExportUser(ctx, st, pol, user, ns)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	var body []byte
	if format == "markdown" {
		body = []byte(admin.RenderMarkdown(ex, pol))
	} else if body, err = json.MarshalIndent(ex, "", "  "); err != nil {
		return fmt.Errorf("export: %w", err)
	} else {
		body = append(body, '\n')
	}
	if out == "" {
		_, err = stdout.Write(body)
		return err
	}
	// The export is personal data: readable by the owner only.
	if err := os.WriteFile(out, body, 0o600); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stderr, "exported %d memories and %d turns of %s to %s\n", len(ex.Memories), len(ex.Turns), user, out)
	return nil
}
