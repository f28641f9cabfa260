// Command benchrun is the registry's benchmark harness: it builds the
// registry, seeds a store, runs load scenarios against it beside baselines
// (a minimal net/http server, nginx, pgbench) and writes docs/BENCHMARKS.md.
//
//	make bench N=10000 ENGINES=sqlite,postgres        (from the repository root)
//	make bench N=10000 ENGINES=sqlite SCENARIOS=hot,search
//
// It lives in the bench module beside the registry's (bench/go.mod), so its
// load generator and tools stay out of the product's dependencies; its
// paths (-repo, -results, -report) are relative to the repository root,
// where make runs it.
//
// `benchrun baseline-server -addr A -dir D` is the net/http baseline the
// harness starts as a separate process.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agora-registry/registry/bench/harness"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if len(os.Args) > 1 && os.Args[1] == "baseline-server" {
		err = baselineServer(ctx, os.Args[2:])
	} else {
		err = run(ctx, os.Args[1:])
	}
	switch {
	case errors.Is(err, flag.ErrHelp): // -h: the usage is printed, nothing failed
	case err != nil:
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

func baselineServer(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("baseline-server", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	dir := fs.String("dir", "", "directory of <hex>.md documents to serve")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return harness.ServeBaseline(ctx, *addr, *dir)
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("benchrun", flag.ContinueOnError)
	n := fs.Int("n", 10000, "documents to seed (10000, 100000, 1000000)")
	engines := fs.String("engines", "sqlite,postgres", "engines to measure: sqlite, postgres")
	scenarios := fs.String("scenarios", "all", "scenarios or groups (raw, search, publish): "+strings.Join(harness.AllScenarios, ","))
	duration := fs.Duration("d", 6*time.Second, "length of each measurement (saturation and fixed rate each)")
	conns := fs.Int("c", 32, "connections (and pgbench clients); publish always uses 16")
	repo := fs.String("repo", ".", "repository root to build ./cmd/registry from")
	work := fs.String("work", "", "scratch directory (default: a fresh temporary directory, removed afterwards)")
	results := fs.String("results", "docs/benchmarks", "directory of the JSON runs the report is built from")
	report := fs.String("report", "docs/BENCHMARKS.md", "report to rewrite (between its benchrun markers)")
	serveFlags := fs.String("serve-flags", "", "extra flags for registry serve, space separated (e.g. \"--pprof-addr 127.0.0.1:6060\")")
	noBaselines := fs.Bool("no-baselines", false, "skip the net/http and nginx baselines")
	adminDSN := fs.String("postgres", firstEnv("REGISTRY_BENCH_POSTGRES_DSN", "REGISTRY_TEST_POSTGRES_DSN", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL admin URL (env REGISTRY_BENCH_POSTGRES_DSN, else REGISTRY_TEST_POSTGRES_DSN)")
	reportOnly := fs.Bool("report-only", false, "only rebuild the report from the stored runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *reportOnly {
		return harness.WriteReport(*results, *report)
	}
	list, err := harness.ExpandScenarios(*scenarios)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	workDir := *work
	if workDir == "" {
		if workDir, err = os.MkdirTemp("", "benchrun-"); err != nil {
			return err
		}
		defer os.RemoveAll(workDir)
	}
	root, err := filepath.Abs(*repo)
	if err != nil {
		return err
	}
	return harness.Run(ctx, harness.Options{
		N:           *n,
		Engines:     strings.Split(*engines, ","),
		Scenarios:   list,
		Duration:    *duration,
		Connections: *conns,
		RepoRoot:    root,
		WorkDir:     workDir,
		ResultsDir:  *results,
		ReportPath:  *report,
		AdminDSN:    *adminDSN,
		SelfBin:     self,
		ServeFlags:  strings.Fields(*serveFlags),
		NoBaselines: *noBaselines,
		Log:         slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
}

func firstEnv(keysThenDefault ...string) string {
	for _, k := range keysThenDefault[:len(keysThenDefault)-1] {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return keysThenDefault[len(keysThenDefault)-1]
}
