// Package security starts the real registry (JSON API + HTML pages over
// a real store engine) on a loopback socket for hostile-input tests, and
// takes snapshots of the store so a test can prove a refused request
// changed nothing. The tests themselves live beside it (*_security_test.go).
package security

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/api/html"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/testing/pgtest"
	"github.com/agora-registry/registry/internal/translog"
)

// Engines are the store engines a test can run against.
var Engines = []string{"sqlite", "postgres"}

// Options shape the server.
type Options struct {
	Engine      string  // "sqlite" (default) or "postgres"
	OpenPublish bool    // anyone may publish
	RatePerSec  float64 // per-client request limit; 0: unlimited
	RateBurst   int
	PublishRate float64 // per-client publish limit; 0: unlimited
	// DemoListLimit caps one answer of the demo's GET / list; 0: the default.
	DemoListLimit int
	// LogKey is the transparency log's note signer key; "": generated
	// and stored on first start, as `registry serve` does.
	LogKey string
	// MaxDocumentBytes limits one document; 0: the protocol default.
	MaxDocumentBytes int
	// PostgresDSN, with the postgres engine, opens that database instead
	// of a fresh one (several servers on one database).
	PostgresDSN string
}

// Server is a running registry.
type Server struct {
	URL          string
	Svc          *registry.Service
	Store        store.Store
	Log          *translog.Log
	Logs         *SyncBuffer // every log line of the service, API and pages (JSON)
	PublishToken string      // a token with the publish scope
	AdminToken   string      // a token with the admin scope
}

// Start runs the registry until the test ends. A postgres engine without a
// database skips (or fails under REGISTRY_TEST_REQUIRE_POSTGRES=1).
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	ctx := context.Background()
	st := openStore(t, o.Engine, o.PostgresDSN)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	logs := &SyncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tl := startLog(t, st, o.LogKey, ln.Addr().String(), log)
	svc := registry.New(st, registry.Config{PublicURL: base, Logger: log, Log: tl, MaxDocumentBytes: o.MaxDocumentBytes})

	pubLimit := api.NewRateLimiter(o.PublishRate, 1, "publishes")
	pageOpts := html.Options{OpenPublish: o.OpenPublish, Logger: log}
	if pubLimit != nil {
		pageOpts.PublishLimit = pubLimit.Middleware
	}
	pages, err := html.New(svc, pageOpts)
	if err != nil {
		t.Fatal(err)
	}
	srv := api.New(svc, api.Config{Logger: log, DemoListLimit: o.DemoListLimit},
		api.WithPages(pages),
		api.WithAuthenticator(api.NewAuthenticator(svc, o.OpenPublish)),
		api.WithRateLimit(api.NewRateLimiter(o.RatePerSec, o.RateBurst, "requests")),
		api.WithPublishRateLimit(pubLimit))
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: srv.Echo()}}
	hs.Start()
	t.Cleanup(hs.Close)

	s := &Server{URL: base, Svc: svc, Store: st, Log: tl, Logs: logs}
	pub, err := svc.CreateToken(ctx, "security-publish", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	adm, err := svc.CreateToken(ctx, "security-admin", []entity.Scope{entity.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	s.PublishToken, s.AdminToken = pub.Secret, adm.Secret
	return s
}

// startLog loads the log's key as `registry serve` does and runs its
// integrator until the test ends.
func startLog(t testing.TB, st store.Store, skey, origin string, log *slog.Logger) *translog.Log {
	t.Helper()
	var (
		key translog.Key
		err error
	)
	if skey != "" {
		key, err = translog.ParseKey(skey)
	} else {
		key, err = translog.LoadKey(context.Background(), st, "", origin)
	}
	if err != nil {
		t.Fatal(err)
	}
	tl := translog.New(st, key, log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx, 50*time.Millisecond); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return tl
}

func openStore(t testing.TB, engine, dsn string) store.Store {
	t.Helper()
	ctx := context.Background()
	var (
		st  store.Store
		err error
	)
	switch engine {
	case "", "sqlite":
		st, err = sqlite.Open(ctx, filepath.Join(t.TempDir(), "registry.db"))
	case "postgres":
		if dsn == "" {
			dsn = pgtest.NewDatabase(t)
		}
		st, err = postgres.Open(ctx, dsn)
	default:
		t.Fatalf("security harness: unknown engine %q", engine)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Snapshot is everything a request could have changed in the store: the
// counts, and one line per entry (digest, content hash, withdrawal, tags,
// title) in creation order.
type Snapshot struct {
	Stats   store.Stats
	Entries []string
}

// Snapshot reads the store's current state.
func (s *Server) Snapshot(t testing.TB) Snapshot {
	t.Helper()
	ctx := context.Background()
	st, err := s.Store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	err = s.Store.Each(ctx, func(e entity.Entry) error {
		lines = append(lines, fmt.Sprintf("%s %x withdrawn=%v tags=%s title=%q",
			e.Digest.Hex(), sha256.Sum256(e.Content), e.WithdrawnAt != nil, strings.Join(e.Metadata.Tags, ","), e.Metadata.Title))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := s.Store.ListTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range tokens {
		lines = append(lines, fmt.Sprintf("token %d %s revoked=%v", tk.ID, tk.Name, tk.RevokedAt != nil))
	}
	sort.Strings(lines[len(lines)-len(tokens):])
	return Snapshot{Stats: st, Entries: lines}
}

// Equal reports whether two snapshots show the same store.
func (a Snapshot) Equal(b Snapshot) bool {
	return a.Stats == b.Stats && strings.Join(a.Entries, "\n") == strings.Join(b.Entries, "\n")
}

// SyncBuffer is a bytes.Buffer safe for concurrent log writes.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
