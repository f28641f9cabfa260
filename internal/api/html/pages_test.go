package html_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

type browserClient struct {
	t    *testing.T
	http *http.Client
	base string
}

func newClient(t *testing.T, base string) *browserClient {
	jar, _ := cookiejar.New(nil)
	return &browserClient{t: t, base: base, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *browserClient) get(path string, accept string) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.base+path, nil)
	req.Header.Set("Accept", accept)
	return c.do(req)
}

func (c *browserClient) do(req *http.Request) (*http.Response, string) {
	c.t.Helper()
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var csrfRE = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// postForm submits the publish form as a browser does (multipart).
func (c *browserClient) postForm(fields map[string]string) (*http.Response, string) {
	c.t.Helper()
	return c.postFormWith(fields, nil)
}

// postFormWith is postForm with extra request headers.
func (c *browserClient) postFormWith(fields, headers map[string]string) (*http.Response, string) {
	c.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	w.Close()
	req, _ := http.NewRequest(http.MethodPost, c.base+"/publish", &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Accept", "text/html")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return c.do(req)
}

func (c *browserClient) csrfToken() string {
	c.t.Helper()
	_, body := c.get("/publish", "text/html")
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		c.t.Fatalf("no CSRF token in the publish form:\n%s", body)
	}
	return m[1]
}

const htmlAccept = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"

func TestEveryPageSendsSecurityHeaders(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true, examples: true})
	c := newClient(t, srv.URL)
	for _, path := range []string{"/", "/protocols", "/protocols?q=weather", "/tags", "/publish",
		"/protocols/" + strings.Repeat("ab", 20), "/protocols/not-a-hash", "/no/such/page", "/api", "/log"} {
		resp, body := c.get(path, htmlAccept)
		h := resp.Header
		if !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			t.Errorf("%s: Content-Type %q (status %d)", path, h.Get("Content-Type"), resp.StatusCode)
			continue
		}
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe") {
			t.Errorf("%s: CSP allows unsafe sources: %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") == "" {
			t.Errorf("%s: missing headers: %v", path, h)
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, " style=") || regexp.MustCompile(`<[^>]+ on[a-z]+=`).MatchString(body) {
			t.Errorf("%s: the page has inline script or style, which the CSP would block", path)
		}
	}
}

func TestErrorPagesAndJSONClients(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true, examples: true})
	c := newClient(t, srv.URL)
	missing := "/protocols/" + strings.Repeat("ab", 20)
	for path, status := range map[string]int{missing: 404, "/protocols/xyz": 400, "/nowhere": 404} {
		resp, body := c.get(path, htmlAccept)
		if resp.StatusCode != status || !strings.Contains(body, "<h1>") {
			t.Errorf("%s: status %d, want %d with an HTML page", path, resp.StatusCode, status)
		}
	}
	resp, body := c.get(missing, "application/json")
	if resp.StatusCode != 404 || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
		t.Errorf("a JSON client got %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	// Withdrawn: 410 with the reason.
	ctx := context.Background()
	res, err := srv.svc.Publish(ctx, []byte("---\nname: Old\ndescription: to withdraw\n---\n# Old\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.svc.Withdraw(ctx, entity.Token{Name: "test"}, res.Entry.Digest, "replaced by v2"); err != nil {
		t.Fatal(err)
	}
	resp, body = c.get("/protocols/"+res.Entry.Digest.Hex(), htmlAccept)
	if resp.StatusCode != http.StatusGone || !strings.Contains(body, "replaced by v2") {
		t.Errorf("withdrawn protocol: status %d, body lacks the reason", resp.StatusCode)
	}
}

func TestProtocolPageAcceptsBothSpellings(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	// A digest whose Base64 spelling contains '/' and '+' exercises escaping.
	var res struct{ hex, b64 string }
	for i := 0; ; i++ {
		r, err := srv.svc.Publish(context.Background(), []byte(fmt.Sprintf("---\nname: Spell %d\ndescription: d\n---\n", i)), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if b := r.Entry.Digest.Base64(); strings.Contains(b, "/") {
			res.hex, res.b64 = r.Entry.Digest.Hex(), b
			break
		}
	}
	c := newClient(t, srv.URL)
	for _, path := range []string{res.hex, strings.ToUpper(res.hex), url.PathEscape(res.b64), strings.NewReplacer("/", "%2F", "+", "%2B", "=", "%3D").Replace(res.b64)} {
		resp, body := c.get("/protocols/"+path, htmlAccept)
		if resp.StatusCode != 200 || !strings.Contains(body, `<code id="hash-hex">`+res.hex+`</code>`) ||
			!strings.Contains(body, `<code id="hash-b64">`+html.EscapeString(res.b64)+`</code>`) {
			t.Errorf("/protocols/%s: status %d or the page lacks both spellings", path, resp.StatusCode)
		}
	}
}

func TestPublishFormKeepsTextOnEveryError(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: false})
	tok, err := srv.svc.CreateToken(context.Background(), "web", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv.URL)
	doc := "---\nname: Kept <Text>\ndescription: never lost\n---\n# Kept\n"
	kept := func(body string) bool { return strings.Contains(body, html.EscapeString(doc)) }
	csrf := c.csrfToken()

	cases := []struct {
		name   string
		fields map[string]string
		status int
		msg    string
	}{
		{"no CSRF token", map[string]string{"content": doc, "action": "publish", "token": tok.Secret}, 403, "expired"},
		{"forged CSRF token", map[string]string{"content": doc, "action": "publish", "token": tok.Secret, "csrf_token": "AAAA"}, 403, "expired"},
		{"no API token", map[string]string{"content": doc, "action": "publish", "csrf_token": csrf}, 401, "needs an API token"},
		{"unknown API token", map[string]string{"content": doc, "action": "publish", "csrf_token": csrf, "token": "agr_nope"}, 401, "unknown or revoked"},
		{"NUL byte", map[string]string{"content": doc + "\x00", "action": "preview", "csrf_token": csrf}, 400, "NUL"},
	}
	for _, tc := range cases {
		resp, body := c.postForm(tc.fields)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.msg) {
			t.Errorf("%s: status %d, want %d with %q", tc.name, resp.StatusCode, tc.status, tc.msg)
		}
		if tc.name != "NUL byte" && !kept(body) {
			t.Errorf("%s: the form lost the user's text", tc.name)
		}
	}
	if n, _ := srv.svc.Stats(context.Background()); n.Documents != 0 {
		t.Fatalf("a failed publish stored %d documents", n.Documents)
	}

	// Preview: metadata, hash and lints, nothing stored.
	resp, body := c.postForm(map[string]string{"content": "# No front matter\n\nJust text.\n", "action": "preview", "csrf_token": csrf})
	if resp.StatusCode != 200 || !strings.Contains(body, "no_front_matter") || !strings.Contains(body, `<h2 id="doc-no-front-matter">No front matter</h2>`) ||
		!strings.Contains(body, "the SDK cannot read this document") {
		t.Errorf("preview: status %d, body lacks the lint (in the SDK's words) or the rendered document", resp.StatusCode)
	}

	// Publish with a valid token; CRLF from the text area becomes LF.
	resp, _ = c.postForm(map[string]string{"content": strings.ReplaceAll(doc, "\n", "\r\n"), "action": "publish", "csrf_token": csrf, "token": tok.Secret, "tags": "Web, forms"})
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/protocols/") {
		t.Fatalf("publish: status %d, Location %q", resp.StatusCode, loc)
	}
	_, body = c.get(loc, htmlAccept)
	if !strings.Contains(body, "Published.") || !strings.Contains(body, ">forms</a>") {
		t.Errorf("the published page lacks the confirmation or the form's tags")
	}
	_, raw := c.get("/protocol/"+strings.TrimPrefix(strings.SplitN(loc, "?", 2)[0], "/protocols/"), "text/plain")
	if raw != doc {
		t.Errorf("stored bytes = %q, want %q", raw, doc)
	}
}

