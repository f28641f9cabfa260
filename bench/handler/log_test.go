package handlerbench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/agora-registry/registry/agora"
	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/translog"
)

// The transparency log's read side (docs/BENCHMARKS.md, "Transparency
// log"): lookups, tiles, the change feed, and a client's whole inclusion
// proof (lookup, checkpoint signature, tiles, tlog.CheckRecord), over
// profileDocs documents on SQLite.

func logHandler(b *testing.B) (http.Handler, []string, string) {
	h, hexes, vkey, _ := loggedHandler(b)
	return h, hexes, vkey
}

// loggedHandler also returns the log, integrated.
func loggedHandler(b *testing.B) (http.Handler, []string, string, *translog.Log) {
	b.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "registry.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	docs := make([]store.NewDocument, profileDocs)
	hexes := make([]string, profileDocs)
	for i := range docs {
		d, err := protocol.Prepare(storetest.GenerateDocument(i), 0)
		if err != nil {
			b.Fatal(err)
		}
		docs[i], hexes[i] = store.NewDocument{Document: d}, d.Sums.SHA1.Hex()
	}
	if _, err := st.PutMany(ctx, docs); err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	skey, err := translog.GenerateKey("bench")
	if err != nil {
		b.Fatal(err)
	}
	key, err := translog.ParseKey(skey)
	if err != nil {
		b.Fatal(err)
	}
	tl := translog.New(st, key, log)
	if err := tl.Integrate(ctx); err != nil {
		b.Fatal(err)
	}
	svc := registry.New(st, registry.Config{PublicURL: "http://bench", Logger: log, Log: tl})
	srv := api.New(svc, api.Config{Logger: log}, api.WithAuthenticator(api.NewAuthenticator(svc, true)))
	return srv.Handler(), hexes, key.VerifierKey, tl
}

// BenchmarkPublishNewLogged is BenchmarkPublishNew with the log's
// integrator running as `registry serve` runs it: its cpu-µs/op is the
// whole cost of a logged publish.
func BenchmarkPublishNewLogged(b *testing.B) {
	h, _, _, tl := loggedHandler(b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx, translog.DefaultPollInterval); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
	cpu := &cpuClock{b: b}
	next := newDocuments(b, cpu)
	runPublish(b, h, cpu, func(int) []byte { return next() }, http.StatusCreated)
	cpu.resume() // the tail of the queue counts too
	if err := tl.Integrate(ctx); err != nil {
		b.Fatal(err)
	}
	cpu.report()
}

func BenchmarkHandlerLogLookup(b *testing.B) {
	h, hexes, _ := logHandler(b)
	runHandler(b, h, hexes, func(hexes []string) func() *http.Request {
		return func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/log/lookup/"+hexes[rand.IntN(len(hexes))], nil)
		}
	}, 200)
}

func BenchmarkHandlerLogTile(b *testing.B) {
	h, hexes, _ := logHandler(b)
	runHandler(b, h, hexes, func([]string) func() *http.Request {
		return func() *http.Request { return httptest.NewRequest(http.MethodGet, "/log/tile/8/0/003", nil) }
	}, 200)
}

// BenchmarkHandlerChanges reads the feed 1,000 records at a time: records/s
// is 1,000 × ops/s.
func BenchmarkHandlerChanges(b *testing.B) {
	h, hexes, _ := logHandler(b)
	runHandler(b, h, hexes, func([]string) func() *http.Request {
		return func() *http.Request {
			return httptest.NewRequest(http.MethodGet, fmt.Sprintf("/api/v1/changes?after=%d&limit=1000", rand.IntN(profileDocs-1000)), nil)
		}
	}, 200)
}

// handlerSource is translog.Source over the handler, without sockets.
type handlerSource struct{ h http.Handler }

func (s handlerSource) get(path string) ([]byte, error) {
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	if w.Code != http.StatusOK {
		return nil, fmt.Errorf("%s: %d", path, w.Code)
	}
	return w.Body.Bytes(), nil
}
func (s handlerSource) LogCheckpoint(context.Context) ([]byte, error) {
	return s.get("/log/checkpoint")
}
func (s handlerSource) LogTile(_ context.Context, p string) ([]byte, error) {
	return s.get("/log/" + p)
}
func (s handlerSource) LogLookup(_ context.Context, d protocol.Digest) ([]byte, error) {
	return s.get("/log/lookup/" + d.Hex())
}

// BenchmarkLogProof is a client's whole inclusion proof of one document.
func BenchmarkLogProof(b *testing.B) {
	h, hexes, vkey := logHandler(b)
	v, err := agora.NewLogVerifier(handlerSource{h}, vkey)
	if err != nil {
		b.Fatal(err)
	}
	ds := make([]protocol.Digest, len(hexes))
	for i, x := range hexes {
		ds[i] = protocol.MustParseDigest(x)
	}
	cpu := &cpuClock{b: b}
	b.ReportAllocs()
	b.ResetTimer()
	cpu.start()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := v.Prove(context.Background(), ds[rand.IntN(len(ds))]); err != nil {
				b.Fatal(err)
			}
		}
	})
	cpu.report()
}

// BenchmarkLogIntegrate integrates a queued batch of 256 records (an
// import's backlog, or a migration's): records/s is 256 / (ns/op).
func BenchmarkLogIntegrate(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			var st store.Store
			if engine == "postgres" {
				st = storebench.OpenPostgres(b)
			} else {
				s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "registry.db"))
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { s.Close() })
				st = s
			}
			skey, _ := translog.GenerateKey("bench")
			key, err := translog.ParseKey(skey)
			if err != nil {
				b.Fatal(err)
			}
			tl := translog.New(st, key, slog.New(slog.NewTextHandler(io.Discard, nil)))
			ctx := context.Background()
			next := 0
			cpu := &cpuClock{b: b}
			cpu.start()
			for b.Loop() {
				b.StopTimer()
				cpu.pause()
				docs := storebench.PrepareCorpus(b, next, next+store.MaxLogBatch)
				next += store.MaxLogBatch
				if _, err := st.PutMany(ctx, docs); err != nil {
					b.Fatal(err)
				}
				cpu.resume()
				b.StartTimer()
				if err := tl.Integrate(ctx); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report()
		})
	}
}
