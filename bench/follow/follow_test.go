package followbench_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/translog"
)

// Run with (from bench/): go test -run '^$' -bench FollowerCatchUp
// -benchtime 1x ./follow/ ; REGISTRY_BENCH_DOCS sets the upstream's size
// (2000 by default). docs/s is the whole catch-up: verifying checkpoints
// and records, fetching every document, storing it and its record in this
// registry's own log.

func BenchmarkFollowerCatchUpSQLite(b *testing.B) {
	benchCatchUp(b, func(b *testing.B) store.Store { return storebench.OpenSQLite(b) })
}

func BenchmarkFollowerCatchUpPostgres(b *testing.B) {
	benchCatchUp(b, func(b *testing.B) store.Store { return storebench.OpenPostgres(b) })
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))

// logged returns a registry service on st with its own log, integrated
// in the background as `registry serve` does until the benchmark ends.
func logged(b *testing.B, st store.Store, name string) (*registry.Service, *translog.Log) {
	skey, err := translog.GenerateKey(name)
	if err != nil {
		b.Fatal(err)
	}
	key, err := translog.ParseKey(skey)
	if err != nil {
		b.Fatal(err)
	}
	tl := translog.New(st, key, quiet)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx, translog.DefaultPollInterval); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
	return registry.New(st, registry.Config{PublicURL: "http://" + name, Logger: quiet, Log: tl}), tl
}

// upstream serves n corpus documents, logged, on a loopback socket.
func upstream(b *testing.B, n int) string {
	st := storebench.OpenSQLite(b)
	storebench.Seed(b, st, n)
	svc, tl := logged(b, st, "upstream")
	if err := tl.Integrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(api.New(svc, api.Config{Logger: quiet}).Handler())
	b.Cleanup(srv.Close)
	return srv.URL
}

func benchCatchUp(b *testing.B, open func(*testing.B) store.Store) {
	n := storebench.BenchDocs()
	up := upstream(b, n)
	ctx := context.Background()
	var took time.Duration
	for range b.N {
		b.StopTimer()
		st := open(b)
		svc, _ := logged(b, st, "follower")
		c, err := client.New(up, &http.Client{Timeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		f := follow.New(c, svc, st, quiet, follow.Timing{})
		b.StartTimer()
		start := time.Now()
		for first := true; first || f.Status().Lag > 0; first = false {
			if err := f.Step(ctx); err != nil {
				b.Fatal(err)
			}
		}
		took += time.Since(start)
		b.StopTimer()
		if stats, err := st.Stats(ctx); err != nil || stats.Documents != n {
			b.Fatalf("the follower stored %+v (%v), want %d documents", stats, err, n)
		}
	}
	b.ReportMetric(float64(n*b.N)/took.Seconds(), "docs/s")
}
