package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// engines are the database settings the end-to-end test runs on.
func engines(t *testing.T) map[string]func(t *testing.T) []string {
	return map[string]func(t *testing.T) []string{
		"sqlite": func(t *testing.T) []string { return []string{"--data-dir", t.TempDir()} },
		"postgres": func(t *testing.T) []string {
			// --data-dir holds the blob directory on PostgreSQL too.
			return []string{"--database-url", pgtest.NewDatabase(t), "--data-dir", t.TempDir()}
		},
	}
}

func TestEndToEnd(t *testing.T) {
	for name, dbArgs := range engines(t) {
		t.Run(name, func(t *testing.T) { endToEnd(t, dbArgs(t)) })
	}
}

// slashDocument finds a document whose Base64 digest holds both '/' and
// '+', the characters that break naive URL handling.
func slashDocument(t *testing.T) ([]byte, protocol.Digest) {
	for i := 0; i < 100000; i++ {
		doc := []byte(fmt.Sprintf("---\nname: Slash Protocol %d\ndescription: Its Base64 hash holds a slash.\ntags: [test]\n---\n\n# Slash\n\nBody.\n", i))
		s, err := protocol.Hash(doc)
		if err != nil {
			t.Fatal(err)
		}
		if b := s.SHA1.Base64(); strings.Contains(b, "/") && strings.Contains(b, "+") {
			return doc, s.SHA1
		}
	}
	t.Fatal("no document with '/' and '+' in its Base64 hash")
	return nil, protocol.Digest{}
}

