package openapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/api/html"
	"github.com/agora-registry/registry/internal/api/openapi"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/translog"
)

// htmlRoutes are the browser pages: HTML, not API, so the document leaves
// them out. Each must still exist, so this list cannot go stale.
var htmlRoutes = map[string]bool{
	"GET /protocols":        true,
	"GET /protocols/*":      true,
	"GET /publish":          true,
	"POST /publish":         true,
	"GET /tags":             true,
	"GET /publishers/:name": true,
	"GET /static/*":         true,
	"GET /agents":           true,
	"GET /agents/:id":       true,
	"GET /api":              true,
	"GET /log":              true,
	"GET /feed.atom":        true,
}

// sharedStatuses may be answered by (nearly) every operation for reasons
// outside the handler (rate limit, a bug, a database outage); they are
// checked once on representative routes instead of per operation. 500
// cannot be provoked on purpose and is only required to be documented.
var sharedStatuses = map[string]bool{"429": true, "500": true, "503": true}

// storeFree operations never touch the database, so they must not
// document 503.
var storeFree = map[string]bool{"GET /healthz": true, "GET /metrics": true, "GET /api/v1/openapi.json": true, "GET /.well-known/agora": true, "GET /llms.txt": true}

// unlimited operations are probes and scrapes, exempt from the rate limit,
// so they must not document 429.
var unlimited = map[string]bool{"GET /healthz": true, "GET /readyz": true, "GET /metrics": true}

