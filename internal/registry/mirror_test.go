package registry_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

var mirrorDoc = []byte("---\nname: Mirrored\ndescription: Fetched from upstream.\n---\n\n# Mirrored\n")

func digestOf(t *testing.T, b []byte) protocol.Digest {
	t.Helper()
	sums, err := protocol.Hash(b)
	if err != nil {
		t.Fatal(err)
	}
	return sums.SHA1
}

// fakeUpstream is a real HTTP server that answers /protocol/{hex} with the
// body answer returns, counting requests.
type fakeUpstream struct {
	*httptest.Server
	hits atomic.Int64
}

func newUpstream(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) *fakeUpstream {
	t.Helper()
	u := &fakeUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		answer(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// serving answers the one document it has and 404 for everything else.
func serving(doc []byte) func(http.ResponseWriter, *http.Request) {
	sums, _ := protocol.Hash(doc)
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/protocol/"+sums.SHA1.Hex() {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(doc)
	}
}

// lying answers every request with the same wrong document.
func lying(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("# Not what you asked for\n"))
}

type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// upstreamClients are clients of the registries at bases, built as
// cmd/registry builds them, capped at maxBytes.
func upstreamClients(t *testing.T, maxBytes, redirects int, bases ...string) []registry.UpstreamRegistry {
	t.Helper()
	hc := client.NewHTTP(registry.DefaultMirrorTimeout, redirects)
	var ups []registry.UpstreamRegistry
	for _, b := range bases {
		c, err := client.New(b, hc)
		if err != nil {
			t.Fatal(err)
		}
		c.MaxBytes = maxBytes
		ups = append(ups, c)
	}
	return ups
}

// newMirror mirrors the registries at bases (when cfg names no upstreams).
func newMirror(t *testing.T, cfg registry.MirrorConfig, bases ...string) (*registry.Mirror, *logBuffer) {
	t.Helper()
	if cfg.Upstreams == nil {
		cfg.Upstreams = upstreamClients(t, cfg.MaxDocumentBytes, registry.DefaultMirrorRedirects, bases...)
	}
	logs := &logBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	m, err := registry.NewMirror(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m, logs
}

func TestMirrorHonestUpstream(t *testing.T) {
	up := newUpstream(t, serving(mirrorDoc))
	m, _ := newMirror(t, registry.MirrorConfig{}, up.URL+"/")
	got, origin, err := m.Fetch(context.Background(), digestOf(t, mirrorDoc))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, mirrorDoc) {
		t.Fatalf("content = %q", got)
	}
	if origin != up.URL {
		t.Fatalf("origin = %q, want %q", origin, up.URL)
	}
}

func TestMirrorSkipsLyingUpstream(t *testing.T) {
	liar := newUpstream(t, lying)
	honest := newUpstream(t, serving(mirrorDoc))
	m, logs := newMirror(t, registry.MirrorConfig{}, liar.URL, honest.URL)
	got, origin, err := m.Fetch(context.Background(), digestOf(t, mirrorDoc))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, mirrorDoc) || origin != honest.URL {
		t.Fatalf("got %q from %q", got, origin)
	}
	if liar.hits.Load() != 1 {
		t.Fatalf("liar asked %d times", liar.hits.Load())
	}
	if !strings.Contains(logs.String(), liar.URL) || !strings.Contains(logs.String(), "lied") {
		t.Fatalf("the lie was not logged: %s", logs)
	}
}

func TestMirrorAllLyingIsNotFound(t *testing.T) {
	a, b := newUpstream(t, lying), newUpstream(t, lying)
	m, _ := newMirror(t, registry.MirrorConfig{}, a.URL, b.URL)
	_, _, err := m.Fetch(context.Background(), digestOf(t, mirrorDoc))
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("err = %v, want not found", err)
	}
	if a.hits.Load() != 1 || b.hits.Load() != 1 {
		t.Fatalf("hits = %d, %d", a.hits.Load(), b.hits.Load())
	}
}

func TestMirrorNotFoundAnywhere(t *testing.T) {
	up := newUpstream(t, serving(mirrorDoc))
	m, _ := newMirror(t, registry.MirrorConfig{}, up.URL)
	_, _, err := m.Fetch(context.Background(), digestOf(t, []byte("# other\n")))
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestMirrorUpstreamDown(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close() // nothing listens there any more
	broken := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	m, logs := newMirror(t, registry.MirrorConfig{}, deadURL, broken.URL)
	_, _, err := m.Fetch(context.Background(), digestOf(t, mirrorDoc))
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("err = %v, want not found", err)
	}
	if !strings.Contains(err.Error(), "2 of 2 upstream registries could not be reached") {
		t.Fatalf("message does not say the upstreams are down: %v", err)
	}
	if !strings.Contains(logs.String(), "unreachable") {
		t.Fatalf("not logged: %s", logs)
	}

	// A dead upstream before a live one only costs a retry.
	honest := newUpstream(t, serving(mirrorDoc))
	m2, _ := newMirror(t, registry.MirrorConfig{}, deadURL, honest.URL)
	if _, origin, err := m2.Fetch(context.Background(), digestOf(t, mirrorDoc)); err != nil || origin != honest.URL {
		t.Fatalf("origin %q, err %v", origin, err)
	}
}

