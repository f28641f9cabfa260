package api

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/adoption"
	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// rawEngines open a fresh store of each engine.
var rawEngines = map[string]func(t *testing.T) store.Store{
	"sqlite": func(t *testing.T) store.Store {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	},
	"postgres": func(t *testing.T) store.Store {
		st, err := postgres.Open(context.Background(), pgtest.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	},
}

// rawSources are the three places a raw answer comes from: the store
// itself, the memory cache and the blob file. Each must answer the same.
var rawSources = map[string]func(t *testing.T) registry.Config{
	"store": func(*testing.T) registry.Config { return registry.Config{} },
	"cache": func(*testing.T) registry.Config { return registry.Config{CacheBytes: 1 << 20} },
	"blob": func(t *testing.T) registry.Config {
		b, err := blobs.Open(filepath.Join(t.TempDir(), "blobs"), 0)
		if err != nil {
			t.Fatal(err)
		}
		return registry.Config{Blobs: b}
	},
}

// The raw endpoint's whole contract, on both engines and from every
// source: status, every header and the bytes, for both URL forms and both
// spellings; 304 for every matching If-None-Match; 404; 410 after a
// withdrawal, conditional or not.
func TestRawConformance(t *testing.T) {
	for engine, open := range rawEngines {
		for source, cfg := range rawSources {
			t.Run(engine+"/"+source, func(t *testing.T) { rawConformance(t, open(t), cfg(t), source) })
		}
	}
}

const (
	rawDocText  = "---\ntitle: Raw conformance\n---\n\n# Raw\n\nThe exact bytes, \u00e9 included.\n"
	goneDocText = "# Gone\n\nWithdrawn below.\n"
)

func rawConformance(t *testing.T, st store.Store, cfg registry.Config, source string) {
	ctx := context.Background()
	cfg.PublicURL = "http://registry.test"
	svc := registry.New(st, cfg)
	if err := svc.RefreshInactive(ctx); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	counter := adoption.New(st, log, nil)
	srv := New(svc, Config{Logger: log}, WithAdoption(counter))
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)

	pub, err := svc.Publish(ctx, []byte(rawDocText), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	gone, err := svc.Publish(ctx, []byte(goneDocText), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	d, g := pub.Entry.Digest, gone.Entry.Digest
	if source == "blob" {
		// The first reads (through the store) write the files.
		for _, x := range []protocol.Digest{d, g} {
			if _, err := svc.RawDocument(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		svc.WaitBlobs()
		if !cfg.Blobs.Has(d) || !cfg.Blobs.Has(g) {
			t.Fatal("the first reads did not write the blobs")
		}
	}
	if source == "cache" {
		if _, err := svc.RawDocument(ctx, d); err != nil {
			t.Fatal(err)
		}
		if _, ok := svc.CachedRaw(d); !ok {
			t.Fatal("not cached")
		}
	}
	urls := func(d protocol.Digest) []string {
		return []string{
			"/protocol/" + d.Hex(),
			"/protocol/" + strings.ToUpper(d.Hex()),
			"/protocol/" + url.PathEscape(d.Base64()),
			"/protocol?id=" + d.Hex(),
			"/protocol?id=" + url.QueryEscape(d.Base64()),
		}
	}
	etag := `"` + d.Hex() + `"`
	okHeaders := map[string]string{
		"Cache-Control": "public, max-age=31536000, immutable", "Content-Length": strconv.Itoa(len(rawDocText)),
		"Content-Type": "text/plain; charset=utf-8", "Etag": etag, "X-Content-Type-Options": "nosniff",
	}
	notModified := map[string]string{"Cache-Control": okHeaders["Cache-Control"], "Etag": etag, "X-Content-Type-Options": "nosniff"}
	check := func(what string, want map[string]string, wantStatus int, wantBody string, method, u string, hdr map[string]string) {
		t.Helper()
		res, body := do(t, method, ts.URL+u, hdr)
		if res.StatusCode != wantStatus || string(body) != wantBody {
			t.Errorf("%s %s %s: %d %q, want %d %q", what, method, u, res.StatusCode, body, wantStatus, wantBody)
			return
		}
		h := comparableHeaders(res.Header)
		var keys []string
		for k := range h {
			keys = append(keys, k)
		}
		var wantKeys []string
		for k, v := range want {
			wantKeys = append(wantKeys, k)
			if h.Get(k) != v {
				t.Errorf("%s %s %s: %s %q, want %q", what, method, u, k, h.Get(k), v)
			}
		}
		slices.Sort(keys)
		slices.Sort(wantKeys)
		if !slices.Equal(keys, wantKeys) {
			t.Errorf("%s %s %s: headers %v, want exactly %v", what, method, u, keys, wantKeys)
		}
	}
	for _, u := range urls(d) {
		check("GET", okHeaders, 200, rawDocText, "GET", u, nil)
		check("HEAD", okHeaders, 200, "", "HEAD", u, nil)
		for _, inm := range []string{etag, "W/" + etag, `"nope", ` + etag, "*"} {
			check("If-None-Match "+inm, notModified, 304, "", "GET", u, map[string]string{"If-None-Match": inm})
			check("HEAD If-None-Match "+inm, notModified, 304, "", "HEAD", u, map[string]string{"If-None-Match": inm})
		}
		check("other If-None-Match", okHeaders, 200, rawDocText, "GET", u, map[string]string{"If-None-Match": `"other"`})
	}
	rangeHeaders := map[string]string{"Accept-Ranges": "bytes", "Cache-Control": okHeaders["Cache-Control"], "Content-Length": "4",
		"Content-Range": "bytes 2-5/" + strconv.Itoa(len(rawDocText)), "Content-Type": okHeaders["Content-Type"], "Etag": etag, "X-Content-Type-Options": "nosniff"}
	check("Range", rangeHeaders, 206, rawDocText[2:6], "GET", "/protocol/"+d.Hex(), map[string]string{"Range": "bytes=2-5"})

	headersAgree(t, ts.URL, "/protocol/"+d.Hex(), d)

	// A larger document (54 KB) answers the same.
	bigText := "# Big\n\n" + strings.Repeat("A line of a long document.\n", 2000)
	big, err := svc.Publish(ctx, []byte(bigText), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	b := big.Entry.Digest
	if _, err := svc.RawDocument(ctx, b); err != nil {
		t.Fatal(err)
	}
	svc.WaitBlobs()
	bigHeaders := map[string]string{"Cache-Control": okHeaders["Cache-Control"], "Content-Length": strconv.Itoa(len(bigText)),
		"Content-Type": okHeaders["Content-Type"], "Etag": `"` + b.Hex() + `"`, "X-Content-Type-Options": "nosniff"}
	for range 3 { // read, verified read, promoted (cache source) read
		check("big GET", bigHeaders, 200, bigText, "GET", "/protocol/"+b.Hex(), nil)
	}
	check("big HEAD", bigHeaders, 200, "", "HEAD", "/protocol/"+b.Hex(), nil)
	bigRange := map[string]string{"Accept-Ranges": "bytes", "Cache-Control": okHeaders["Cache-Control"], "Content-Length": "10",
		"Content-Range": "bytes 40000-40009/" + strconv.Itoa(len(bigText)), "Content-Type": okHeaders["Content-Type"], "Etag": `"` + b.Hex() + `"`, "X-Content-Type-Options": "nosniff"}
	check("big Range", bigRange, 206, bigText[40000:40010], "GET", "/protocol/"+b.Hex(), map[string]string{"Range": "bytes=40000-40009"})
	headersAgree(t, ts.URL, "/protocol/"+b.Hex(), b)

	// Every answer above is counted as a fetch, whichever source gave it
	// (5 URLs x 11 requests + 1 Range + 4 comparing headers; 3 GETs, 1
	// HEAD, 1 Range + 4).
	if err := counter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for x, want := range map[protocol.Digest]int64{d: 60, b: 9} {
		days, err := st.AdoptionDays(ctx, x, time.Now().AddDate(0, 0, -1), time.Now().AddDate(0, 0, 1))
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, day := range days {
			n += day.Fetches
		}
		if n != want {
			t.Errorf("%s: %d fetches counted, want %d", x.Hex(), n, want)
		}
	}

	rawDeprecation(t, ts.URL, svc, st, cfg, source, d)

	unknown := protocol.MustParseDigest("a9993e364706816aba3e25717850c26c9cd0d89d")
	problem := func(status int, code string, method, u string, hdr map[string]string) {
		t.Helper()
		res, body := do(t, method, ts.URL+u, hdr)
		// A HEAD problem has neither body nor its Content-Type.
		if res.StatusCode != status || res.Header.Get("Etag") != "" || res.Header.Get("Cache-Control") != "no-store" ||
			(method == "GET" && (res.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(body), `"code":"`+code+`"`))) {
			t.Errorf("%s %s %v: %d %v %s, want %d %s", method, u, hdr, res.StatusCode, res.Header, body, status, code)
		}
	}
	for _, u := range urls(unknown) {
		problem(404, "not_found", "GET", u, nil)
		problem(404, "not_found", "HEAD", u, nil)
		problem(404, "not_found", "GET", u, map[string]string{"If-None-Match": `"` + unknown.Hex() + `"`})
	}

	// Withdrawal: every form answers 410, conditional or not, and the blob
	// is gone.
	check("before withdrawal", map[string]string{"Cache-Control": okHeaders["Cache-Control"], "Content-Length": strconv.Itoa(len(goneDocText)),
		"Content-Type": okHeaders["Content-Type"], "Etag": `"` + g.Hex() + `"`, "X-Content-Type-Options": "nosniff"},
		200, goneDocText, "GET", "/protocol/"+g.Hex(), nil)
	if err := svc.Withdraw(ctx, entity.Token{ID: 1, Name: "test"}, g, "test"); err != nil {
		t.Fatal(err)
	}
	if source == "blob" && cfg.Blobs.Has(g) {
		t.Error("the withdrawn document's blob is still there")
	}
	if source == "blob" {
		// A file left for a withdrawn document (another replica's
		// withdrawal, a fill racing it) is never served: the withdrawn
		// set is checked first.
		if err := cfg.Blobs.Put(g, []byte(goneDocText)); err != nil {
			t.Fatal(err)
		}
	}
	for _, u := range urls(g) {
		problem(410, "withdrawn", "GET", u, nil)
		problem(410, "withdrawn", "HEAD", u, nil)
		problem(410, "withdrawn", "GET", u, map[string]string{"If-None-Match": `"` + g.Hex() + `"`})
		problem(410, "withdrawn", "GET", u, map[string]string{"If-None-Match": "*"})
	}

	if source == "blob" {
		// With the store closed, the blob still answers GET, HEAD and 304:
		// the answers above came from the file, not the database.
		st.Close()
		check("GET, store closed", okHeaders, 200, rawDocText, "GET", "/protocol/"+d.Hex(), nil)
		check("HEAD, store closed", okHeaders, 200, "", "HEAD", "/protocol/"+d.Hex(), nil)
		check("304, store closed", notModified, 304, "", "GET", "/protocol/"+d.Hex(), map[string]string{"If-None-Match": etag})
	}
}

// headersAgree checks that the four kinds of raw answer of one document
// (GET, HEAD, 304, Range) carry the same headers, apart from those a kind
// adds or drops by definition: HEAD's are GET's; a 304 drops Content-Type
// and Content-Length; a 206 adds Accept-Ranges and Content-Range and has
// its own Content-Length.
func headersAgree(t *testing.T, base, u string, d protocol.Digest) {
	t.Helper()
	get := func(method string, hdr map[string]string, status int) http.Header {
		t.Helper()
		res, _ := do(t, method, base+u, hdr)
		if res.StatusCode != status {
			t.Fatalf("%s %s %v: %d, want %d", method, u, hdr, res.StatusCode, status)
		}
		return comparableHeaders(res.Header)
	}
	full := get("GET", nil, 200)
	without := func(h http.Header, keys ...string) http.Header {
		h = h.Clone()
		for _, k := range keys {
			h.Del(k)
		}
		return h
	}
	for name, c := range map[string]struct{ got, want http.Header }{
		"HEAD": {get("HEAD", nil, 200), full},
		"304":  {get("GET", map[string]string{"If-None-Match": `"` + d.Hex() + `"`}, 304), without(full, "Content-Type", "Content-Length")},
		"Range": {without(get("GET", map[string]string{"Range": "bytes=0-1"}, 206), "Accept-Ranges", "Content-Range", "Content-Length"),
			without(full, "Content-Length")},
	} {
		if !maps.EqualFunc(c.got, c.want, slices.Equal) {
			t.Errorf("%s %s: headers %v, GET's are %v", name, u, c.got, full)
		}
	}
}