type document struct {
	OpenAPI    string                                `json:"openapi"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components map[string]map[string]json.RawMessage `json:"components"`
}

type operation struct {
	Responses map[string]json.RawMessage `json:"responses"`
}

var httpMethods = map[string]bool{"get": true, "head": true, "post": true, "put": true, "delete": true, "patch": true, "options": true, "trace": true}

func load(t *testing.T) document {
	t.Helper()
	var d document
	if err := json.Unmarshal(openapi.Document, &d); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if d.OpenAPI != "3.1.0" {
		t.Fatalf("openapi = %q, want 3.1.0", d.OpenAPI)
	}
	return d
}

// operations maps "METHOD /path" to the documented status codes.
func operations(t *testing.T, d document) map[string]map[string]bool {
	t.Helper()
	ops := map[string]map[string]bool{}
	for path, item := range d.Paths {
		for method, raw := range item {
			if !httpMethods[method] {
				continue // "parameters", "summary", …
			}
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			codes := map[string]bool{}
			for code := range op.Responses {
				codes[code] = true
			}
			ops[strings.ToUpper(method)+" "+path] = codes
		}
	}
	return ops
}

var routeParam = regexp.MustCompile(`:([a-z]+)`)

// docPath turns an echo route into the document's path template: the
// registry's only wildcards are the trailing hashes; the agent's id is
// the one named parameter.
func docPath(route string) string {
	switch {
	case route == "/log/tile/*":
		return "/log/tile/{path}"
	case strings.Contains(route, "/:"):
		return routeParam.ReplaceAllString(route, "{$1}")
	}
	if strings.HasSuffix(route, "/*") {
		return strings.TrimSuffix(route, "*") + "{hash}"
	}
	parts := strings.Split(route, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") {
			parts[i] = "{" + p[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

// subResources are the operations a wildcard route answers beside (or
// instead of) its own: /protocols/{hash}/SUB, parsed by the handler since
// a hash's Base64 spelling may hold a '/'.
var subResources = map[string][]string{
	"GET /protocol/*":          {"GET /protocol/{hash}.tlog-proof"},
	"GET /api/v1/protocols/*":  {"GET /api/v1/protocols/{hash}/versions", "GET /api/v1/protocols/{hash}/history", "GET /api/v1/protocols/{hash}/agents"},
	"POST /api/v1/protocols/*": {"POST /api/v1/protocols/{hash}/status"},
}

// wildcardOnlySub are wildcard routes that answer only their sub-resources.
var wildcardOnlySub = map[string]bool{"POST /api/v1/protocols/*": true}

// TestReferencesResolve: every $ref points at a component that exists.
func TestReferencesResolve(t *testing.T) {
	d := load(t)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
				if len(parts) != 2 || d.Components[parts[0]][parts[1]] == nil {
					t.Errorf("dangling $ref %q", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var all any
	if err := json.Unmarshal(openapi.Document, &all); err != nil {
		t.Fatal(err)
	}
	walk(all)
}

// fixture is a real server over a real SQLite store.
type fixture struct {
	srv                    *httptest.Server
	echo                   *echo.Echo
	st                     store.Store
	publishToken, adminTok string
	doc, withdrawn         protocol.Digest
	// replacement, cycle (deprecated for doc) and foreign (another
	// publisher's) serve the status scenarios.
	replacement, cycle, foreign protocol.Digest
	agent                       *httptest.Server // serves spec v0.2's /wellknown only
	hanging                     *httptest.Server // answers nothing until the test ends
}

func newFixture(t *testing.T, opts ...api.Option) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	key, err := translog.ParseKey(logKey)
	if err != nil {
		t.Fatal(err)
	}
	svc := registry.New(st, registry.Config{PublicURL: "http://registry.test", MaxDocumentBytes: 8 << 10, Logger: log,
		Log: translog.New(st, key, log)})
	pages, err := html.New(svc, html.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := directory.New(st, directory.Config{Allow: []string{"127.0.0.1/32"}, Logger: log, RegisterWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dir.Close) // before the store closes
	opts = append([]api.Option{api.WithPages(pages), api.WithAuthenticator(api.NewAuthenticator(svc, false)), api.WithDirectory(dir)}, opts...)
	s := api.New(svc, api.Config{Logger: log, MaxBodyBytes: 16 << 10}, opts...)
	f := &fixture{srv: httptest.NewServer(s.Echo()), echo: s.Echo(), st: st}
	t.Cleanup(f.srv.Close)
	f.agent = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/wellknown" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, `{"`+strings.Repeat("ab", 20)+`": ["https://example.org/p.md"]}`)
	}))
	t.Cleanup(f.agent.Close)
	stopHanging := make(chan struct{})
	f.hanging = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stopHanging:
		case <-r.Context().Done():
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(f.hanging.Close)
	t.Cleanup(func() { close(stopHanging) }) // before the server closes

	pub, err := svc.CreateToken(ctx, "publisher", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	adm, err := svc.CreateToken(ctx, "admin", []entity.Scope{entity.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	f.publishToken, f.adminTok = pub.Secret, adm.Secret
	for i, body := range []string{"---\nname: Kept\ndescription: stays\ntags: [kept]\n---\n# Kept\n", "# Withdrawn\n\nGoes away.\n"} {
		res, err := svc.PublishRequest(ctx, registry.PublishRequest{Content: []byte(body)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			f.doc = res.Entry.Digest
		} else {
			f.withdrawn = res.Entry.Digest
		}
	}
	if err := svc.Withdraw(ctx, entity.Token{Name: "test"}, f.withdrawn, "test"); err != nil {
		t.Fatal(err)
	}
	f.lifecycleDocs(t, svc)
	return f
}

// lifecycleDocs stores what the status scenarios act on: a replacement and
// a document deprecated in favour of f.doc (so naming it as f.doc's
// replacement is a cycle), both of the publish token's publisher, and a
// document of another publisher.
func (f *fixture) lifecycleDocs(t *testing.T, svc *registry.Service) {
	ctx := context.Background()
	if _, err := svc.CreatePublisher(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	publish := func(body, publisher string) protocol.Digest {
		res, err := svc.PublishRequest(ctx, registry.PublishRequest{Content: []byte(body), Publisher: publisher})
		if err != nil {
			t.Fatal(err)
		}
		return res.Entry.Digest
	}
	f.replacement = publish("# Replacement\n\nUse this.\n", "")
	f.cycle = publish("# Older\n\nReplaced by Kept.\n", "")
	f.foreign = publish("# Acme's\n\nNot yours.\n", "acme")
	publish("# Imported\n\nUnder a name without an account.\n", "legacy")
	admin := entity.Token{ID: 1, Name: "fixture", Scopes: []entity.Scope{entity.ScopeAdmin}}
	if _, err := svc.SetStatus(ctx, admin, f.cycle, registry.StatusRequest{Status: entity.StatusDeprecated, Replacement: &f.doc}); err != nil {
		t.Fatal(err)
	}
}

// logKey signs the fixture's log (no integrator runs: the log endpoints
// integrate what they need).
var logKey = func() string {
	k, err := translog.GenerateKey("registry.test")
	if err != nil {
		panic(err)
	}
	return k
}()

// scenario is one representative request and the status it must get.
type scenario struct {
	name    string
	op      string // "METHOD /documented/path"
	method  string
	path    string // with query, already escaped
	header  map[string]string
	body    string
	status  int
	onlyFor string // "" normal fixture, "ratelimited", "closed"
}

func (f *fixture) do(t *testing.T, sc scenario) *http.Response {
	t.Helper()
	req, err := http.NewRequest(sc.method, f.srv.URL+sc.path, strings.NewReader(sc.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range sc.header {
		req.Header.Set(k, v)
	}
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

func scenarios(f *fixture) []scenario {
	hex, b64, gone := f.doc.Hex(), f.doc.Base64(), f.withdrawn.Hex()
	unknown := protocol.MustParseDigest("0000000000000000000000000000000000000000").Hex()
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	withType := func(tok, ct string) map[string]string {
		h := bearer(tok)
		h["Content-Type"] = ct
		return h
	}
	big := strings.Repeat("x", 20<<10)
	const stat = "POST /api/v1/protocols/{hash}/status"
	statPath := func(h string) string { return "/api/v1/protocols/" + h + "/status" }
	bigDoc := "# Big\n\n" + strings.Repeat("y", 9<<10)
	return []scenario{
		{name: "raw hex", op: "GET /protocol/{hash}", method: "GET", path: "/protocol/" + hex, status: 200},
		{name: "raw base64 %2F", op: "GET /protocol/{hash}", method: "GET", path: "/protocol/" + url.PathEscape(b64), status: 200},
		{name: "raw etag", op: "GET /protocol/{hash}", method: "GET", path: "/protocol/" + hex, header: map[string]string{"If-None-Match": `"` + hex + `"`}, status: 304},
		{name: "raw malformed", op: "GET /protocol/{hash}", method: "GET", path: "/protocol/nothex", status: 400},
		{name: "raw unknown", op: "GET /protocol/{hash}", method: "GET", path: "/protocol/" + unknown, status: 404},
		{name: "raw withdrawn", op: "GET /protocol/{hash}", method: "GET", path: "/protocol/" + gone, status: 410},
		{name: "head raw", op: "HEAD /protocol/{hash}", method: "HEAD", path: "/protocol/" + hex, status: 200},
		{name: "head raw etag", op: "HEAD /protocol/{hash}", method: "HEAD", path: "/protocol/" + hex, header: map[string]string{"If-None-Match": `"` + hex + `"`}, status: 304},
		{name: "head raw malformed", op: "HEAD /protocol/{hash}", method: "HEAD", path: "/protocol/zz", status: 400},
		{name: "head raw unknown", op: "HEAD /protocol/{hash}", method: "HEAD", path: "/protocol/" + unknown, status: 404},
		{name: "head raw withdrawn", op: "HEAD /protocol/{hash}", method: "HEAD", path: "/protocol/" + gone, status: 410},
		{name: "raw ?id base64", op: "GET /protocol", method: "GET", path: "/protocol?id=" + url.QueryEscape(b64), status: 200},
		{name: "raw ?id etag", op: "GET /protocol", method: "GET", path: "/protocol?id=" + hex, header: map[string]string{"If-None-Match": `"` + hex + `"`}, status: 304},
		{name: "raw ?id missing", op: "GET /protocol", method: "GET", path: "/protocol", status: 400},
		{name: "raw ?id unknown", op: "GET /protocol", method: "GET", path: "/protocol?id=" + unknown, status: 404},
		{name: "raw ?id withdrawn", op: "GET /protocol", method: "GET", path: "/protocol?id=" + gone, status: 410},
		{name: "head ?id", op: "HEAD /protocol", method: "HEAD", path: "/protocol?id=" + hex, status: 200},
		{name: "head ?id etag", op: "HEAD /protocol", method: "HEAD", path: "/protocol?id=" + hex, header: map[string]string{"If-None-Match": `"` + hex + `"`}, status: 304},
		{name: "head ?id malformed", op: "HEAD /protocol", method: "HEAD", path: "/protocol?id=x", status: 400},
		{name: "head ?id unknown", op: "HEAD /protocol", method: "HEAD", path: "/protocol?id=" + unknown, status: 404},
		{name: "head ?id withdrawn", op: "HEAD /protocol", method: "HEAD", path: "/protocol?id=" + gone, status: 410},
		{name: "metadata", op: "GET /metadata", method: "GET", path: "/metadata?id=" + url.QueryEscape(b64), status: 200},
		{name: "metadata malformed", op: "GET /metadata", method: "GET", path: "/metadata?id=nope", status: 400},
		{name: "metadata unknown", op: "GET /metadata", method: "GET", path: "/metadata?id=" + unknown, status: 404},
		{name: "metadata withdrawn", op: "GET /metadata", method: "GET", path: "/metadata?id=" + gone, status: 410},
		{name: "metadata path hex", op: "GET /metadata/{hash}", method: "GET", path: "/metadata/" + hex, status: 200},
		{name: "metadata path base64 %2F", op: "GET /metadata/{hash}", method: "GET", path: "/metadata/" + url.PathEscape(b64), status: 200},
		{name: "metadata path malformed", op: "GET /metadata/{hash}", method: "GET", path: "/metadata/nope", status: 400},
		{name: "metadata path unknown", op: "GET /metadata/{hash}", method: "GET", path: "/metadata/" + unknown, status: 404},
		{name: "metadata path withdrawn", op: "GET /metadata/{hash}", method: "GET", path: "/metadata/" + gone, status: 410},
		{name: "demo list", op: "GET /", method: "GET", path: "/", status: 200},
		{name: "demo list head", op: "HEAD /", method: "HEAD", path: "/", status: 200},
		{name: "demo list bad cursor", op: "GET /", method: "GET", path: "/?after=nope", status: 400},
		{name: "demo publish", op: "POST /", method: "POST", path: "/", header: bearer(f.publishToken), body: `{"name":"Demo","description":"d","protocol":"# Demo\n"}`, status: 200},
		{name: "demo publish withdrawn", op: "POST /", method: "POST", path: "/", header: bearer(f.publishToken), body: `{"protocol":"# Withdrawn\n\nGoes away.\n"}`, status: 410},
		{name: "demo publish bad json", op: "POST /", method: "POST", path: "/", header: bearer(f.publishToken), body: `{"protocol":`, status: 400},
		{name: "demo publish no token", op: "POST /", method: "POST", path: "/", body: `{"protocol":"# x\n"}`, status: 401},
		{name: "demo publish bad token", op: "POST /", method: "POST", path: "/", header: bearer("not-a-token"), body: `{"protocol":"# x\n"}`, status: 401},
		{name: "demo publish too large", op: "POST /", method: "POST", path: "/", header: bearer(f.publishToken), body: `{"protocol":"` + big + `"}`, status: 413},
		{name: "search", op: "GET /api/v1/protocols", method: "GET", path: "/api/v1/protocols?q=kept&limit=5", status: 200},
		{name: "search bad limit", op: "GET /api/v1/protocols", method: "GET", path: "/api/v1/protocols?limit=-1", status: 400},
		{name: "publish new", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols", header: withType(f.publishToken, "text/markdown"), body: "# New\n\nFresh.\n", status: 201},
		{name: "publish again", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols", header: withType(f.publishToken, "text/markdown"), body: "# New\n\nFresh.\n", status: 200},
		{name: "publish json", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols", header: withType(f.publishToken, "application/json"), body: `{"content":"# Json\n","tags":["x"]}`, status: 201},
		{name: "publish again with a new tag", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols", header: withType(f.publishToken, "application/json"), body: `{"content":"# Json\n","tags":["x","y"]}`, status: 409},
		{name: "publish withdrawn", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols", header: withType(f.publishToken, "text/markdown"), body: "# Withdrawn\n\nGoes away.\n", status: 410},
		{name: "publish empty", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols", header: withType(f.publishToken, "text/plain"), body: "", status: 400},
		{name: "publish no token", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols", body: "# x\n", status: 401},
		{name: "publish body too large", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols", header: withType(f.publishToken, "text/plain"), body: big, status: 413},
		{name: "publish document too large", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols", header: withType(f.publishToken, "text/plain"), body: bigDoc, status: 413},
		{name: "publish bad media type", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols", header: withType(f.publishToken, "image/png"), body: "x", status: 415},
		{name: "get", op: "GET /api/v1/protocols/{hash}", method: "GET", path: "/api/v1/protocols/" + url.PathEscape(b64) + "?content=1", status: 200},
		{name: "get malformed", op: "GET /api/v1/protocols/{hash}", method: "GET", path: "/api/v1/protocols/abc", status: 400},
		{name: "get unknown", op: "GET /api/v1/protocols/{hash}", method: "GET", path: "/api/v1/protocols/" + unknown, status: 404},
		{name: "get withdrawn", op: "GET /api/v1/protocols/{hash}", method: "GET", path: "/api/v1/protocols/" + gone, status: 410},
		{name: "withdraw no token", op: "DELETE /api/v1/protocols/{hash}", method: "DELETE", path: "/api/v1/protocols/" + hex, status: 401},
		{name: "withdraw publish scope", op: "DELETE /api/v1/protocols/{hash}", method: "DELETE", path: "/api/v1/protocols/" + hex, header: bearer(f.publishToken), status: 403},
		{name: "withdraw malformed", op: "DELETE /api/v1/protocols/{hash}", method: "DELETE", path: "/api/v1/protocols/zz", header: bearer(f.adminTok), status: 400},
		{name: "withdraw unknown", op: "DELETE /api/v1/protocols/{hash}", method: "DELETE", path: "/api/v1/protocols/" + unknown, header: bearer(f.adminTok), status: 404},
		{name: "withdraw withdrawn (idempotent)", op: "DELETE /api/v1/protocols/{hash}", method: "DELETE", path: "/api/v1/protocols/" + gone, header: bearer(f.adminTok), status: 204},
		{name: "demo publish with an admin token", op: "POST /", method: "POST", path: "/", header: bearer(f.adminTok), body: `{"protocol":"# ok\n"}`, status: 200},
		{name: "resolve", op: "POST /api/v1/resolve", method: "POST", path: "/api/v1/resolve", body: `{"hashes":["` + hex + `","` + b64 + `","bad"]}`, status: 200},
		{name: "resolve bad json", op: "POST /api/v1/resolve", method: "POST", path: "/api/v1/resolve", body: `{"hashes":1}`, status: 400},
		{name: "resolve too large", op: "POST /api/v1/resolve", method: "POST", path: "/api/v1/resolve", body: `{"hashes":["` + big + `"]}`, status: 413},
		// Lifecycle: the bad-input table of status changes, versions,
		// history, publishers and the list filters.
		{name: "status deprecate", op: stat, method: "POST", path: statPath(hex), header: withType(f.publishToken, "application/json"), body: `{"status":"deprecated","message":"use the replacement","replacement":"` + f.replacement.Hex() + `"}`, status: 200},
		{name: "status replacement is the document", op: stat, method: "POST", path: statPath(hex), header: bearer(f.publishToken), body: `{"status":"deprecated","replacement":"` + hex + `"}`, status: 400},
		{name: "status unknown replacement", op: stat, method: "POST", path: statPath(hex), header: bearer(f.publishToken), body: `{"status":"deprecated","replacement":"` + unknown + `"}`, status: 400},
		{name: "status withdrawn replacement", op: stat, method: "POST", path: statPath(hex), header: bearer(f.publishToken), body: `{"status":"deprecated","replacement":"` + gone + `"}`, status: 400},
		{name: "status malformed replacement", op: stat, method: "POST", path: statPath(hex), header: bearer(f.publishToken), body: `{"status":"deprecated","replacement":"nope"}`, status: 400},
		{name: "status replacement cycle", op: stat, method: "POST", path: statPath(hex), header: bearer(f.publishToken), body: `{"status":"deprecated","replacement":"` + f.cycle.Hex() + `"}`, status: 400},
		{name: "status unknown status", op: stat, method: "POST", path: statPath(hex), header: bearer(f.publishToken), body: `{"status":"withdrawn"}`, status: 400},
		{name: "status active with a message", op: stat, method: "POST", path: statPath(hex), header: bearer(f.publishToken), body: `{"status":"active","message":"x"}`, status: 400},
		{name: "status bad json", op: stat, method: "POST", path: statPath(hex), header: bearer(f.publishToken), body: `{"status":`, status: 400},
		{name: "status unknown field", op: stat, method: "POST", path: statPath(hex), header: bearer(f.publishToken), body: `{"status":"active","owner":"me"}`, status: 400},
		{name: "status body too large", op: stat, method: "POST", path: statPath(hex), header: bearer(f.publishToken), body: `{"status":"deprecated","message":"` + big + `"}`, status: 413},
		{name: "status foreign publisher's document", op: stat, method: "POST", path: statPath(f.foreign.Hex()), header: bearer(f.publishToken), body: `{"status":"deprecated"}`, status: 403},
		{name: "status admin acts for any publisher", op: stat, method: "POST", path: statPath(f.foreign.Hex()), header: bearer(f.adminTok), body: `{"status":"deprecated","message":"admin says so"}`, status: 200},
		{name: "status no token", op: stat, method: "POST", path: statPath(hex), body: `{"status":"active"}`, status: 401},
		{name: "status malformed hash", op: stat, method: "POST", path: statPath("zz"), header: bearer(f.publishToken), body: `{"status":"active"}`, status: 400},
		{name: "status unknown document", op: stat, method: "POST", path: statPath(unknown), header: bearer(f.publishToken), body: `{"status":"active"}`, status: 404},
		{name: "status withdrawn document", op: stat, method: "POST", path: statPath(gone), header: bearer(f.adminTok), body: `{"status":"active"}`, status: 410},
		{name: "versions", op: "GET /api/v1/protocols/{hash}/versions", method: "GET", path: "/api/v1/protocols/" + url.PathEscape(b64) + "/versions", status: 200},
		{name: "versions malformed", op: "GET /api/v1/protocols/{hash}/versions", method: "GET", path: "/api/v1/protocols/zz/versions", status: 400},
		{name: "versions unknown", op: "GET /api/v1/protocols/{hash}/versions", method: "GET", path: "/api/v1/protocols/" + unknown + "/versions", status: 404},
		{name: "versions withdrawn", op: "GET /api/v1/protocols/{hash}/versions", method: "GET", path: "/api/v1/protocols/" + gone + "/versions", status: 410},
		{name: "history", op: "GET /api/v1/protocols/{hash}/history", method: "GET", path: "/api/v1/protocols/" + hex + "/history", status: 200},
		{name: "history malformed", op: "GET /api/v1/protocols/{hash}/history", method: "GET", path: "/api/v1/protocols/zz/history", status: 400},
		{name: "history unknown", op: "GET /api/v1/protocols/{hash}/history", method: "GET", path: "/api/v1/protocols/" + unknown + "/history", status: 404},
		{name: "publisher", op: "GET /api/v1/publishers/{name}", method: "GET", path: "/api/v1/publishers/acme", status: 200},
		{name: "publisher without an account that documents carry", op: "GET /api/v1/publishers/{name}", method: "GET", path: "/api/v1/publishers/legacy", status: 200},
		{name: "publisher unknown", op: "GET /api/v1/publishers/{name}", method: "GET", path: "/api/v1/publishers/nobody", status: 404},
		{name: "publisher malformed", op: "GET /api/v1/publishers/{name}", method: "GET", path: "/api/v1/publishers/NOT%20A%20NAME", status: 404},
		{name: "list by publisher", op: "GET /api/v1/protocols", method: "GET", path: "/api/v1/protocols?publisher=acme", status: 200},
		{name: "list latest", op: "GET /api/v1/protocols", method: "GET", path: "/api/v1/protocols?latest=true&limit=2", status: 200},
		{name: "list by publisher with q", op: "GET /api/v1/protocols", method: "GET", path: "/api/v1/protocols?publisher=acme&q=x", status: 400},
		{name: "list bad latest", op: "GET /api/v1/protocols", method: "GET", path: "/api/v1/protocols?latest=maybe", status: 400},
		{name: "list malformed publisher", op: "GET /api/v1/protocols", method: "GET", path: "/api/v1/protocols?publisher=NO", status: 400},
		{name: "list by publisher bad cursor", op: "GET /api/v1/protocols", method: "GET", path: "/api/v1/protocols?publisher=acme&cursor=x", status: 400},
		{name: "publish as another publisher", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols?publisher=acme", header: withType(f.publishToken, "text/markdown"), body: "# Not mine\n", status: 403},
		{name: "publish as a publisher without an account", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols?publisher=nobody", header: withType(f.adminTok, "text/markdown"), body: "# Nobody's\n", status: 404},
		{name: "admin publishes for a publisher", op: "POST /api/v1/protocols", method: "POST", path: "/api/v1/protocols?publisher=acme", header: withType(f.adminTok, "text/markdown"), body: "# For acme\n", status: 201},
		{name: "tags", op: "GET /api/v1/tags", method: "GET", path: "/api/v1/tags", status: 200},
		{name: "tags bad limit", op: "GET /api/v1/tags", method: "GET", path: "/api/v1/tags?limit=x", status: 400},
		{name: "stats", op: "GET /api/v1/stats", method: "GET", path: "/api/v1/stats", status: 200},
		{name: "followers", op: "GET /api/v1/followers", method: "GET", path: "/api/v1/followers", status: 200},
		{name: "ard manifest", op: "GET /.well-known/ard.json", method: "GET", path: "/.well-known/ard.json", status: 200},
		{name: "ard manifest bad token", op: "GET /.well-known/ard.json", method: "GET", path: "/.well-known/ard.json?pageToken=x", status: 400},
		{name: "ard catalog", op: "GET /.well-known/ai-catalog.json", method: "GET", path: "/.well-known/ai-catalog.json", status: 200},
		{name: "ard catalog bad token", op: "GET /.well-known/ai-catalog.json", method: "GET", path: "/.well-known/ai-catalog.json?pageToken=x", status: 400},
		{name: "ard list", op: "GET /ard/agents", method: "GET", path: "/ard/agents?pageSize=2", status: 200},
		{name: "ard list filter", op: "GET /ard/agents", method: "GET", path: "/ard/agents?filter=x", status: 400},
		{name: "ard lookup", op: "GET /ard/agents/{identifier}", method: "GET", path: "/ard/agents/urn:air:registry.test:agora-protocol:" + hex, status: 200},
		{name: "ard lookup unknown", op: "GET /ard/agents/{identifier}", method: "GET", path: "/ard/agents/urn:air:registry.test:agora-protocol:" + unknown, status: 404},
		{name: "ard search", op: "POST /ard/search", method: "POST", path: "/ard/search", body: `{"query":{"text":"weather"}}`, status: 200},
		{name: "ard search no text", op: "POST /ard/search", method: "POST", path: "/ard/search", body: `{"query":{}}`, status: 400},
		{name: "ard search too large", op: "POST /ard/search", method: "POST", path: "/ard/search", body: `{"query":{"text":"` + strings.Repeat(big, 4) + `"}}`, status: 413},
		{name: "ard explore", op: "POST /ard/explore", method: "POST", path: "/ard/explore", body: `{"resultType":{"facets":[{"field":"type"}]}}`, status: 200},
		{name: "ard explore bad field", op: "POST /ard/explore", method: "POST", path: "/ard/explore", body: `{"resultType":{"facets":[{"field":"colour"}]}}`, status: 400},
		{name: "ard explore too large", op: "POST /ard/explore", method: "POST", path: "/ard/explore", body: `{"resultType":` + strings.Repeat(big, 4) + `}`, status: 413},
		{name: "register agent", op: "POST /api/v1/agents", method: "POST", path: "/api/v1/agents", header: bearer(f.publishToken), body: `{"url":"` + f.agent.URL + `"}`, status: 201},
		{name: "register agent again", op: "POST /api/v1/agents", method: "POST", path: "/api/v1/agents", header: bearer(f.publishToken), body: `{"url":"` + f.agent.URL + `/"}`, status: 200},
		{name: "register agent unreachable", op: "POST /api/v1/agents", method: "POST", path: "/api/v1/agents", header: bearer(f.publishToken), body: `{"url":"http://127.0.0.1:1/"}`, status: 400},
		{name: "register agent pending", op: "POST /api/v1/agents", method: "POST", path: "/api/v1/agents", header: bearer(f.publishToken), body: `{"url":"` + f.hanging.URL + `"}`, status: 202},
		{name: "register agent no token", op: "POST /api/v1/agents", method: "POST", path: "/api/v1/agents", body: `{"url":"http://x/"}`, status: 401},
		{name: "register agent too large", op: "POST /api/v1/agents", method: "POST", path: "/api/v1/agents", header: bearer(f.publishToken), body: `{"url":"` + big + `"}`, status: 413},
		{name: "list agents", op: "GET /api/v1/agents", method: "GET", path: "/api/v1/agents?speaks=" + strings.Repeat("ab", 20), status: 200},
		{name: "list agents bad cursor", op: "GET /api/v1/agents", method: "GET", path: "/api/v1/agents?cursor=x", status: 400},
		{name: "get agent", op: "GET /api/v1/agents/{id}", method: "GET", path: "/api/v1/agents/1", status: 200},
		{name: "get agent bad id", op: "GET /api/v1/agents/{id}", method: "GET", path: "/api/v1/agents/x", status: 400},
		{name: "get agent unknown", op: "GET /api/v1/agents/{id}", method: "GET", path: "/api/v1/agents/999", status: 404},
		{name: "protocol agents", op: "GET /api/v1/protocols/{hash}/agents", method: "GET", path: "/api/v1/protocols/" + strings.Repeat("ab", 20) + "/agents", status: 200},
		{name: "protocol agents malformed", op: "GET /api/v1/protocols/{hash}/agents", method: "GET", path: "/api/v1/protocols/zz/agents", status: 400},
		{name: "match", op: "POST /api/v1/match", method: "POST", path: "/api/v1/match", body: `{"task":"kept things"}`, status: 200},
		{name: "match empty", op: "POST /api/v1/match", method: "POST", path: "/api/v1/match", body: `{"task":"the"}`, status: 400},
		{name: "match too large", op: "POST /api/v1/match", method: "POST", path: "/api/v1/match", body: `{"task":"` + big + `"}`, status: 413},
		{name: "openapi", op: "GET /api/v1/openapi.json", method: "GET", path: "/api/v1/openapi.json", status: 200},
		{name: "llms.txt", op: "GET /llms.txt", method: "GET", path: "/llms.txt", status: 200},
		{name: "changes", op: "GET /api/v1/changes", method: "GET", path: "/api/v1/changes?after=0&limit=10", status: 200},
		{name: "changes bad limit", op: "GET /api/v1/changes", method: "GET", path: "/api/v1/changes?limit=0", status: 400},
		{name: "log lookup", op: "GET /log/lookup/{hash}", method: "GET", path: "/log/lookup/" + url.PathEscape(b64), status: 200},
		{name: "log lookup malformed", op: "GET /log/lookup/{hash}", method: "GET", path: "/log/lookup/zz", status: 400},
		{name: "log lookup unknown", op: "GET /log/lookup/{hash}", method: "GET", path: "/log/lookup/" + unknown, status: 404},
		{name: "tlog proof", op: "GET /protocol/{hash}.tlog-proof", method: "GET", path: "/protocol/" + url.PathEscape(b64) + ".tlog-proof", status: 200},
		{name: "tlog proof malformed", op: "GET /protocol/{hash}.tlog-proof", method: "GET", path: "/protocol/zz.tlog-proof", status: 400},
		{name: "tlog proof unknown", op: "GET /protocol/{hash}.tlog-proof", method: "GET", path: "/protocol/" + unknown + ".tlog-proof", status: 404},
		{name: "log checkpoint", op: "GET /log/checkpoint", method: "GET", path: "/log/checkpoint", status: 200},
		{name: "log tile", op: "GET /log/tile/{path}", method: "GET", path: "/log/tile/8/0/000.p/2", status: 200},
		{name: "log tile malformed", op: "GET /log/tile/{path}", method: "GET", path: "/log/tile/8/zz", status: 400},
		{name: "log tile beyond", op: "GET /log/tile/{path}", method: "GET", path: "/log/tile/8/0/001", status: 404},
		{name: "log record", op: "GET /log/record/{id}", method: "GET", path: "/log/record/0", status: 200},
		{name: "log record beyond", op: "GET /log/record/{id}", method: "GET", path: "/log/record/999", status: 404},
		{name: "log record malformed", op: "GET /log/record/{id}", method: "GET", path: "/log/record/01", status: 400},
		{name: "well-known", op: "GET /.well-known/agora", method: "GET", path: "/.well-known/agora", status: 200},
		{name: "healthz", op: "GET /healthz", method: "GET", path: "/healthz", status: 200},
		{name: "readyz", op: "GET /readyz", method: "GET", path: "/readyz", status: 200},
		{name: "metrics", op: "GET /metrics", method: "GET", path: "/metrics", status: 200},
		// Last: it withdraws the kept document.
		{name: "withdraw", op: "DELETE /api/v1/protocols/{hash}", method: "DELETE", path: "/api/v1/protocols/" + hex, header: bearer(f.adminTok), body: `{"reason":"test"}`, status: 204},
		// Shared statuses on representative routes.
		{name: "rate limited", op: "GET /api/v1/protocols", method: "GET", path: "/api/v1/protocols", status: 429, onlyFor: "ratelimited"},
		{name: "database down: readyz", op: "GET /readyz", method: "GET", path: "/readyz", status: 503, onlyFor: "closed"},
		{name: "database down: raw", op: "GET /protocol/{hash}", method: "GET", path: "/protocol/" + unknown, status: 503, onlyFor: "closed"},
		{name: "database down: search", op: "GET /api/v1/protocols", method: "GET", path: "/api/v1/protocols", status: 503, onlyFor: "closed"},
	}
}

// TestDocumentMatchesRouter: every route the server registers (except the
// HTML pages) is documented with its method, and nothing else is.
func TestDocumentMatchesRouter(t *testing.T) {
	ops := operations(t, load(t))
	f := newFixture(t)
	registered := map[string]bool{}
	for _, r := range f.echo.Routes() {
		key := r.Method + " " + r.Path
		if htmlRoutes[key] {
			registered[key] = true
			continue
		}
		for _, sub := range subResources[key] {
			registered[sub] = true
			if ops[sub] == nil {
				t.Errorf("sub-resource %s of route %s is not in openapi.json", sub, key)
			}
		}
		if wildcardOnlySub[key] {
			continue
		}
		key = r.Method + " " + docPath(r.Path)
		registered[key] = true
		if ops[key] == nil {
			t.Errorf("route %s %s is not in openapi.json", r.Method, r.Path)
		}
	}
	for key := range htmlRoutes {
		if !registered[key] {
			t.Errorf("HTML route %s is excluded from the check but no longer registered: update htmlRoutes", key)
		}
	}
	for key := range ops {
		if !registered[key] {
			t.Errorf("openapi.json documents %s, which the server does not route", key)
		}
	}
}

// TestStatusCodesMatchHandlers sends a representative request for every
// documented status of every operation to the real server: each answer
// must be documented, and each documented status must be produced.
func TestStatusCodesMatchHandlers(t *testing.T) {
	ops := operations(t, load(t))
	normal := newFixture(t)
	limited := newFixture(t, api.WithRateLimit(api.NewRateLimiter(0.001, 1, "requests")))
	closed := newFixture(t)
	if err := closed.st.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[string]bool{}
	for _, sc := range scenarios(normal) {
		f := normal
		switch sc.onlyFor {
		case "ratelimited":
			f = limited
			limited.do(t, scenario{method: "GET", path: "/api/v1/stats"}) // spend the burst
		case "closed":
			f = closed
		}
		codes := ops[sc.op]
		if codes == nil {
			t.Errorf("%s: operation %s is not documented", sc.name, sc.op)
			continue
		}
		res := f.do(t, sc)
		got := strconv.Itoa(res.StatusCode)
		if res.StatusCode != sc.status {
			t.Errorf("%s: %s %s answered %d, want %d", sc.name, sc.method, sc.path, res.StatusCode, sc.status)
		}
		if !codes[got] {
			t.Errorf("%s: %s answered %s, which openapi.json does not document", sc.name, sc.op, got)
		}
		if seen[sc.op] == nil {
			seen[sc.op] = map[string]bool{}
		}
		seen[sc.op][got] = true
	}
	var keys []string
	for k := range ops {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, op := range keys {
		for code := range ops[op] {
			if !sharedStatuses[code] && !seen[op][code] {
				t.Errorf("%s documents %s but no representative request produced it: add a scenario or drop the status", op, code)
			}
		}
		for code := range sharedStatuses {
			wanted := !(code == "503" && storeFree[op]) && !(code == "429" && unlimited[op])
			if wanted != ops[op][code] {
				t.Errorf("%s: shared status %s documented=%v, want %v", op, code, ops[op][code], wanted)
			}
		}
	}
}

// TestServedDocumentIsTheEmbeddedOne checks the route serves these bytes.
func TestServedDocumentIsTheEmbeddedOne(t *testing.T) {
	f := newFixture(t)
	res, err := f.srv.Client().Get(f.srv.URL + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") || string(body) != string(openapi.Document) {
		t.Fatalf("GET /api/v1/openapi.json: %d %q, %d bytes (embedded: %d)", res.StatusCode, res.Header.Get("Content-Type"), len(body), len(openapi.Document))
	}
}

// TestGeneratorReady holds the rules a client generator (and redocly's
// recommended set, which CI also runs) needs: each operation says who may
// call it (`security: []` for public ones) and names a parameter once.
func TestGeneratorReady(t *testing.T) {
	d := load(t)
	for path, ops := range d.Paths {
		for method, raw := range ops {
			if !httpMethods[method] {
				continue
			}
			var op struct {
				Security   *json.RawMessage `json:"security"`
				Parameters []struct {
					Ref  string `json:"$ref"`
					Name string `json:"name"`
					In   string `json:"in"`
				} `json:"parameters"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			if op.Security == nil {
				t.Errorf("%s %s has no security (public operations say `\"security\": []`)", method, path)
			}
			seen := map[string]bool{}
			for _, p := range op.Parameters {
				key := p.In + " " + p.Name + p.Ref
				if seen[key] {
					t.Errorf("%s %s declares the %s parameter twice", method, path, key)
				}
				seen[key] = true
			}
		}
	}
}