func TestMirrorRefusesOversizeAnswers(t *testing.T) {
	big := bytes.Repeat([]byte("a"), 200)
	announced := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { w.Write(big) })
	chunked := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		// Flushing first forces chunked encoding: no Content-Length to go by.
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for range 10 {
			w.Write(big)
		}
	})
	small := []byte("# small\n")
	honest := newUpstream(t, serving(small))
	m, logs := newMirror(t, registry.MirrorConfig{MaxDocumentBytes: 100}, announced.URL, chunked.URL, honest.URL)
	got, origin, err := m.Fetch(context.Background(), digestOf(t, small))
	if err != nil || origin != honest.URL || !bytes.Equal(got, small) {
		t.Fatalf("got %q from %q, err %v", got, origin, err)
	}
	if !strings.Contains(logs.String(), "announced 200 bytes; the limit is 100") || !strings.Contains(logs.String(), "sent more than 100 bytes") {
		t.Fatalf("oversize answers not logged: %s", logs)
	}
}

func TestMirrorTimeoutCutsSlowUpstream(t *testing.T) {
	release := make(chan struct{})
	slow := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Write(mirrorDoc[:5])
		w.(http.Flusher).Flush()
		select { // trickle: headers came, the body never ends
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	honest := newUpstream(t, serving(mirrorDoc))
	m, logs := newMirror(t, registry.MirrorConfig{Timeout: 200 * time.Millisecond}, slow.URL, honest.URL)
	got, origin, err := m.Fetch(context.Background(), digestOf(t, mirrorDoc))
	if err != nil || origin != honest.URL || !bytes.Equal(got, mirrorDoc) {
		t.Fatalf("got %q from %q, err %v", got, origin, err)
	}
	if !strings.Contains(logs.String(), slow.URL) {
		t.Fatalf("slow upstream not logged: %s", logs)
	}
}

func TestMirrorCachesMissesBriefly(t *testing.T) {
	up := newUpstream(t, serving(mirrorDoc))
	unknown := digestOf(t, []byte("# unknown\n"))

	m, _ := newMirror(t, registry.MirrorConfig{}, up.URL)
	for range 3 {
		if _, _, err := m.Fetch(context.Background(), unknown); !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
	if n := up.hits.Load(); n != 1 {
		t.Fatalf("upstream asked %d times for a remembered miss", n)
	}

	up.hits.Store(0)
	uncached, _ := newMirror(t, registry.MirrorConfig{NegativeTTL: -1}, up.URL)
	for range 3 {
		uncached.Fetch(context.Background(), unknown)
	}
	if n := up.hits.Load(); n != 3 {
		t.Fatalf("without the miss cache the upstream was asked %d times, want 3", n)
	}
}

func TestMirrorCapsRedirects(t *testing.T) {
	d := digestOf(t, mirrorDoc)
	var loop *fakeUpstream
	loop = newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, loop.URL+r.URL.Path, http.StatusFound)
	})
	m, _ := newMirror(t, registry.MirrorConfig{Upstreams: upstreamClients(t, 0, 2, loop.URL)})
	if _, _, err := m.Fetch(context.Background(), d); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if n := loop.hits.Load(); n != 3 {
		t.Fatalf("followed %d requests, want 1 + 2 redirects", n)
	}

	honest := newUpstream(t, serving(mirrorDoc))
	moved := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, honest.URL+r.URL.Path, http.StatusMovedPermanently)
	})
	m2, _ := newMirror(t, registry.MirrorConfig{}, moved.URL)
	got, origin, err := m2.Fetch(context.Background(), d)
	if err != nil || !bytes.Equal(got, mirrorDoc) || origin != moved.URL {
		t.Fatalf("got %q from %q, err %v", got, origin, err)
	}
}

func TestMirrorRefusesBadConfiguration(t *testing.T) {
	if _, err := registry.NewMirror(registry.MirrorConfig{}); err == nil {
		t.Error("NewMirror accepted no upstreams")
	}
	if _, err := registry.NewMirror(registry.MirrorConfig{Upstreams: make([]registry.UpstreamRegistry, registry.MaxUpstreams+1)}); err == nil {
		t.Errorf("NewMirror accepted %d upstreams", registry.MaxUpstreams+1)
	}
	m, err := registry.NewMirror(registry.MirrorConfig{Upstreams: upstreamClients(t, 0, 0, "https://user:secret@a.example/reg/", "http://b.example")})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(m.Upstreams(), " ")
	if got != "https://a.example/reg http://b.example" {
		t.Fatalf("origins %q (credentials must not be recorded)", got)
	}
}

