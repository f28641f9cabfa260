package directory_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

var (
	weather = protocol.MustParseDigest("0123456789abcdef0123456789abcdef01234567")
	refused = protocol.MustParseDigest("89abcdef0123456789abcdef0123456789abcdef")
	other   = protocol.MustParseDigest("fedcba9876543210fedcba9876543210fedcba98")
)

func openStore(t *testing.T) store.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newDirectory(t *testing.T, s store.Store, clk *clock, allow ...string) *directory.Directory {
	t.Helper()
	return newDirectoryWith(t, s, directory.Config{Allow: allow, Interval: time.Hour, MaxFailures: 3, Timeout: 5 * time.Second, Now: clk.Now})
}

// newDirectoryWith builds a directory closed at the end of the test,
// before the store (cleanups run last registered first).
func newDirectoryWith(t *testing.T, s store.Store, cfg directory.Config) *directory.Directory {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	d, err := directory.New(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// startAgent runs the reference agent on a loopback socket.
func startAgent(t *testing.T) string {
	t.Helper()
	a, err := agent.New(agent.Config{
		Name: "Weather Bob", Description: "answers weather questions", Kinds: []string{"weather"},
		CacheDir:    t.TempDir(),
		Protocols:   []agent.ProtocolConfig{{Hash: weather.Hex(), Sources: []string{"https://example.org/w.md"}, Routine: agent.RoutineConfig{Builtin: "weather"}}},
		Unsupported: []string{refused.Hex()},
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// specStub serves only spec v0.2's /wellknown, with a list tests change,
// or 500 while failing is set.
type specStub struct {
	*httptest.Server
	mu      sync.Mutex
	list    map[string][]string
	failing atomic.Bool
	hits    atomic.Int32
}

func newSpecStub(t *testing.T, list map[string][]string) *specStub {
	s := &specStub{list: list}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if agoraPath(r.URL.Path) {
			s.hits.Add(1)
		}
		if r.URL.Path != "/wellknown" || s.failing.Load() {
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		_ = json.NewEncoder(w).Encode(s.list)
	}))
	t.Cleanup(s.Close)
	return s
}

// agoraPath reports whether a crawl asked for an Agora well-known list
// (it asks for the A2A card and the ARD manifest beside).
func agoraPath(p string) bool {
	return p == "/.well-known/agora" || p == "/.wellknown" || p == "/wellknown"
}

func (s *specStub) set(list map[string][]string) { s.mu.Lock(); s.list = list; s.mu.Unlock() }

func TestRegisterOurAgent(t *testing.T) {
	st, clk := openStore(t), &clock{now: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	d := newDirectory(t, st, clk, "127.0.0.1/32")
	url := startAgent(t)
	a, created, err := d.Register(context.Background(), url+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !created || a.URL != url || a.Name != "Weather Bob" || a.Description != "answers weather questions" ||
		strings.Join(a.Kinds, ",") != "weather" || a.WellKnownURL != url+"/.well-known/agora" {
		t.Fatalf("registered %+v", a)
	}
	if len(a.Supported) != 1 || a.Supported[0].Digest != weather || a.Supported[0].Sources[0] != "https://example.org/w.md" {
		t.Fatalf("supported %+v", a.Supported)
	}
	if len(a.Unsupported) != 1 || a.Unsupported[0] != refused {
		t.Fatalf("unsupported %+v", a.Unsupported)
	}
	if next := a.NextCrawl.Sub(clk.Now()); next < 54*time.Minute || next > 66*time.Minute {
		t.Fatalf("next crawl in %v, want the interval ±10%%", next)
	}
}

func TestRegisterSpecV02Stub(t *testing.T) {
	st, clk := openStore(t), &clock{now: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	d := newDirectory(t, st, clk, "127.0.0.1/32")
	stub := newSpecStub(t, map[string][]string{weather.Hex(): {"https://a/1"}, "not-a-hash": {"x"}})
	a, _, err := d.Register(context.Background(), stub.URL)
	if err != nil {
		t.Fatal(err)
	}
	if a.WellKnownURL != stub.URL+"/wellknown" || len(a.Supported) != 1 || a.Supported[0].Digest != weather || a.Name != "" {
		t.Fatalf("registered %+v", a)
	}
	if stub.hits.Load() != 3 {
		t.Fatalf("the stub was asked %d times; want the three paths in turn", stub.hits.Load())
	}

	// Re-crawls pick up changes, are jittered and only happen when due.
	stub.set(map[string][]string{other.Hex(): {"https://a/2"}, weather.Hex(): {"https://a/1"}})
	if n, err := d.CrawlDue(context.Background()); err != nil || n != 0 {
		t.Fatalf("CrawlDue before the interval: %d, %v", n, err)
	}
	clk.add(2 * time.Hour)
	if n, err := d.CrawlDue(context.Background()); err != nil || n != 1 {
		t.Fatalf("CrawlDue: %d, %v", n, err)
	}
	got, err := d.Get(context.Background(), a.ID)
	if err != nil || len(got.Supported) != 2 || !got.LastSeen.Equal(clk.Now()) {
		t.Fatalf("after re-crawl: %+v, %v", got, err)
	}

	// Failures keep the last good state and count; the third removes it.
	stub.failing.Store(true)
	for i := 1; i <= 3; i++ {
		clk.add(2 * time.Hour)
		if _, err := d.CrawlDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		got, err := d.Get(context.Background(), a.ID)
		if i < 3 {
			if err != nil || got.Failures != i || len(got.Supported) != 2 || !strings.Contains(got.LastError, "404") {
				t.Fatalf("after failure %d: %+v, %v", i, got, err)
			}
			continue
		}
		if !errors.Is(err, store.ErrAgentNotFound) {
			t.Fatalf("after the third failure the agent stays: %+v, %v", got, err)
		}
	}
}

func TestRegisterRefusals(t *testing.T) {
	st, clk := openStore(t), &clock{now: time.Now()}
	guarded := newDirectory(t, st, clk) // no allow-list: loopback is refused
	stub := newSpecStub(t, map[string][]string{weather.Hex(): {"https://a/1"}})
	_, _, err := guarded.Register(context.Background(), stub.URL)
	if !errors.Is(err, directory.ErrUnreachable) || !strings.Contains(err.Error(), "not allowed") {
		t.Fatalf("a loopback agent without --outbound-allow: %v", err)
	}
	if stub.hits.Load() != 0 {
		t.Fatal("the guard let a request through to loopback")
	}
	for _, bad := range []string{"ftp://x/", "http://u:p@x/", "http://x/?q=1", "http://x/#f", "/relative", "http://", strings.Repeat("a", 3000)} {
		if _, err := directory.Origin(bad); !errors.Is(err, directory.ErrBadURL) {
			t.Errorf("Origin(%q) = %v, want ErrBadURL", bad, err)
		}
	}

	// An agent that answers something else than a list is not registered.
	junk := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "[1,2]") }))
	defer junk.Close()
	open := newDirectory(t, st, clk, "127.0.0.1/32")
	if _, _, err := open.Register(context.Background(), junk.URL); !errors.Is(err, directory.ErrUnreachable) {
		t.Fatalf("a non-list answer: %v", err)
	}
	// Nor one whose answer exceeds the size cap.
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"`+weather.Hex()+`": ["`+strings.Repeat("x", 2<<20)+`"]}`)
	}))
	defer big.Close()
	if _, _, err := open.Register(context.Background(), big.URL); !errors.Is(err, directory.ErrUnreachable) || !strings.Contains(err.Error(), "too large") &&
		!strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("an oversized answer: %v", err)
	}
}