func TestBrowsePaginationKeepsTheQuery(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	ctx := context.Background()
	for i := 0; i < store.DefaultPageSize+5; i++ {
		doc := fmt.Sprintf("---\nname: Lantern %02d\ndescription: signal lanterns\ntags: [lights]\n---\n", i)
		if _, err := srv.svc.Publish(ctx, []byte(doc), nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	c := newClient(t, srv.URL)
	_, body := c.get("/protocols?q=lanterns&tag=lights&sort=name", htmlAccept)
	next := regexp.MustCompile(`rel="next" href="([^"]+)"`).FindStringSubmatch(body)
	if next == nil {
		t.Fatal("no next page link")
	}
	u, _ := url.Parse(html.UnescapeString(next[1]))
	if q := u.Query(); q.Get("q") != "lanterns" || q.Get("tag") != "lights" || q.Get("sort") != "name" || q.Get("cursor") == "" {
		t.Fatalf("next link %q does not keep the query", u)
	}
	_, body = c.get(u.String(), htmlAccept)
	if n := strings.Count(body, `class="entry"`); n != 5 {
		t.Errorf("second page has %d entries, want 5", n)
	}
	if !strings.Contains(body, "Lantern 24") || strings.Contains(body, "Lantern 00") {
		t.Errorf("second page has the wrong entries")
	}

	_, body = c.get("/protocols?q=zeppelin", htmlAccept)
	if !strings.Contains(body, "No protocols match") {
		t.Errorf("no helpful empty state")
	}
	resp, body := c.get("/protocols?cursor=garbage", htmlAccept)
	if resp.StatusCode != 400 || !strings.Contains(body, "cursor") {
		t.Errorf("a bad cursor gave %d without explanation", resp.StatusCode)
	}
}

func TestStaticAssetsAreVersionedAndImmutable(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	c := newClient(t, srv.URL)
	_, body := c.get("/tags", htmlAccept)
	m := regexp.MustCompile(`href="(/static/app\.css\?v=[0-9a-f]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no versioned stylesheet link")
	}
	resp, _ := c.get(m[1], "*/*")
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Errorf("versioned asset: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = c.get("/static/app.css", "*/*")
	if strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("an unversioned asset URL must not be cached forever")
	}
	resp, _ = c.get("/static/../web/embed.go", "*/*")
	if resp.StatusCode != 404 {
		t.Errorf("path traversal answered %d", resp.StatusCode)
	}
}
