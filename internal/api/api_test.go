package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/problem"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// fakePages records what the server hands to the HTML interface.
type fakePages struct{ errors []string }

func (p *fakePages) Register(e *echo.Echo, heavy echo.MiddlewareFunc) {
	e.GET("/protocols", func(c echo.Context) error { return c.HTML(200, "<p>browse</p>") }, heavy)
}
func (p *fakePages) Home(c echo.Context) error { return c.HTML(200, "<p>home</p>") }
func (p *fakePages) RenderError(c echo.Context, status int, code, message string) error {
	p.errors = append(p.errors, code)
	return c.HTML(status, "<p>"+code+"</p>")
}

func newTestServer(t *testing.T, pages Pages) *httptest.Server {
	t.Helper()
	ts, _ := newServer(t, Config{}, func(*registry.Service) []Option {
		if pages != nil {
			return []Option{WithPages(pages)}
		}
		return nil
	})
	return ts
}

// newServer is the API over a fresh SQLite store, with cfg (its logger
// discarding unless set) and the options opts gives for its service (nil:
// none), and the service behind it.
func newServer(t *testing.T, cfg Config, opts func(*registry.Service) []Option) (*httptest.Server, *registry.Service) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := registry.New(st, registry.Config{PublicURL: "http://registry.test"})
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var o []Option
	if opts != nil {
		o = opts(svc)
	}
	ts := httptest.NewServer(New(svc, cfg, o...).Handler())
	t.Cleanup(ts.Close)
	return ts, svc
}

func get(t *testing.T, url, accept string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

func TestPagesHooks(t *testing.T) {
	p := &fakePages{}
	ts := newTestServer(t, p)
	if _, body := get(t, ts.URL+"/", browserAccept); body != "<p>home</p>" {
		t.Errorf("browser home: %q", body)
	}
	if res, body := get(t, ts.URL+"/", "*/*"); !strings.Contains(body, `"protocols":[]`) || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("curl home: %q", body)
	}
	if _, body := get(t, ts.URL+"/protocols", browserAccept); body != "<p>browse</p>" {
		t.Errorf("registered page: %q", body)
	}
	// A browser gets an HTML error outside the machine paths…
	if res, body := get(t, ts.URL+"/nowhere", browserAccept); res.StatusCode != 404 || body != "<p>route_not_found</p>" {
		t.Errorf("html 404: %d %q", res.StatusCode, body)
	}
	// …but problem JSON on raw and API paths, whatever it accepts.
	for _, path := range []string{"/protocol/zz", "/protocol?id=zz", "/api/v1/protocols/zz"} {
		res, body := get(t, ts.URL+path, browserAccept)
		if res.StatusCode != 400 || res.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(body, `"code":"malformed_hash"`) {
			t.Errorf("%s: %d %s %q", path, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
	if len(p.errors) != 1 {
		t.Errorf("RenderError calls %v", p.errors)
	}
}

func TestWantsHTML(t *testing.T) {
	for accept, want := range map[string]bool{
		browserAccept:                          true,
		"":                                     false,
		"*/*":                                  false,
		"application/json":                     false,
		"text/html;q=0.5, application/json":    false,
		"application/json;q=0.1, text/html":    true,
		"text/html;q=0":                        false,
		"TEXT/HTML":                            true,
		"text/html;;;q=oops, application/json": false,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Accept", accept)
		if got := WantsHTML(r); got != want {
			t.Errorf("WantsHTML(%q) = %v, want %v", accept, got, want)
		}
	}
}

func TestETagMatches(t *testing.T) {
	etag := `"abc"`
	for header, want := range map[string]bool{
		`"abc"`: true, `W/"abc"`: true, `"x", "abc"`: true, `*`: true,
		``: false, `"ab"`: false, `abc`: false, `"abc`: false,
	} {
		if got := etagMatches(header, etag); got != want {
			t.Errorf("etagMatches(%q) = %v, want %v", header, got, want)
		}
	}
}

func TestParsePublishBody(t *testing.T) {
	for _, tc := range []struct {
		ct, body, wantErr, wantContent string
	}{
		{"", "# A\n", "", "# A\n"},
		{"text/markdown; charset=utf-8", "# A\r\n", "", "# A\r\n"},
		{"application/json", `{"content":"# B\n","tags":["x"]}`, "", "# B\n"},
		{"application/json", `{"tags":["x"]}`, "invalid_json", ""},
		{"application/json", `{"content":1}`, "invalid_json", ""},
		{"application/json", `{"content":"a"} {}`, "invalid_json", ""},
		{"application/json", ``, "invalid_json", ""},
		{"image/png", "x", "unsupported_media_type", ""},
		{"text/;;", "x", "unsupported_media_type", ""},
	} {
		r, err := parsePublishBody(tc.ct, []byte(tc.body))
		_, code, _ := problem.Classify(err)
		if tc.wantErr != "" {
			if err == nil || code != tc.wantErr {
				t.Errorf("%q %q: err %v (code %s), want %s", tc.ct, tc.body, err, code, tc.wantErr)
			}
			continue
		}
		if err != nil || string(r.Content) != tc.wantContent {
			t.Errorf("%q %q: %v %q", tc.ct, tc.body, err, r.Content)
		}
	}
}

// FuzzParsePublishBody: hostile bodies give a classified 4xx error or a
// request, never a panic or a 500.
func FuzzParsePublishBody(f *testing.F) {
	f.Add("application/json", []byte(`{"content":"# x","tags":["a"]}`))
	f.Add("text/plain", []byte("# x"))
	f.Add("application/json; charset=utf-8", []byte(`{"content":"\u0000"}`))
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		_, err := parsePublishBody(ct, body)
		if err == nil {
			return
		}
		if status, _, _ := problem.Classify(err); status < 400 || status >= 500 {
			t.Fatalf("status %d for %v", status, err)
		}
	})
}

// FuzzResolveDecode: a hostile resolve body gives a 400 or at most
// MaxResolve hashes, never a panic.
func FuzzResolveDecode(f *testing.F) {
	f.Add([]byte(`{"hashes":["a9993e364706816aba3e25717850c26c9cd0d89d"]}`))
	f.Add([]byte(` {"hashes" : [ "\u0061" , "qZk+NkcGgWq6PiVxeFDCbJzNiJ0=" ] } `))
	f.Add([]byte(`{"hashes":["a"],"hashes":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		hashes, err := decodeResolveBody(body)
		if err != nil {
			if status, _, _ := problem.Classify(err); status != 400 {
				t.Fatalf("status %d for %v", status, err)
			}
			return
		}
		if len(hashes) > store.MaxResolve {
			t.Fatalf("%d hashes accepted", len(hashes))
		}
	})
}
