package handlerbench

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/translog"
)

// BenchmarkPublishNewPostgres16 publishes new documents from 16 goroutines
// through the handler chain into PostgreSQL with the transparency log's
// integrator running, as `registry serve` does: ns/op is the inverse of
// the publish rate the load harness's publish-new measures, without its
// sockets, and cpu-µs/op is the whole process's CPU per publish.
func BenchmarkPublishNewPostgres16(b *testing.B) {
	st := storebench.OpenPostgres(b)
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, cancel := context.WithCancel(context.Background())
	skey, err := translog.GenerateKey("bench")
	if err != nil {
		b.Fatal(err)
	}
	key, err := translog.ParseKey(skey)
	if err != nil {
		b.Fatal(err)
	}
	tl := translog.New(st, key, log)
	done := make(chan struct{})
	go func() { tl.Run(ctx, translog.DefaultPollInterval); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
	svc := registry.New(st, registry.Config{PublicURL: "http://bench", Logger: log, Log: tl})
	h := api.New(svc, api.Config{Logger: log}, api.WithAuthenticator(api.NewAuthenticator(svc, true))).Handler()

	bodies := make([][]byte, b.N)
	for i := range bodies {
		bodies[i] = storetest.GenerateDocument(i)
	}
	var next atomic.Int64
	cpu := &cpuClock{b: b}
	b.SetParallelism(8) // 16 goroutines on two cores, as the harness's 16 clients
	b.ReportAllocs()
	b.ResetTimer()
	cpu.start()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r := httptest.NewRequest(http.MethodPost, "/api/v1/protocols", bytes.NewReader(bodies[next.Add(1)-1]))
			r.Header.Set("Content-Type", "text/markdown; charset=utf-8")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusCreated {
				b.Fatalf("status %d: %s", w.Code, w.Body.String())
			}
		}
	})
	if err := tl.Integrate(ctx); err != nil { // the tail of the queue counts too
		b.Fatal(err)
	}
	b.StopTimer()
	cpu.report()
}
