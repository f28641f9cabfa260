package agora

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

const doc = "---\nname: Test\ndescription: d\nmultiround: false\n---\n\nBody.\n"

var digest = MustParseDigest("0000000000000000000000000000000000000000")

func init() {
	s, err := Hash([]byte(doc))
	if err != nil {
		panic(err)
	}
	digest = s.SHA1
}

// source serves fixed content and counts requests.
type source struct {
	*httptest.Server
	hits atomic.Int32
}

func newSource(t *testing.T, body string, status int) *source {
	s := &source{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

func newResolver(t *testing.T, allow []string, regs ...string) *Resolver {
	t.Helper()
	cache, err := OpenCache(t.TempDir(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	guarded, err := NewFetcher(FetchPolicy{Allow: allow})
	if err != nil {
		t.Fatal(err)
	}
	r := &Resolver{cache: cache, fetcher: guarded}
	for _, base := range regs {
		reg, err := NewRegistry(base, guarded.HTTP)
		if err != nil {
			t.Fatal(err)
		}
		r.registries = append(r.registries, reg)
	}
	return r
}

func TestTamperedSourceFallsThroughAndCaches(t *testing.T) {
	bad := newSource(t, doc+"tampered", 200)
	dead := newSource(t, "", 500)
	good := newSource(t, doc, 200)
	r := newResolver(t, []string{"127.0.0.1/32"})
	got, err := r.Resolve(context.Background(), digest, []string{bad.URL, dead.URL, "ftp://x/", good.URL})
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Document) != doc || got.Origin != good.URL {
		t.Fatalf("got %q from %s", got.Document, got.Origin)
	}
	// The second time the cache answers and no source is asked.
	got, err = r.Resolve(context.Background(), digest, []string{good.URL})
	if err != nil || got.Origin != "cache" || good.hits.Load() != 1 {
		t.Fatalf("second resolve: origin %q, err %v, hits %d", got.Origin, err, good.hits.Load())
	}
}

func TestAllSourcesBad(t *testing.T) {
	bad := newSource(t, "not it", 200)
	r := newResolver(t, []string{"127.0.0.1"})
	_, err := r.Resolve(context.Background(), digest, []string{bad.URL, "data:text/plain;charset=utf-8,nope"})
	if !errors.Is(err, ErrUnresolvable) {
		t.Fatalf("err = %v, want ErrUnresolvable", err)
	}
}

func TestLoopbackSourceRefusedWithoutAllowList(t *testing.T) {
	good := newSource(t, doc, 200)
	r := newResolver(t, nil)
	if _, err := r.Resolve(context.Background(), digest, []string{good.URL}); !errors.Is(err, ErrUnresolvable) {
		t.Fatalf("err = %v", err)
	}
	if good.hits.Load() != 0 {
		t.Fatal("a loopback source was fetched without an allow-list")
	}
}

func TestDataURISources(t *testing.T) {
	for _, uri := range []string{DataURI([]byte(doc)), "data:text/plain;charset=utf-8," + url.PathEscape(doc)} {
		r := newResolver(t, nil)
		got, err := r.Resolve(context.Background(), digest, []string{uri})
		if err != nil || string(got.Document) != doc {
			t.Fatalf("%s: %q, %v", uri, got.Document, err)
		}
	}
}

func TestCorruptedCacheFileIsRefetched(t *testing.T) {
	good := newSource(t, doc, 200)
	r := newResolver(t, []string{"127.0.0.1"})
	if _, err := r.Resolve(context.Background(), digest, []string{good.URL}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.cache.dir, digest.Hex())
	if err := os.WriteFile(path, []byte(doc+"flipped"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := r.cache.Get(digest); ok || err != nil {
		t.Fatalf("corrupted cache entry served: ok=%v err=%v", ok, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("corrupted file not deleted: %v", err)
	}
	got, err := r.Resolve(context.Background(), digest, []string{good.URL})
	if err != nil || got.Origin != good.URL || good.hits.Load() != 2 {
		t.Fatalf("refetch: origin %q, err %v, hits %d", got.Origin, err, good.hits.Load())
	}
	if b, _ := os.ReadFile(path); string(b) != doc {
		t.Fatalf("cache not repaired: %q", b)
	}
}

func TestCacheSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	c1, _ := OpenCache(dir, 0, 0)
	if err := c1.Put(digest, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	c2, _ := OpenCache(dir, 0, 0)
	if b, ok, err := c2.Get(digest); !ok || err != nil || string(b) != doc {
		t.Fatalf("reopened cache: %q %v %v", b, ok, err)
	}
}

// fakeRegistry implements the registry's resolve and raw endpoints.
func fakeRegistry(t *testing.T, content string, sources func(base string) []string) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/v1/resolve":
			var req struct{ Hashes []string }
			json.NewDecoder(r.Body).Decode(&req)
			var results []Resolution
			for _, h := range req.Hashes {
				results = append(results, Resolution{Hash: h, Found: h == digest.Hex(), Hex: h, Sources: sources(srv.URL)})
			}
			json.NewEncoder(w).Encode(map[string]any{"results": results})
		case r.URL.Path == "/protocol/"+digest.Hex():
			w.Write([]byte(content))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRegistryFallback(t *testing.T) {
	dead := newSource(t, "", 404)
	// The registry lists a dead mirror first; its own raw URL is the fallback.
	reg := fakeRegistry(t, doc, func(base string) []string { return []string{dead.URL} })
	r := newResolver(t, []string{"127.0.0.1"}, reg.URL)
	got, err := r.Resolve(context.Background(), digest, nil)
	if err != nil || string(got.Document) != doc || got.Origin != "registry "+reg.URL {
		t.Fatalf("got %q from %q, %v", got.Document, got.Origin, err)
	}
	lying := fakeRegistry(t, "lies", func(base string) []string { return []string{base + "/protocol/" + digest.Hex()} })
	r = newResolver(t, []string{"127.0.0.1"}, lying.URL)
	if _, err := r.Resolve(context.Background(), digest, nil); !errors.Is(err, ErrUnresolvable) {
		t.Fatalf("lying registry: %v", err)
	}
}