func stats(t *testing.T, base string) map[string]int {
	t.Helper()
	status, _, body := call(t, "GET", base+"/api/v1/stats", nil)
	if status != 200 {
		t.Fatalf("stats: %d %s", status, body)
	}
	var s map[string]int
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func endToEnd(t *testing.T, db []string) {
	// Tokens are made with the CLI against the same database, before start.
	if _, stderr, err := runCLI(t, nil, nil, append([]string{"publisher", "create", "acme-ci"}, db...)...); err != nil {
		t.Fatalf("publisher create: %v\n%s", err, stderr)
	}
	publishTok, stderr, err := runCLI(t, nil, nil, append([]string{"token", "create", "--name", "ci", "--publisher", "acme-ci", "--scope", "publish"}, db...)...)
	if err != nil {
		t.Fatalf("token create: %v\n%s", err, stderr)
	}
	publishTok = strings.TrimSpace(publishTok)
	adminTok, stderr, err := runCLI(t, nil, nil, append([]string{"token", "create", "--name", "ops", "--scope", "admin"}, db...)...)
	if err != nil {
		t.Fatalf("token create: %v\n%s", err, stderr)
	}
	adminTok = strings.TrimSpace(adminTok)
	if !strings.HasPrefix(publishTok, "agr_") || publishTok == adminTok {
		t.Fatalf("tokens %q %q", publishTok, adminTok)
	}

	srv := startServer(t, append([]string{"--no-examples", "--max-body-bytes", "1100KiB"}, db...)...)
	base := srv.URL

	// Publish with the CLI, as a real process.
	dir := t.TempDir()
	doc, digest := slashDocument(t)
	file := filepath.Join(dir, "slash.md")
	if err := os.WriteFile(file, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	plain := []byte("# No Front Matter\r\n\r\nCRLF bytes and trailing spaces stay.  \r\n")
	plainFile := filepath.Join(dir, "plain.md")
	os.WriteFile(plainFile, plain, 0o600)
	// A document the Python SDK cannot read is refused before it is sent,
	// unless forced: publishing cannot be undone.
	_, stderr, err = runCLI(t, []string{"REGISTRY_TOKEN=" + publishTok}, nil, "publish", "--server", base, plainFile)
	if exitCode(err) != 1 || !strings.Contains(stderr, "--force") || !strings.Contains(stderr, "front-matter") {
		t.Fatalf("publish of a document without front matter: exit %d\n%s", exitCode(err), stderr)
	}
	out, stderr, err := runCLI(t, []string{"REGISTRY_TOKEN=" + publishTok}, nil, "publish", "--server", base, "--force", file, plainFile)
	if err != nil {
		t.Fatalf("publish: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "created "+digest.Hex()+" "+digest.Base64()) {
		t.Fatalf("publish output %q", out)
	}
	if !strings.Contains(stderr, "no_front_matter") {
		t.Errorf("publish did not report the lint of the plain document: %q", stderr)
	}
	out, _, err = runCLI(t, []string{"REGISTRY_TOKEN=" + publishTok}, nil, "publish", "--server", base, file)
	if err != nil || !strings.HasPrefix(out, "exists "+digest.Hex()) {
		t.Fatalf("republish: %v %q", err, out)
	}

	// Every raw URL form and spelling gives the exact bytes.
	b64 := digest.Base64()
	for _, u := range []string{
		"/protocol/" + digest.Hex(),
		"/protocol/" + strings.ToUpper(digest.Hex()),
		"/protocol/" + url.PathEscape(b64), // '/' as %2F
		"/protocol/" + strings.ReplaceAll(b64, "/", "%2f"),
		"/protocol/" + b64, // '/' unescaped
		"/protocol?id=" + digest.Hex(),
		"/protocol?id=" + url.QueryEscape(b64), // '+' as %2B
		"/protocol?id=" + b64,                  // '+' arrives as a space
	} {
		status, h, body := call(t, "GET", base+u, nil)
		if status != 200 {
			t.Errorf("GET %s: %d %s", u, status, body)
			continue
		}
		if err := protocol.Verify(body, digest); err != nil || !bytes.Equal(body, doc) {
			t.Errorf("GET %s: bytes differ: %v", u, err)
		}
		for k, v := range map[string]string{
			"Content-Type": "text/plain; charset=utf-8", "ETag": `"` + digest.Hex() + `"`,
			"Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff",
		} {
			if h.Get(k) != v {
				t.Errorf("GET %s: %s %q, want %q", u, k, h.Get(k), v)
			}
		}
	}
	plainDigest := protocol.MustParseDigest(strings.Fields(lines[1])[1])
	if _, _, body := call(t, "GET", base+"/protocol/"+plainDigest.Hex(), nil); !bytes.Equal(body, plain) {
		t.Errorf("plain document changed: %q", body)
	}

	// The CLI get verifies and prints the bytes.
	out, stderr, err = runCLI(t, nil, nil, "get", "--server", base, b64)
	if err != nil || out != string(doc) {
		t.Errorf("get: %v %q %s", err, out, stderr)
	}

	// Conditional and HEAD requests.
	etag := `"` + digest.Hex() + `"`
	for _, inm := range []string{etag, "W/" + etag, `"nope", ` + etag, "*"} {
		if status, _, body := call(t, "GET", base+"/protocol/"+digest.Hex(), nil, "If-None-Match", inm); status != 304 || len(body) != 0 {
			t.Errorf("If-None-Match %s: %d", inm, status)
		}
	}
	if status, _, _ := call(t, "GET", base+"/protocol/"+digest.Hex(), nil, "If-None-Match", `"other"`); status != 200 {
		t.Errorf("non-matching If-None-Match: %d", status)
	}
	status, h, body := call(t, "HEAD", base+"/protocol/"+url.PathEscape(b64), nil)
	if status != 200 || len(body) != 0 || h.Get("Content-Length") != fmt.Sprint(len(doc)) || h.Get("ETag") != etag {
		t.Errorf("HEAD: %d %v %d", status, h, len(body))
	}

	// JSON API reads.
	status, _, body = call(t, "GET", base+"/api/v1/protocols/"+url.PathEscape(b64)+"?content=1", nil)
	var view struct {
		Hex, Base64, Title, Content string
		Sources                     []string
		SDKCompatible               bool
	}
	if status != 200 || json.Unmarshal(body, &view) != nil || view.Hex != digest.Hex() || view.Base64 != b64 ||
		view.Content != string(doc) || !view.SDKCompatible || len(view.Sources) == 0 || !strings.HasPrefix(view.Sources[0], base+"/protocol/") {
		t.Errorf("get protocol: %d %s", status, body)
	}
	status, _, body = call(t, "GET", base+"/api/v1/protocols?q=slash&tag=test", nil)
	if status != 200 || !strings.Contains(string(body), digest.Hex()) {
		t.Errorf("search: %d %s", status, body)
	}
	status, _, body = call(t, "GET", base+"/api/v1/tags", nil)
	if status != 200 || !strings.Contains(string(body), `{"tag":"test","count":1}`) {
		t.Errorf("tags: %d %s", status, body)
	}
	unknown := protocol.MustParseDigest("a9993e364706816aba3e25717850c26c9cd0d89d")
	status, _, body = call(t, "POST", base+"/api/v1/resolve", strings.NewReader(
		fmt.Sprintf(`{"hashes":[%q,%q,"nope"]}`, b64, unknown.Hex())), "Content-Type", "application/json")
	var rr struct {
		Results []struct {
			Hash, Hex, Error string
			Found            bool
			Sources          []string
		}
	}
	if status != 200 || json.Unmarshal(body, &rr) != nil || len(rr.Results) != 3 ||
		!rr.Results[0].Found || rr.Results[0].Hash != b64 || rr.Results[0].Hex != digest.Hex() || len(rr.Results[0].Sources) != 1 ||
		rr.Results[1].Found || rr.Results[2].Error != "malformed_hash" {
		t.Errorf("resolve: %d %s", status, body)
	}
	status, _, body = call(t, "GET", base+"/metadata?id="+url.QueryEscape(b64), nil)
	if status != 200 || !strings.Contains(string(body), `"name":"Slash Protocol`) {
		t.Errorf("metadata: %d %s", status, body)
	}

	// Paper-demo publish and list.
	demoDoc := "Weather v0: send location and date, get a forecast."
	status, _, body = call(t, "POST", base+"/", strings.NewReader(
		fmt.Sprintf(`{"name":"Demo Weather","description":"From the demo","protocol":%q}`, demoDoc)),
		"Content-Type", "application/json", "Authorization", "Bearer "+publishTok)
	demoDigest, _ := protocol.Hash([]byte(demoDoc))
	if status != 200 || !strings.Contains(string(body), demoDigest.SHA1.Base64()) {
		t.Errorf("demo publish: %d %s", status, body)
	}
	status, _, body = call(t, "GET", base+"/", nil, "Accept", "application/json")
	if status != 200 || !strings.Contains(string(body), `"name":"Demo Weather"`) || !strings.Contains(string(body), `"status":"success"`) {
		t.Errorf("demo list: %d %s", status, body)
	}

	// Every rejection leaves the store as it was.
	before := stats(t, base)
	auth := func(tok string) []string {
		return []string{"Content-Type", "text/markdown", "Authorization", "Bearer " + tok}
	}
	big := strings.Repeat("a", 1<<20+1)
	huge := strings.Repeat("a", 1200<<10)
	for _, tc := range []struct {
		what, method, path, body string
		headers                  []string
		status                   int
		code                     string
	}{
		{"malformed hash", "GET", "/protocol/xyz", "", nil, 400, "malformed_hash"},
		{"malformed id", "GET", "/protocol?id=zz", "", nil, 400, "malformed_hash"},
		{"missing id", "GET", "/protocol", "", nil, 400, "malformed_hash"},
		{"unknown", "GET", "/protocol/" + unknown.Hex(), "", nil, 404, "not_found"},
		{"unknown api", "GET", "/api/v1/protocols/" + unknown.Hex(), "", nil, 404, "not_found"},
		{"no route", "GET", "/api/v1/nothing", "", nil, 404, "route_not_found"},
		{"method", "PUT", "/api/v1/protocols", "x", nil, 405, "method_not_allowed"},
		{"no token", "POST", "/api/v1/protocols", "# T\n", []string{"Content-Type", "text/markdown"}, 401, "missing_token"},
		{"bad token", "POST", "/api/v1/protocols", "# T\n", auth("agr_" + strings.Repeat("A", 43)), 401, "invalid_token"},
		{"not bearer", "POST", "/api/v1/protocols", "# T\n", []string{"Authorization", "Basic eDp5"}, 401, "invalid_token"},
		{"demo no token", "POST", "/", `{"protocol":"x"}`, []string{"Content-Type", "application/json"}, 401, "missing_token"},
		{"publish scope cannot withdraw", "DELETE", "/api/v1/protocols/" + digest.Hex(), "", auth(publishTok), 403, "insufficient_scope"},
		{"empty", "POST", "/api/v1/protocols", "", auth(publishTok), 400, "empty_document"},
		{"NUL", "POST", "/api/v1/protocols", "# a\x00b", auth(publishTok), 400, "nul_byte"},
		{"bad UTF-8", "POST", "/api/v1/protocols", "# a\xff", auth(publishTok), 400, "invalid_utf8"},
		{"bad JSON", "POST", "/api/v1/protocols", `{"content":`, []string{"Content-Type", "application/json", "Authorization", "Bearer " + publishTok}, 400, "invalid_json"},
		{"unknown field", "POST", "/api/v1/protocols", `{"content":"x","extra":1}`, []string{"Content-Type", "application/json", "Authorization", "Bearer " + publishTok}, 400, "invalid_json"},
		{"media type", "POST", "/api/v1/protocols", "x", []string{"Content-Type", "image/png", "Authorization", "Bearer " + publishTok}, 415, "unsupported_media_type"},
		{"document too large", "POST", "/api/v1/protocols", big, auth(publishTok), 413, "document_too_large"},
		{"body too large", "POST", "/api/v1/protocols", huge, auth(publishTok), 413, "body_too_large"},
		{"resolve too many", "POST", "/api/v1/resolve", `{"hashes":[` + strings.Repeat(`"x",`, 1000) + `"x"]}`, []string{"Content-Type", "application/json"}, 400, "too_many_hashes"},
		{"bad sort", "GET", "/api/v1/protocols?sort=random", "", nil, 400, "invalid_request"},
		{"bad limit", "GET", "/api/v1/protocols?limit=-1", "", nil, 400, "invalid_limit"},
		{"bad cursor", "GET", "/api/v1/protocols?cursor=zzz", "", nil, 400, "invalid_cursor"},
	} {
		var rdr *strings.Reader
		if tc.body != "" {
			rdr = strings.NewReader(tc.body)
		}
		var status int
		var h http.Header
		var body []byte
		if rdr != nil {
			status, h, body = call(t, tc.method, base+tc.path, rdr, tc.headers...)
		} else {
			status, h, body = call(t, tc.method, base+tc.path, nil, tc.headers...)
		}
		wantProblem(t, tc.what, status, h, body, tc.status, tc.code)
		if tc.status == 401 && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: WWW-Authenticate %q", tc.what, h.Get("WWW-Authenticate"))
		}
	}
	if after := stats(t, base); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("rejected requests changed the store: %v -> %v", before, after)
	}

	// Withdrawal: admin only, then 410 everywhere.
	status, _, body = call(t, "DELETE", base+"/api/v1/protocols/"+url.PathEscape(b64), strings.NewReader(`{"reason":"test"}`),
		"Content-Type", "application/json", "Authorization", "Bearer "+adminTok)
	if status != 204 {
		t.Fatalf("withdraw: %d %s", status, body)
	}
	for _, u := range []string{"/protocol/" + digest.Hex(), "/protocol?id=" + url.QueryEscape(b64), "/api/v1/protocols/" + digest.Hex()} {
		status, h, body = call(t, "GET", base+u, nil)
		wantProblem(t, "withdrawn "+u, status, h, body, 410, "withdrawn")
	}
	status, h, body = call(t, "GET", base+"/protocol/"+digest.Hex(), nil, "If-None-Match", etag)
	wantProblem(t, "withdrawn conditional", status, h, body, 410, "withdrawn")

	// Operations.
	if status, _, _ := call(t, "GET", base+"/healthz", nil); status != 200 {
		t.Errorf("healthz %d", status)
	}
	if status, _, _ := call(t, "GET", base+"/readyz", nil); status != 200 {
		t.Errorf("readyz %d", status)
	}
	status, _, body = call(t, "GET", base+"/metrics", nil)
	for _, want := range []string{`registry_http_requests_total{method="GET",route="/protocol/*",status="200"}`, `registry_publishes_total{result="created"}`, "registry_documents "} {
		if status != 200 || !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	status, h, _ = call(t, "GET", base+"/healthz", nil, "X-Request-ID", "trace-123")
	if status != 200 || h.Get("X-Request-ID") != "trace-123" {
		t.Errorf("healthz with a request id: %d, id echoed %q", status, h.Get("X-Request-ID"))
	}

	stopServer(t, srv)
	logs := srv.Logs()
	for _, secret := range []string{publishTok, adminTok, strings.TrimPrefix(publishTok, "agr_")} {
		if strings.Contains(logs, secret) {
			t.Error("a token secret appears in the server log")
		}
	}
	if !strings.Contains(logs, `"requestId":"trace-123"`) {
		t.Error("request logs lack request ids")
	}
}

// TestRateLimit runs a server with a tiny budget and checks the 429.
func TestRateLimit(t *testing.T) {
	srv := startServer(t, "--data-dir", t.TempDir(), "--rate-limit", "0.01", "--rate-burst", "2", "--rate-limit-loopback")
	for i := 0; i < 2; i++ {
		if status, _, body := call(t, "GET", srv.URL+"/api/v1/stats", nil); status != 200 {
			t.Fatalf("request %d within burst: %d %s", i, status, body)
		}
	}
	status, h, body := call(t, "GET", srv.URL+"/api/v1/stats", nil)
	wantProblem(t, "over the limit", status, h, body, 429, "rate_limited")
	if h.Get("Retry-After") == "" || h.Get("Retry-After") == "0" {
		t.Errorf("Retry-After %q", h.Get("Retry-After"))
	}
	// Forged X-Forwarded-For does not buy a new bucket (no trusted proxy).
	status, _, _ = call(t, "GET", srv.URL+"/api/v1/stats", nil, "X-Forwarded-For", "203.0.113.9")
	if status != 429 {
		t.Errorf("X-Forwarded-For escaped the limit: %d", status)
	}
	// Probes are never limited.
	if status, _, _ := call(t, "GET", srv.URL+"/healthz", nil); status != 200 {
		t.Errorf("healthz limited: %d", status)
	}
}

// TestFreshStoreHasExamples checks a first run on either engine (compose
// runs PostgreSQL, and its agent expects the weather example).
func TestFreshStoreHasExamples(t *testing.T) {
	for name, dbArgs := range engines(t) {
		t.Run(name, func(t *testing.T) { freshStoreHasExamples(t, dbArgs(t)) })
	}
}

func freshStoreHasExamples(t *testing.T, db []string) {
	srv := startServer(t, append([]string{"--open-publish"}, db...)...)
	st := stats(t, srv.URL)
	if st["documents"] < 3 {
		t.Fatalf("fresh store has %d documents", st["documents"])
	}
	status, _, body := call(t, "GET", srv.URL+"/api/v1/protocols?q=weather", nil)
	if status != 200 || !strings.Contains(string(body), `"title":"Weather Protocol v1"`) || !strings.Contains(string(body), `"sdkCompatible":true`) {
		t.Errorf("weather example: %d %s", status, body)
	}
	// Open publishing admits a tokenless publish.
	status, _, body = call(t, "POST", srv.URL+"/api/v1/protocols", strings.NewReader(`{"content":"# Open\n","tags":["x"]}`), "Content-Type", "application/json")
	if status != 201 {
		t.Errorf("open publish: %d %s", status, body)
	}
	stopServer(t, srv)
	// A restart does not import the examples again.
	srv = startServer(t, db...)
	defer stopServer(t, srv)
	if again := stats(t, srv.URL); again["documents"] != st["documents"]+1 {
		t.Errorf("documents after restart %d, want %d", again["documents"], st["documents"]+1)
	}
}

// TestDatabaseOutage cuts the server off its PostgreSQL database: reads
// and readiness answer 503 (not 500) with Retry-After, liveness stays 200,
// and everything recovers on its own when the database returns.
func TestDatabaseOutage(t *testing.T) {
	admin, err := pgtest.AdminDSN()
	if err != nil {
		t.Skipf("no PostgreSQL for the outage test: %v", err)
	}
	dsn := pgtest.NewDatabase(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	srv := startServer(t, "--database-url", dsn, "--data-dir", t.TempDir())

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	ident := pgx.Identifier{dbName}.Sanitize()
	exec("ALTER DATABASE " + ident + " ALLOW_CONNECTIONS false")
	t.Cleanup(func() { conn.Exec(ctx, "ALTER DATABASE "+ident+" ALLOW_CONNECTIONS true") })
	exec(fmt.Sprintf("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '%s'", strings.ReplaceAll(dbName, "'", "''")))

	status, h, body := call(t, "GET", srv.URL+"/readyz", nil)
	wantProblem(t, "readyz during outage", status, h, body, 503, "database_unavailable")
	status, h, body = call(t, "GET", srv.URL+"/protocol/a9993e364706816aba3e25717850c26c9cd0d89d", nil)
	wantProblem(t, "raw fetch during outage", status, h, body, 503, "database_unavailable")
	if h.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	if status, _, _ := call(t, "GET", srv.URL+"/healthz", nil); status != 200 {
		t.Errorf("healthz during outage: %d", status)
	}

	exec("ALTER DATABASE " + ident + " ALLOW_CONNECTIONS true")
	if status, _, body := call(t, "GET", srv.URL+"/readyz", nil); status != 200 {
		t.Errorf("readyz after recovery: %d %s", status, body)
	}
	status, h, body = call(t, "GET", srv.URL+"/protocol/a9993e364706816aba3e25717850c26c9cd0d89d", nil)
	wantProblem(t, "raw fetch after recovery", status, h, body, 404, "not_found")
}
