package api

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// lyingEngines open a store of each engine with a way to change a
// document's bytes behind its back, straight in its table (a damaged disk,
// a careless restore, an attacker with database access).
var lyingEngines = map[string]func(t *testing.T) (store.Store, func(d protocol.Digest, b []byte)){
	"sqlite": func(t *testing.T) (store.Store, func(protocol.Digest, []byte)) {
		path := filepath.Join(t.TempDir(), "r.db")
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st, func(d protocol.Digest, b []byte) {
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			res, err := db.Exec(`UPDATE contents SET content = ? WHERE id = (SELECT id FROM documents WHERE hex = ?)`, b, d.Hex())
			if n, _ := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("lying in sqlite: %v (%d rows)", err, n)
			}
		}
	},
	"postgres": func(t *testing.T) (store.Store, func(protocol.Digest, []byte)) {
		dsn := pgtest.NewDatabase(t)
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st, func(d protocol.Digest, b []byte) {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			tag, err := conn.Exec(ctx, `UPDATE documents SET content = $1 WHERE digest = $2`, b, d[:])
			if err != nil || tag.RowsAffected() != 1 {
				t.Fatalf("lying in postgres: %v (%d rows)", err, tag.RowsAffected())
			}
		}
	},
}

const (
	honestText = "# Honest\n\nThe bytes that were published.\n"
	lyingText  = "# Lying!\n\nThe bytes that were swapped in\n"
)

// A document whose stored bytes were changed behind the registry (same
// length, so nothing but the hash tells) is never answered with them, nor
// with a 200 or 304 that vouches for them: every GET, HEAD, Range and
// If-None-Match answers 500 corrupt_document, on both engines, with or
// without a cache and a blob directory; the bad bytes are neither cached
// nor written as a blob, and each refusal is counted in the metrics.
func TestLyingDatabaseIsNeverServed(t *testing.T) {
	if len(honestText) != len(lyingText) {
		t.Fatal("the lie must keep the length")
	}
	for engine, open := range lyingEngines {
		for _, source := range []string{"store", "cache", "blob"} {
			t.Run(engine+"/"+source, func(t *testing.T) {
				st, lie := open(t)
				cfg := registry.Config{PublicURL: "http://registry.test"}
				switch source {
				case "cache":
					cfg.CacheBytes = 1 << 20
				case "blob":
					b, err := blobs.Open(filepath.Join(t.TempDir(), "blobs"), 0)
					if err != nil {
						t.Fatal(err)
					}
					cfg.Blobs = b
					cfg.CacheBytes = 1 << 20
				}
				ts, svc := corruptServer(t, st, cfg)
				ctx := context.Background()
				pub, err := svc.Publish(ctx, []byte(honestText), nil, "")
				if err != nil {
					t.Fatal(err)
				}
				d := pub.Entry.Digest
				lie(d, []byte(lyingText))
				assertCorrupt(t, ts, d, nil)
				if _, ok := svc.CachedRaw(d); ok {
					t.Error("the lying bytes were cached")
				}
				if cfg.Blobs != nil {
					svc.WaitBlobs()
					if cfg.Blobs.Has(d) {
						t.Error("the lying bytes were written as a blob")
					}
				}
				if svc.CorruptReads() == 0 || !strings.Contains(metricsText(t, ts), "registry_corrupt_documents_total ") {
					t.Error("the refusals were not counted")
				}
				// The same through the JSON API's content and the store-backed
				// Raw of match and the MCP tools.
				if _, err := svc.Get(ctx, d, true); err == nil {
					t.Error("Get with content returned the lying bytes")
				}
				if _, err := svc.Raw(ctx, d); err == nil {
					t.Error("Raw returned the lying bytes")
				}
			})
		}
	}
}

