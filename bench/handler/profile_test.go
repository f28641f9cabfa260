package handlerbench

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/agora-registry/registry/bench/harness"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// These benchmarks drive the registry's real handler chain in process (no
// sockets, no load generator), so `go test -bench . -cpuprofile` shows
// where the server's own time goes:
//
//	go test -run '^$' -bench Handler -benchmem -cpuprofile cpu.out ./handler (from bench/)
//	go tool pprof -top cpu.out
//
// Each reports cpu-µs/op (process CPU, as the publish benchmarks do).
//
// BenchmarkHandlerBaseline is the in-process version of the net/http
// baseline (BaselineHandler over the same documents): compare the hot
// raw fetch's ns/op and allocs/op to it, since wall-clock figures on a
// shared machine are noise but the ratio is not.

const profileDocs = 2000

func handlerUnderTest(b *testing.B) (http.Handler, []string) {
	h, hexes, _ := seededHandler(b)
	return h, hexes
}

// seededHandler also returns the documents by hex, for the baseline.
func seededHandler(b *testing.B, opts ...api.Option) (http.Handler, []string, map[string][]byte) {
	b.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "registry.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	docs := make([]store.NewDocument, profileDocs)
	hexes := make([]string, profileDocs)
	byHex := make(map[string][]byte, profileDocs)
	for i := range docs {
		d, err := protocol.Prepare(storetest.GenerateDocument(i), 0)
		if err != nil {
			b.Fatal(err)
		}
		docs[i], hexes[i] = store.NewDocument{Document: d}, d.Sums.SHA1.Hex()
		byHex[hexes[i]] = d.Content
	}
	if _, err := st.PutMany(ctx, docs); err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc := registry.New(st, registry.Config{PublicURL: "http://bench", CacheBytes: 32 << 20, Logger: log})
	srv := api.New(svc, api.Config{Logger: log}, append([]api.Option{api.WithAuthenticator(api.NewAuthenticator(svc, true))}, opts...)...)
	// Handler: the server as it is served.
	return srv.Handler(), hexes, byHex
}

// benchHandler measures the requests newReq makes (it is given the seeded
// hashes once, before the clock starts).
func benchHandler(b *testing.B, newReq func(hexes []string) func() *http.Request, want int) {
	h, hexes := handlerUnderTest(b)
	runHandler(b, h, hexes, newReq, want)
}

func runHandler(b *testing.B, h http.Handler, hexes []string, newReq func(hexes []string) func() *http.Request, want int) {
	req := newReq(hexes)
	cpu := &cpuClock{b: b}
	b.ReportAllocs()
	b.ResetTimer()
	cpu.start()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req())
			if w.Code != want {
				b.Fatalf("status %d: %s", w.Code, w.Body.String())
			}
		}
	})
	cpu.report()
}

func hotRawRequests(hexes []string) func() *http.Request {
	return func() *http.Request {
		return httptest.NewRequest(http.MethodGet, "/protocol/"+hexes[rand.IntN(harness.HotSet)], nil)
	}
}

func BenchmarkHandlerHotRaw(b *testing.B) { benchHandler(b, hotRawRequests, 200) }

// BenchmarkHandlerBaseline is the same requests answered by the net/http
// baseline from a map: the floor the hot raw fetch is held against.
func BenchmarkHandlerBaseline(b *testing.B) {
	_, hexes, byHex := seededHandler(b)
	runHandler(b, harness.BaselineHandler(byHex), hexes, hotRawRequests, 200)
}

// BenchmarkHandlerRevalidate is the hot fetch with a matching
// If-None-Match (304).
func BenchmarkHandlerRevalidate(b *testing.B) {
	benchHandler(b, func(hexes []string) func() *http.Request {
		return func() *http.Request {
			h := hexes[rand.IntN(harness.HotSet)]
			r := httptest.NewRequest(http.MethodGet, "/protocol/"+h, nil)
			r.Header.Set("If-None-Match", `"`+h+`"`)
			return r
		}
	}, 304)
}

func BenchmarkHandlerSearchCommon(b *testing.B) {
	benchHandler(b, func([]string) func() *http.Request {
		return func() *http.Request { return httptest.NewRequest(http.MethodGet, "/api/v1/protocols?q=payload", nil) }
	}, 200)
}

func BenchmarkHandlerResolve1000(b *testing.B) {
	benchHandler(b, func(hexes []string) func() *http.Request {
		bodies := harness.ResolveBodies(hexes, 4)
		return func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/api/v1/resolve", bytes.NewReader(bodies[rand.IntN(len(bodies))]))
			r.Header.Set("Content-Type", "application/json")
			return r
		}
	}, 200)
}
