package bench

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

	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// These benchmarks drive the registry's real handler chain in process (no
// sockets, no load generator), so `go test -bench . -cpuprofile` shows
// where the server's own time goes:
//
//	go test -run '^$' -bench Handler -cpuprofile cpu.out ./internal/bench
//	go tool pprof -top cpu.out

const profileDocs = 2000

func handlerUnderTest(b *testing.B) (http.Handler, []string) {
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
		d, err := protocol.Prepare(generateDocument(i), 0)
		if err != nil {
			b.Fatal(err)
		}
		docs[i], hexes[i] = store.NewDocument{Document: d}, d.Sums.SHA1.Hex()
	}
	if _, err := st.PutMany(ctx, docs); err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc := registry.New(st, registry.Config{PublicURL: "http://bench", CacheBytes: 32 << 20, Logger: log})
	srv := api.New(svc, api.Config{Logger: log}, api.WithAuthenticator(api.NewAuthenticator(svc, true)))
	return srv.Echo(), hexes
}

// benchHandler measures the requests newReq makes (it is given the seeded
// hashes once, before the clock starts).
func benchHandler(b *testing.B, newReq func(hexes []string) func() *http.Request, want int) {
	h, hexes := handlerUnderTest(b)
	req := newReq(hexes)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req())
			if w.Code != want {
				b.Fatalf("status %d: %s", w.Code, w.Body.String())
			}
		}
	})
}

func BenchmarkHandlerHotRaw(b *testing.B) {
	benchHandler(b, func(hexes []string) func() *http.Request {
		return func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/protocol/"+hexes[rand.IntN(hotSet)], nil)
		}
	}, 200)
}

func BenchmarkHandlerSearchCommon(b *testing.B) {
	benchHandler(b, func([]string) func() *http.Request {
		return func() *http.Request { return httptest.NewRequest(http.MethodGet, "/api/v1/protocols?q=payload", nil) }
	}, 200)
}

func BenchmarkHandlerResolve1000(b *testing.B) {
	benchHandler(b, func(hexes []string) func() *http.Request {
		bodies := resolveBodies(hexes, 4)
		return func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/api/v1/resolve", bytes.NewReader(bodies[rand.IntN(len(bodies))]))
			r.Header.Set("Content-Type", "application/json")
			return r
		}
	}, 200)
}
