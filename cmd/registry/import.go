package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/cli"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

func init() {
	register(command{Name: "import", Summary: "load an archive or a directory of .md files (idempotent)", Synopsis: "registry import [flags] ARCHIVE|DIR...", Run: importCommand})
}

func importCommand(ctx context.Context, env *environment, args []string) error {
	var cfg config.Import
	fs := flagSet(env, "import")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+program.Synopsis("import")+"\n\nLoads archives written by `registry export` (or plain tars of documents/<hex>.md) and\ndirectories of .md files (recursively; links and special files are refused). Importing twice\nchanges nothing, and an import never changes a document already stored (see --apply-withdrawals and --keep-lifecycle).\nRestore a backup of this registry with --keep-publishers --keep-lifecycle.")
		cli.PrintFlags(fs)
	}
	if err := parseFlags(env, fs, cfg.Options(), args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	st, embedded, err := openStore(ctx, cfg.Database)
	if err != nil {
		return fmt.Errorf("opening the database: %w", err)
	}
	defer st.Close()
	if err := requireImportPublisher(ctx, st, cfg.Publisher); err != nil {
		return err
	}
	docs, err := importDocuments(st, embedded, cfg)
	if err != nil {
		return err
	}

	lim := archive.Limits{MaxDocumentBytes: cfg.MaxDocumentBytes, MaxEntries: cfg.MaxEntries, MaxArchiveBytes: int64(cfg.MaxArchiveBytes),
		Writers: importWriters(cfg.Writers, st.Engine()), Publisher: cfg.Publisher, KeepPublishers: cfg.KeepPublishers,
		ApplyWithdrawals: cfg.ApplyWithdrawals, KeepLifecycle: cfg.KeepLifecycle}
	failed := 0
	for _, path := range fs.Args() {
		start := time.Now()
		rep, err := archive.ImportPath(ctx, docs, path, lim)
		printImportReport(env.Stdout, env.Stderr, path, rep, time.Since(start))
		if err != nil {
			docs.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		failed += rep.Failed
	}
	if err := docs.Close(); err != nil {
		fmt.Fprintf(env.Stderr, "warning: writing the blob files: %v (those documents are served from the database until first read)\n", err)
	}
	if failed > 0 {
		return fmt.Errorf("%s not imported (listed above); everything else was", plural.Count(failed, "entry was", "entries were"))
	}
	return nil
}

// importWriters is how many PutMany batches an import keeps in flight: two
// on PostgreSQL, whose server works on one batch while the other commits,
// one on SQLite, which takes one writer at a time (figures:
// docs/benchmarks/import-throughput.md).
func importWriters(flag int, engine string) int {
	switch {
	case flag > 0:
		return flag
	case engine == "postgres":
		return 2
	}
	return 1
}

func printImportReport(stdout, stderr io.Writer, path string, rep archive.Report, took time.Duration) {
	for _, e := range rep.Errors {
		fmt.Fprintf(stderr, "refused %s\n", e.Error())
	}
	if hidden := rep.Failed - len(rep.Errors); hidden > 0 {
		fmt.Fprintf(stderr, "... and %s more refused\n", plural.Count(hidden, "entry", "entries"))
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	total := rep.New + rep.Existing
	rate := ""
	if secs := took.Seconds(); secs > 0 && total > 0 {
		rate = fmt.Sprintf(", %.0f documents/s", float64(total)/secs)
	}
	skipped := ""
	if rep.WithdrawalsSkipped > 0 {
		skipped = ", " + plural.Of(rep.WithdrawalsSkipped, "withdrawal") + " not applied"
	}
	if rep.LifecycleRestored > 0 {
		skipped += ", " + plural.Count(rep.LifecycleRestored, "status", "statuses") + " restored"
	}
	if rep.PublishersCreated > 0 {
		skipped += ", " + plural.Count(rep.PublishersCreated, "publisher account", "publisher accounts") + " created"
	}
	fmt.Fprintf(stdout, "%s: %d new, %d existing, %d withdrawn%s, %d failed (%s%s)\n",
		path, rep.New, rep.Existing, rep.Withdrawn, skipped, rep.Failed, took.Round(time.Millisecond), rate)
}

// blobFilling is what an import writes through: the store, filling a blob
// directory or not.
type blobFilling interface {
	archive.Target
	Close() error
}

// importDocuments fills the blob directory the server reads: on the
// embedded store it is under the same --data-dir; on PostgreSQL only a
// --blob-dir named explicitly is (the importing machine's ./data/blobs is
// usually no replica's).
func importDocuments(st store.Store, embedded bool, cfg config.Import) (blobFilling, error) {
	if !embedded && cfg.BlobDir == "" {
		return noBlobs{st}, nil
	}
	files, err := blobs.Open(cfg.Blobs.Dir(cfg.Database), int64(cfg.BlobCacheBytes))
	if err != nil {
		return nil, err
	}
	return registry.FillingBlobs(st, files), nil
}

type noBlobs struct{ store.Store }

func (noBlobs) Close() error { return nil }

// requireImportPublisher refuses a --publisher without an account before
// anything is written: a typo would otherwise file every document under a
// name no token can ever publish as.
func requireImportPublisher(ctx context.Context, st store.Store, name string) error {
	if name == config.DefaultImportPublisher {
		return nil
	}
	_, err := st.GetPublisher(ctx, name)
	if errors.Is(err, store.ErrPublisherUnknown) {
		return fmt.Errorf("--publisher %q: no publisher account has this name; create it first (registry publisher create %s) or leave --publisher out (the documents are then filed under %q)", name, name, config.DefaultImportPublisher)
	}
	return err
}