// newMirroringService returns the service and the store beneath it, which the
// tests read to see what the mirror kept.
func newMirroringService(t *testing.T, upstreams ...string) (*registry.Service, store.Store) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m, _ := newMirror(t, registry.MirrorConfig{NegativeTTL: -1}, upstreams...)
	// No raw cache: every read after the first must come from the store.
	return registry.New(st, registry.Config{Upstream: m}), st
}

func TestServiceMirrorsOnceAndRecordsOrigin(t *testing.T) {
	up := newUpstream(t, serving(mirrorDoc))
	svc, st := newMirroringService(t, up.URL)
	ctx := context.Background()
	d := digestOf(t, mirrorDoc)

	got, err := svc.Raw(ctx, d)
	if err != nil || !bytes.Equal(got, mirrorDoc) {
		t.Fatalf("Raw: %v %q", err, got)
	}
	e, err := st.Get(ctx, d, true)
	if err != nil {
		t.Fatal(err)
	}
	if e.Origin != up.URL || !bytes.Equal(e.Content, mirrorDoc) || e.Metadata.Title != "Mirrored" {
		t.Fatalf("stored entry: origin %q title %q", e.Origin, e.Metadata.Title)
	}
	for range 3 {
		if _, err := svc.Raw(ctx, d); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Get(ctx, d, false); err != nil {
			t.Fatal(err)
		}
	}
	if n := up.hits.Load(); n != 1 {
		t.Fatalf("upstream asked %d times; a mirrored document must be served from the store", n)
	}
}

func TestServiceStoresNothingFromLiars(t *testing.T) {
	liar := newUpstream(t, lying)
	svc, st := newMirroringService(t, liar.URL)
	ctx := context.Background()
	d := digestOf(t, mirrorDoc)
	if _, err := svc.Raw(ctx, d); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Raw: %v", err)
	}
	if s, _ := svc.Stats(ctx); s.Documents != 0 {
		t.Fatalf("the lie was stored: %+v", s)
	}
	// The lie's own digest was not stored either.
	if _, err := st.Get(ctx, digestOf(t, []byte("# Not what you asked for\n")), false); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("lie stored under its own digest: %v", err)
	}
}

// TestMirrorRedirectsGoThroughTheSSRFGuard: with the client cmd/registry
// wires in (client.NewUpstreamHTTP), an upstream may redirect within
// itself, but a redirect to another address is dialled only if the guard
// admits it. Loopback stands for every private address here: a second local
// server is refused (and never hit) until allow-listed, and the cloud
// metadata address is refused before any connection.
func TestMirrorRedirectsGoThroughTheSSRFGuard(t *testing.T) {
	d := digestOf(t, mirrorDoc)
	internal := newUpstream(t, serving(mirrorDoc))
	toInternal := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, internal.URL+r.URL.Path, http.StatusMovedPermanently)
	})
	toMetadata := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	guarded := func(allow []string, bases ...string) []registry.UpstreamRegistry {
		hc, err := client.NewUpstreamHTTP(bases, allow, 2*time.Second, registry.DefaultMirrorRedirects)
		if err != nil {
			t.Fatal(err)
		}
		var ups []registry.UpstreamRegistry
		for _, b := range bases {
			c, err := client.New(b, hc)
			if err != nil {
				t.Fatal(err)
			}
			ups = append(ups, c)
		}
		return ups
	}
	m, logs := newMirror(t, registry.MirrorConfig{Upstreams: guarded(nil, toInternal.URL, toMetadata.URL), Timeout: 2 * time.Second})
	if _, _, err := m.Fetch(context.Background(), d); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if n := internal.hits.Load(); n != 0 {
		t.Fatalf("the redirect reached an address outside the upstreams (%d requests)", n)
	}
	if n := strings.Count(logs.String(), "upstream_redirect_blocked") + strings.Count(logs.String(), "private, loopback or reserved address; refused"); n < 2 {
		t.Fatalf("%d blocked redirects logged, want 2:\n%s", n, logs)
	}

	allowed, _ := newMirror(t, registry.MirrorConfig{Upstreams: guarded([]string{internal.Listener.Addr().String()}, toInternal.URL)})
	got, origin, err := allowed.Fetch(context.Background(), d)
	if err != nil || !bytes.Equal(got, mirrorDoc) || origin != toInternal.URL {
		t.Fatalf("allow-listed: got %q from %q, err %v", got, origin, err)
	}
}
