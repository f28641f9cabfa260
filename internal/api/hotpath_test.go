package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

const hotDoc = "---\ntitle: \"Hot \\\"quoted\\\" <title>\"\ndescription: A document served from the cache.\n---\n\n# Hot\n\nBody.\n"

// twoServers are one store behind a server with the raw cache and one
// without (every answer from the store).
type twoServers struct {
	hot, cold     *Server
	hotSvc        *registry.Service
	hotTS, coldTS *httptest.Server
}

func newTwoServers(t *testing.T, cfg Config) twoServers {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	hotSvc := registry.New(st, registry.Config{PublicURL: "http://registry.test", CacheBytes: 1 << 20})
	coldSvc := registry.New(st, registry.Config{PublicURL: "http://registry.test"})
	ts := twoServers{hot: New(hotSvc, cfg), cold: New(coldSvc, cfg), hotSvc: hotSvc}
	ts.hotTS, ts.coldTS = httptest.NewServer(ts.hot.Handler()), httptest.NewServer(ts.cold.Handler())
	t.Cleanup(ts.hotTS.Close)
	t.Cleanup(ts.coldTS.Close)
	return ts
}

func do(t *testing.T, method, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// comparableHeaders drops the headers that legitimately differ per request.
func comparableHeaders(h http.Header) http.Header {
	h = h.Clone()
	h.Del("Date")
	h.Del(HeaderRequestID)
	return h
}

func TestCachedRawAnswersLikeTheStore(t *testing.T) {
	ts := newTwoServers(t, Config{})
	ctx := context.Background()
	pub, err := ts.hotSvc.Publish(ctx, []byte(hotDoc), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	d := pub.Entry.Digest
	if _, err := ts.hotSvc.Raw(ctx, d); err != nil { // warm the cache
		t.Fatal(err)
	}
	etag := `"` + d.Hex() + `"`
	cases := []struct {
		name, method, path string
		hdr                map[string]string
		want               int
	}{
		{"get hex", "GET", "/protocol/" + d.Hex(), nil, 200},
		{"get upper hex", "GET", "/protocol/" + strings.ToUpper(d.Hex()), nil, 200},
		{"get base64", "GET", "/protocol/" + strings.ReplaceAll(d.Base64(), "/", "%2F"), nil, 200},
		{"head", "HEAD", "/protocol/" + d.Hex(), nil, 200},
		{"304", "GET", "/protocol/" + d.Hex(), map[string]string{"If-None-Match": etag}, 304},
		{"304 weak in a list", "GET", "/protocol/" + d.Hex(), map[string]string{"If-None-Match": `"x", W/` + etag}, 304},
		{"304 star", "HEAD", "/protocol/" + d.Hex(), map[string]string{"If-None-Match": "*"}, 304},
		{"etag mismatch", "GET", "/protocol/" + d.Hex(), map[string]string{"If-None-Match": `"nope"`}, 200},
		{"malformed", "GET", "/protocol/xyz", nil, 400},
		{"unknown", "GET", "/protocol/" + strings.Repeat("ab", 20), nil, 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hres, hbody := do(t, tc.method, ts.hotTS.URL+tc.path, tc.hdr)
			cres, cbody := do(t, tc.method, ts.coldTS.URL+tc.path, tc.hdr)
			if hres.StatusCode != tc.want || cres.StatusCode != tc.want {
				t.Fatalf("status cached %d, store %d; want %d", hres.StatusCode, cres.StatusCode, tc.want)
			}
			if !bytes.Equal(hbody, cbody) && tc.want < 400 {
				t.Errorf("bodies differ:\ncached %q\nstore  %q", hbody, cbody)
			}
			hh, ch := comparableHeaders(hres.Header), comparableHeaders(cres.Header)
			for k := range ch {
				if hh.Get(k) != ch.Get(k) {
					t.Errorf("header %s: cached %q, store %q", k, hh.Get(k), ch.Get(k))
				}
			}
			for k := range hh {
				if _, ok := ch[k]; !ok {
					t.Errorf("header %s only from the cache", k)
				}
			}
			if hres.Header.Get(HeaderRequestID) == "" {
				t.Error("no request id on a cached answer")
			}
		})
	}
	if _, ok := ts.hotSvc.CachedRaw(d); !ok {
		t.Fatal("the cached server's answers did not come from its cache")
	}

	// A withdrawal empties the cache entry: 410 from the router.
	if err := ts.hotSvc.Withdraw(ctx, entity.Token{Name: "test"}, d, "test"); err != nil {
		t.Fatal(err)
	}
	if res, _ := do(t, "GET", ts.hotTS.URL+"/protocol/"+d.Hex(), nil); res.StatusCode != 410 {
		t.Errorf("withdrawn: %d, want 410", res.StatusCode)
	}
}

func TestRawKeepsRequestIDsAndRateLimit(t *testing.T) {
	ts := newTwoServers(t, Config{})
	ctx := context.Background()
	pub, err := ts.hotSvc.Publish(ctx, []byte(hotDoc), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.hotSvc.Raw(ctx, pub.Entry.Digest); err != nil {
		t.Fatal(err)
	}
	url := ts.hotTS.URL + "/protocol/" + pub.Entry.Digest.Hex()
	if res, _ := do(t, "GET", url, map[string]string{HeaderRequestID: "client-id.1"}); res.Header.Get(HeaderRequestID) != "client-id.1" {
		t.Errorf("well-formed id not kept: %q", res.Header.Get(HeaderRequestID))
	}
	seen := map[string]bool{}
	for range 3 {
		res, _ := do(t, "GET", url, map[string]string{HeaderRequestID: "bad id;" + strings.Repeat("x", 70)})
		id := res.Header.Get(HeaderRequestID)
		if !validRequestID(id) || seen[id] {
			t.Errorf("generated id %q invalid or repeated", id)
		}
		seen[id] = true
	}

	// With a limit of one request, the second cached fetch is refused with
	// the 429 problem.
	ts.hot.limit = NewRateLimiter(0.001, 1, "requests")
	if res, _ := do(t, "GET", url, nil); res.StatusCode != 200 {
		t.Fatalf("first: %d", res.StatusCode)
	}
	res, body := do(t, "GET", url, nil)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "rate_limited") {
		t.Errorf("second: %d %q", res.StatusCode, body)
	}
}

func TestHeavyRequestsBeyondTheBoundGet503(t *testing.T) {
	ts := newTwoServers(t, Config{MaxHeavyRequests: 1, HeavyQueueWait: 1})
	ts.hot.heavy.slots <- struct{}{} // one heavy request in flight
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/api/v1/resolve", `{"hashes":[]}`},
		{"GET", "/api/v1/protocols?q=hot", ""},
	} {
		req, _ := http.NewRequest(r.method, ts.hotTS.URL+r.path, strings.NewReader(r.body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var p Problem
		_ = json.NewDecoder(res.Body).Decode(&p)
		res.Body.Close()
		if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" || p.Code != "overloaded" {
			t.Errorf("%s %s with the gate full: %d Retry-After=%q code=%q", r.method, r.path, res.StatusCode, res.Header.Get("Retry-After"), p.Code)
		}
	}
	ts.hot.heavy.release()
	res, body := do(t, "GET", ts.hotTS.URL+"/api/v1/protocols?q=hot", nil)
	if res.StatusCode != 200 {
		t.Errorf("after release: %d %s", res.StatusCode, body)
	}
	if len(ts.hot.heavy.slots) != 0 {
		t.Errorf("slot not released after a request: %d held", len(ts.hot.heavy.slots))
	}
}

func TestResolveAnswersEveryKindOfItem(t *testing.T) {
	ts := newTwoServers(t, Config{})
	ctx := context.Background()
	live, err := ts.hotSvc.PublishRequest(ctx, registry.PublishRequest{Content: []byte(hotDoc), Publisher: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := ts.hotSvc.Publish(ctx, []byte("---\ntitle: Gone\n---\n\nWithdrawn.\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.hotSvc.Withdraw(ctx, entity.Token{Name: "test"}, gone.Entry.Digest, "test"); err != nil {
		t.Fatal(err)
	}
	unknown := protocol.Digest{1, 2, 3}
	hostile := "\"<&>\\\u2028\x01"
	hashes := []string{live.Entry.Digest.Base64(), hostile, unknown.Hex(), gone.Entry.Digest.Hex()}
	// A full batch.
	for len(hashes) < store.MaxResolve {
		hashes = append(hashes, live.Entry.Digest.Hex())
	}
	body, _ := json.Marshal(resolveJSON{Hashes: hashes})
	res, err := http.Post(ts.hotTS.URL+"/api/v1/resolve", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !json.Valid(raw) {
		t.Fatalf("%d, valid JSON %v: %.300s", res.StatusCode, json.Valid(raw), raw)
	}
	var out struct{ Results []ResolveItem }
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != len(hashes) {
		t.Fatalf("%d results for %d hashes", len(out.Results), len(hashes))
	}
	src := "http://registry.test/protocol/" + live.Entry.Digest.Hex()
	want := []ResolveItem{
		{Hash: hashes[0], Found: true, Hex: live.Entry.Digest.Hex(), Base64: live.Entry.Digest.Base64(), Sources: []string{src}, Title: live.Entry.Metadata.Title, Status: "active", Publisher: "acme"},
		{Hash: hostile, Sources: []string{}, Error: "malformed_hash"},
		{Hash: unknown.Hex(), Hex: unknown.Hex(), Base64: unknown.Base64(), Sources: []string{}},
		{Hash: hashes[3], Found: true, Hex: gone.Entry.Digest.Hex(), Base64: gone.Entry.Digest.Base64(), Sources: []string{}, Title: "Gone", Withdrawn: true, Status: "withdrawn", Publisher: "default"},
	}
	for i, w := range want {
		g, _ := json.Marshal(out.Results[i])
		e, _ := json.Marshal(w)
		if !bytes.Equal(g, e) {
			t.Errorf("item %d:\ngot  %s\nwant %s", i, g, e)
		}
	}
	if last := out.Results[len(out.Results)-1]; !last.Found || last.Sources[0] != src {
		t.Errorf("last item: %+v", last)
	}
}

func TestListenPprofIsLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "example.com:0", "nonsense"} {
		if ln, err := ListenPprof(addr); err == nil {
			ln.Close()
			t.Errorf("%s accepted", addr)
		}
	}
	ln, err := ListenPprof("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServePprof(ctx, ln) }()
	res, body := do(t, "GET", "http://"+ln.Addr().String()+"/debug/pprof/", nil)
	if res.StatusCode != 200 || !bytes.Contains(body, []byte("goroutine")) {
		t.Errorf("pprof index: %d", res.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServePprof: %v", err)
	}
}
