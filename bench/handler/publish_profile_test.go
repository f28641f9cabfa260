package handlerbench

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// The publish benchmarks drive POST /api/v1/protocols through the real
// handler chain (middleware, decoding, protocol.Prepare, the service, a
// SQLite store, the JSON answer) one request at a time, so ns/op is close
// to the CPU one publish costs. Each also reports cpu-µs/op from
// getrusage (user + system time of the whole process, GC included), the
// figure that matters on a machine whose cores are shared:
//
//	go test -run '^$' -bench Publish -benchmem -cpuprofile cpu.out ./handler (from bench/)
//	go tool pprof -top cpu.out
//
// BenchmarkPublishStore* are the store's Put alone on the same documents,
// so the registry's own share is the handler's figure minus the store's.

// BenchmarkPublishExisting re-publishes stored documents (200): validate,
// hash, parse metadata, and an insert that finds the row.
func BenchmarkPublishExisting(b *testing.B) {
	h, _ := handlerUnderTest(b)
	bodies := make([][]byte, profileDocs)
	for i := range bodies {
		bodies[i] = storetest.GenerateDocument(i)
	}
	runPublish(b, h, &cpuClock{b: b}, func(i int) []byte { return bodies[i%len(bodies)] }, http.StatusOK)
}

// BenchmarkPublishNew publishes documents the store lacks (201).
func BenchmarkPublishNew(b *testing.B) {
	h, _ := handlerUnderTest(b)
	cpu := &cpuClock{b: b}
	next := newDocuments(b, cpu)
	runPublish(b, h, cpu, func(int) []byte { return next() }, http.StatusCreated)
}

// newDocuments returns a source of corpus documents numbered after the
// seeded ones. b.Loop does not tell N in advance, so they are made in
// chunks with the clocks stopped.
func newDocuments(b *testing.B, cpu *cpuClock) func() []byte {
	var chunk [][]byte
	i := profileDocs
	return func() []byte {
		if len(chunk) == 0 {
			b.StopTimer()
			cpu.pause()
			for range 1000 {
				chunk = append(chunk, storetest.GenerateDocument(i))
				i++
			}
			cpu.resume()
			b.StartTimer()
		}
		d := chunk[0]
		chunk = chunk[1:]
		return d
	}
}

func runPublish(b *testing.B, h http.Handler, cpu *cpuClock, body func(i int) []byte, want int) {
	b.ReportAllocs()
	cpu.start()
	for i := 0; b.Loop(); i++ {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/protocols", bytes.NewReader(body(i)))
		r.Header.Set("Content-Type", "text/markdown; charset=utf-8")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			b.Fatalf("status %d: %s", w.Code, w.Body.String())
		}
	}
	cpu.report()
}

// BenchmarkPublishNoStore is the registry's own CPU per publish: the same
// handler chain over a store whose Put does nothing but answer "created",
// so neither SQLite nor a network round trip is in the figure.
func BenchmarkPublishNoStore(b *testing.B) {
	bodies := make([][]byte, profileDocs)
	for i := range bodies {
		bodies[i] = storetest.GenerateDocument(i)
	}
	runPublish(b, serverOver(nullStore{}), &cpuClock{b: b}, func(i int) []byte { return bodies[i%len(bodies)] }, http.StatusCreated)
}

// nullStore answers Put as a store would for a new document and does
// nothing else (any other method panics: the publish path calls none).
type nullStore struct{ store.Store }

func (nullStore) Put(_ context.Context, nd store.NewDocument) (entity.Entry, bool, error) {
	d := nd.Document
	return entity.Entry{Digest: d.Sums.SHA1, SHA256: d.Sums.SHA256, Size: len(d.Content),
		Metadata: d.Metadata, Lints: d.Lints, CreatedAt: time.Now(), Origin: nd.Origin}, true, nil
}

func serverOver(st store.Store) http.Handler {
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc := registry.New(st, registry.Config{PublicURL: "http://bench", CacheBytes: 32 << 20, Logger: log})
	return api.New(svc, api.Config{Logger: log}, api.WithAuthenticator(api.NewAuthenticator(svc, true))).Handler()
}

// BenchmarkPublishStoreExisting is the store's share of a re-publish: Put
// of an already stored, already prepared document.
func BenchmarkPublishStoreExisting(b *testing.B) {
	st, docs := preparedStore(b, profileDocs)
	benchPut(b, st, &cpuClock{b: b}, func(i int) store.NewDocument { return docs[i%len(docs)] })
}

// BenchmarkPublishStoreNew is the store's share of a new publish.
func BenchmarkPublishStoreNew(b *testing.B) {
	st, _ := preparedStore(b, profileDocs)
	cpu := &cpuClock{b: b}
	next := newDocuments(b, cpu)
	benchPut(b, st, cpu, func(int) store.NewDocument {
		body := next()
		b.StopTimer()
		cpu.pause()
		defer func() { cpu.resume(); b.StartTimer() }()
		d, err := protocol.Prepare(body, 0)
		if err != nil {
			b.Fatal(err)
		}
		return store.NewDocument{Document: d}
	})
}

// preparedStore is a SQLite store seeded like handlerUnderTest's, with the
// prepared documents.
func preparedStore(b *testing.B, n int) (store.Store, []store.NewDocument) {
	b.Helper()
	st, err := sqlite.Open(context.Background(), b.TempDir()+"/registry.db")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	docs := make([]store.NewDocument, n)
	for i := range docs {
		d, err := protocol.Prepare(storetest.GenerateDocument(i), 0)
		if err != nil {
			b.Fatal(err)
		}
		docs[i] = store.NewDocument{Document: d}
	}
	if _, err := st.PutMany(context.Background(), docs); err != nil {
		b.Fatal(err)
	}
	return st, docs
}

func benchPut(b *testing.B, st store.Store, cpu *cpuClock, doc func(i int) store.NewDocument) {
	ctx := context.Background()
	b.ReportAllocs()
	cpu.start()
	for i := 0; b.Loop(); i++ {
		if _, _, err := st.Put(ctx, doc(i)); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report()
}

// cpuClock measures the process's CPU time (user + system, every thread)
// over a benchmark's loop, less the paused stretches (test set-up).
type cpuClock struct {
	b       *testing.B
	used    time.Duration // CPU time up to the last pause
	resumed time.Duration // process CPU time at the last resume
}

func (c *cpuClock) start()  { c.used, c.resumed = 0, storebench.ProcessCPU() }
func (c *cpuClock) pause()  { c.used += storebench.ProcessCPU() - c.resumed }
func (c *cpuClock) resume() { c.resumed = storebench.ProcessCPU() }

func (c *cpuClock) report() {
	c.pause()
	if c.b.N > 0 {
		c.b.ReportMetric(float64(c.used.Microseconds())/float64(c.b.N), "cpu-µs/op")
	}
}
