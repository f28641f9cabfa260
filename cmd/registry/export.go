package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mattn/go-isatty"

	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/cli"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/plural"
)

func init() {
	register(command{Name: "export", Summary: "write the whole registry to one archive (.tar.gz)", Synopsis: "registry export [-o FILE] [flags]", Run: exportCommand})
}

// isTerminal reports whether w is a terminal, where gzip bytes would only
// garble the screen.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func exportCommand(ctx context.Context, env *environment, args []string) error {
	var cfg config.Export
	fs := flagSet(env, "export")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+program.Synopsis("export")+"\n\nWrites every document (withdrawn ones too) with its metadata to one gzip-compressed tar.")
		cli.PrintFlags(fs)
	}
	if err := parseFlags(env, fs, cfg.Options(), args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return errUsage
	}
	out := &cfg.Output
	if *out == "-" && isTerminal(env.Stdout) {
		fmt.Fprintln(env.Stderr, "registry export: standard output is a terminal; redirect it (registry export > backup.tar.gz) or give -o FILE")
		return errUsage
	}
	st, err := openExistingStore(ctx, cfg.Database)
	if err != nil {
		return fmt.Errorf("opening the database: %w", err)
	}
	defer st.Close()

	if *out == "-" {
		sum, err := archive.Export(ctx, st, env.Stdout)
		if err != nil {
			return err
		}
		reportExport(env.Stderr, sum, "standard output")
		return nil
	}
	sum, err := exportToFile(ctx, st, *out)
	if err != nil {
		return err
	}
	reportExport(env.Stderr, sum, *out)
	return nil
}

// exportToFile writes next to the target and renames at the end, so a
// failed export never leaves a partial archive under the requested name.
func exportToFile(ctx context.Context, st archive.Exporter, path string) (archive.Summary, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.partial")
	if err != nil {
		return archive.Summary{}, err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	sum, err := archive.Export(ctx, st, tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return sum, err
}

func reportExport(w io.Writer, sum archive.Summary, to string) {
	fmt.Fprintf(w, "exported %s and %s (%d withdrawn, %d bytes of documents) to %s\n", plural.Of(sum.Documents, "document"),
		plural.Of(sum.Publishers, "publisher"), sum.Withdrawn, sum.Bytes, to)
	if sum.Documents == 0 {
		fmt.Fprintln(w, "warning: the registry is empty; is --data-dir or --database-url / REGISTRY_DATABASE_URL the one you meant?")
	}
}