// A damaged blob file is never served: with the database honest the
// document is answered (and the file rewritten) from it; with the database
// lying too, every answer is 500 corrupt_document.
func TestCorruptBlobIsNeverServed(t *testing.T) {
	for engine, open := range lyingEngines {
		for _, dbLies := range []bool{false, true} {
			name := engine + "/honest-database"
			if dbLies {
				name = engine + "/lying-database"
			}
			t.Run(name, func(t *testing.T) {
				st, lie := open(t)
				b, err := blobs.Open(filepath.Join(t.TempDir(), "blobs"), 0)
				if err != nil {
					t.Fatal(err)
				}
				ts, svc := corruptServer(t, st, registry.Config{PublicURL: "http://registry.test", Blobs: b})
				ctx := context.Background()
				pub, err := svc.Publish(ctx, []byte(honestText), nil, "")
				if err != nil {
					t.Fatal(err)
				}
				d := pub.Entry.Digest
				// Read once (through the store: writes the blob) and once from
				// the blob, so this process has verified the file.
				for range 2 {
					if res, body := do(t, http.MethodGet, ts.URL+"/protocol/"+d.Hex(), nil); res.StatusCode != http.StatusOK || string(body) != honestText {
						t.Fatalf("honest GET: %d %q", res.StatusCode, body)
					}
					svc.WaitBlobs()
				}
				if !b.Has(d) {
					t.Fatal("no blob written")
				}
				// Same length, same inode: only the modification time may tell.
				damage := func() {
					f, err := os.OpenFile(b.Path(d), os.O_WRONLY|os.O_CREATE, 0o600)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := f.WriteAt([]byte(lyingText), 0); err != nil {
						t.Fatal(err)
					}
					f.Close()
				}
				damage()
				if dbLies {
					// Damaged again before each request: a refusal removes it.
					lie(d, []byte(lyingText))
					assertCorrupt(t, ts, d, damage)
					return
				}
				for _, r := range rawRequests(d) {
					res, body := do(t, r.method, ts.URL+"/protocol/"+d.Hex(), r.hdr)
					if bytes.Contains(body, []byte("Lying")) || res.StatusCode >= 300 && res.StatusCode != http.StatusNotModified {
						t.Errorf("%s: %d %q", r.name, res.StatusCode, body)
					}
				}
				svc.WaitBlobs()
				if err := b.Check(d); err != nil {
					t.Errorf("the damaged blob was not rewritten from the database: %v", err)
				}
			})
		}
	}
}

func corruptServer(t *testing.T, st store.Store, cfg registry.Config) (*httptest.Server, *registry.Service) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Logger = log
	svc := registry.New(st, cfg)
	if err := svc.RefreshInactive(context.Background()); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(New(svc, Config{Logger: log}).Handler())
	t.Cleanup(ts.Close)
	return ts, svc
}

type rawRequest struct {
	name, method string
	hdr          map[string]string
}

func rawRequests(d protocol.Digest) []rawRequest {
	etag := `"` + d.Hex() + `"`
	return []rawRequest{
		{"GET", http.MethodGet, nil},
		{"GET again", http.MethodGet, nil},
		{"HEAD", http.MethodHead, nil},
		{"Range", http.MethodGet, map[string]string{"Range": "bytes=0-4"}},
		{"If-None-Match", http.MethodGet, map[string]string{"If-None-Match": etag}},
		{"HEAD If-None-Match", http.MethodHead, map[string]string{"If-None-Match": etag}},
		{"Range If-Range", http.MethodGet, map[string]string{"Range": "bytes=2-", "If-Range": etag}},
	}
}

// assertCorrupt checks every kind of raw request of d (both URL forms)
// answers 500 corrupt_document, twice over (a first refusal must not
// leave the bytes anywhere a second request would find them).
// before, when not nil, runs before each request (to damage a blob again).
func assertCorrupt(t *testing.T, ts *httptest.Server, d protocol.Digest, before func()) {
	t.Helper()
	for _, u := range []string{"/protocol/" + d.Hex(), "/protocol?id=" + d.Hex()} {
		for _, r := range rawRequests(d) {
			if before != nil {
				before()
			}
			res, body := do(t, r.method, ts.URL+u, r.hdr)
			if res.StatusCode != http.StatusInternalServerError || bytes.Contains(body, []byte("Lying")) {
				t.Errorf("%s %s: %d %q, want 500 without the lying bytes", r.name, u, res.StatusCode, body)
				continue
			}
			if res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("Etag") != "" {
				t.Errorf("%s %s: Cache-Control %q, ETag %q on a refusal", r.name, u, res.Header.Get("Cache-Control"), res.Header.Get("Etag"))
			}
			if r.method == http.MethodHead {
				continue
			}
			var p Problem
			if err := json.Unmarshal(body, &p); err != nil || p.Code != "corrupt_document" {
				t.Errorf("%s %s: %q, want code corrupt_document", r.name, u, body)
			}
		}
	}
	// The JSON API's content too.
	res, body := do(t, http.MethodGet, ts.URL+"/api/v1/protocols/"+d.Hex()+"?content=true", nil)
	if res.StatusCode != http.StatusInternalServerError || bytes.Contains(body, []byte("Lying")) {
		t.Errorf("GET /api/v1/protocols/…?content=true: %d %q", res.StatusCode, body)
	}
}

func metricsText(t *testing.T, ts *httptest.Server) string {
	t.Helper()
	_, body := do(t, http.MethodGet, ts.URL+"/metrics", nil)
	return string(body)
}
