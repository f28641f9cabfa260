package handlerbench

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/agora-registry/registry/internal/adoption"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/api/html"
	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// The full server's head and revalidate scenarios in process: SQLite with
// a blob directory filled as `registry import` fills it, the default 8 MiB
// cache (HEAD and 304 never promote into it, so it stays empty), the
// adoption counter and the HTML pages wired as `registry serve` wires them,
// and every blob verified by one warm-up pass. The requests walk all
// documents in order, so a run is the same work every time: made for
// instruction counts, load-independent (from bench/):
//
//	go test -c -o h.test ./handler
//	GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//	  ./h.test -test.run '^$' -test.bench 'HandlerBlobHead$' -test.benchtime 100000x -test.benchmem
//
// and the same at 200000x: the difference over 100,000 is the
// instructions of one request, setup excluded (the server is built once
// per process); GOGC=off leaves the collector out (allocs/op stands for
// it), asyncpreemptoff keeps valgrind from tripping on Go's signals.

func blobServer(b *testing.B) (http.Handler, []string) {
	b.Helper()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "rawblob")
	if err != nil {
		b.Fatal(err)
	}
	blobDir = dir
	st, err := sqlite.Open(ctx, filepath.Join(dir, "registry.db"))
	if err != nil {
		b.Fatal(err)
	}
	files, err := blobs.Open(filepath.Join(dir, "blobs"), 0)
	if err != nil {
		b.Fatal(err)
	}
	docs := make([]store.NewDocument, profileDocs)
	items := make([]blobs.Item, profileDocs)
	hexes := make([]string, profileDocs)
	for i := range docs {
		d, err := protocol.Prepare(storetest.GenerateDocument(i), 0)
		if err != nil {
			b.Fatal(err)
		}
		docs[i], hexes[i] = store.NewDocument{Document: d}, d.Sums.SHA1.Hex()
		items[i] = blobs.Item{Digest: d.Sums.SHA1, Content: d.Content}
	}
	if _, err := st.PutMany(ctx, docs); err != nil {
		b.Fatal(err)
	}
	if err := files.PutBatch(items); err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc := registry.New(st, registry.Config{PublicURL: "http://bench", CacheBytes: 8 << 20, Blobs: files, Logger: log})
	if err := svc.RefreshInactive(ctx); err != nil {
		b.Fatal(err)
	}
	pages, err := html.New(svc, html.Options{OpenPublish: true, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	counter := adoption.New(discardSink{}, log, nil)
	srv := api.New(svc, api.Config{Logger: log},
		api.WithAdoption(counter), api.WithAuthenticator(api.NewAuthenticator(svc, true)), api.WithPages(pages))
	h := srv.Handler()
	for _, x := range hexes { // verify every blob once
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodHead, "/protocol/"+x, nil))
		if w.Code != 200 {
			b.Fatalf("warm-up HEAD: %d", w.Code)
		}
	}
	return h, hexes
}

// blobServers are built once per process (testing calls a benchmark
// more than once): setup then adds the same instructions to every run.
var (
	blobH     http.Handler
	blobHexes []string
	blobDir   string
)

// TestMain removes the shared server's directory once every benchmark
// has run.
func TestMain(m *testing.M) {
	code := m.Run()
	if blobDir != "" {
		os.RemoveAll(blobDir)
	}
	os.Exit(code)
}

// runSerial answers b.N requests on one goroutine, walking the documents.
func runSerial(b *testing.B, method string, revalidate bool, want int) {
	if blobH == nil {
		blobH, blobHexes = blobServer(b)
	}
	h, hexes := blobH, blobHexes
	reqs := make([]*http.Request, len(hexes))
	for i, x := range hexes {
		reqs[i] = httptest.NewRequest(method, "/protocol/"+x, nil)
		reqs[i].RemoteAddr = "192.0.2.1:1234"
		if revalidate {
			reqs[i].Header.Set("If-None-Match", `"`+x+`"`)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, reqs[i%len(reqs)])
		if w.Code != want {
			b.Fatalf("status %d, want %d", w.Code, want)
		}
	}
}

func BenchmarkHandlerBlobHead(b *testing.B)       { runSerial(b, http.MethodHead, false, 200) }
func BenchmarkHandlerBlobRevalidate(b *testing.B) { runSerial(b, http.MethodGet, true, 304) }
func BenchmarkHandlerBlobGet(b *testing.B)        { runSerial(b, http.MethodGet, false, 200) }
