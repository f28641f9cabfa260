package security

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// xssCorpus are documents written to run code in a reader's browser. Each is
// published through the JSON API and its page fetched as HTML.
var xssCorpus = []string{
	"<script>alert(1)</script>",
	"# T\n\n<img src=x onerror=alert(1)>",
	"<svg onload=alert(1)>",
	"<svg><script>alert(1)</script></svg>",
	"[click](javascript:alert(1))",
	"[click](JaVaScRiPt:alert(1))",
	"[click](  javascript:alert(1))",
	"[click](java\tscript:alert(1))",
	"[click](&#106;avascript:alert(1))",
	"[click](&#x6A;avascript&#x3A;alert(1))",
	"[click](vbscript:msgbox(1))",
	"[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
	"![img](javascript:alert(1))",
	"![x](x\" onerror=\"alert(1))",
	"<a href=\"javascript:alert(1)\">x</a>",
	"<iframe src=\"javascript:alert(1)\"></iframe>",
	"<object data=\"javascript:alert(1)\"></object>",
	"<embed src=x>",
	"<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
	"<details open ontoggle=alert(1)>",
	"<body onload=alert(1)>",
	"<form action=javascript:alert(1)><button>x</button></form>",
	"<meta http-equiv=refresh content=\"0;url=javascript:alert(1)\">",
	"<base href=\"javascript:alert(1)//\">",
	"<style>@import 'javascript:alert(1)';</style>",
	"<div style=\"background:url(javascript:alert(1))\">x</div>",
	"<<script>script>alert(1)<</script>/script>",
	"<scr<script>ipt>alert(1)</script>",
	"`<script>alert(1)</script>` and ```\n<script>alert(1)</script>\n```",
	"[x]: javascript:alert(1)\n\n[link][x]",
	"<https://x.test/\" onmouseover=\"alert(1)>",
	"---\nname: <script>alert(1)</script>\ndescription: \"<img src=x onerror=alert(1)>\"\ntags: [\"<svg onload=alert(1)>\"]\n---\nbody",
	"---\nname: '\" onmouseover=\"alert(1)'\ndescription: javascript:alert(1)\n---\n[x](javascript:alert(1))",
	"# <img src=x onerror=alert(1)>\n\n<script>alert(1)</script> first paragraph",
	"<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
	"<a href=\"&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)\">x</a>",
	"<input autofocus onfocus=alert(1)>",
	"<video><source onerror=alert(1)></video>",
	"<a href=\"http://ok.test\" target=\"_blank\">ok</a>",
}

// urlAttrs carry URLs a browser follows or loads.
var urlAttrs = map[string]bool{"href": true, "src": true, "action": true, "formaction": true, "data": true,
	"xlink:href": true, "poster": true, "background": true, "srcset": true, "content": true}

var activeURL = regexp.MustCompile(`(?i)^\s*(javascript|vbscript|data\s*:\s*text/html|[^,;]*url\s*=\s*javascript)`)

// activeContent lists everything in page that could run script: script
// elements other than the site's own, event-handler attributes, active URLs
// in URL attributes and inline styles naming javascript:.
func activeContent(page string, ownScripts map[string]bool) []string {
	var found []string
	z := xhtml.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return found
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			if tok.Data == "script" {
				src := ""
				for _, a := range tok.Attr {
					if a.Key == "src" {
						src = a.Val
					}
				}
				if !ownScripts[src] {
					found = append(found, "script "+tok.String())
				}
			}
			for _, a := range tok.Attr {
				key := strings.ToLower(a.Key)
				switch {
				case strings.HasPrefix(key, "on"):
					found = append(found, "event handler "+tok.String())
				case key == "content" && !hasAttr(tok, "http-equiv"):
					// A <meta> description or OpenGraph text is text, not a
					// URL; only http-equiv (refresh) makes content one.
				case urlAttrs[key] && activeURL.MatchString(a.Val):
					found = append(found, "active URL "+tok.String())
				case key == "style" && strings.Contains(strings.ToLower(a.Val), "javascript"):
					found = append(found, "style "+tok.String())
				}
			}
		}
	}
}

func hasAttr(tok xhtml.Token, key string) bool {
	for _, a := range tok.Attr {
		if strings.EqualFold(a.Key, key) {
			return true
		}
	}
	return false
}

func scriptSources(page string) map[string]bool {
	out := map[string]bool{}
	z := xhtml.NewTokenizer(strings.NewReader(page))
	for tt := z.Next(); tt != xhtml.ErrorToken; tt = z.Next() {
		if tok := z.Token(); tok.Data == "script" && (tt == xhtml.StartTagToken || tt == xhtml.SelfClosingTagToken) {
			for _, a := range tok.Attr {
				if a.Key == "src" && strings.HasPrefix(a.Val, "/static/") {
					out[a.Val] = true
				}
			}
		}
	}
	return out
}

func TestXSSCorpusThroughPublishAndRender(t *testing.T) {
	s := Start(t, Options{})
	benign := do(t, nil, "GET", s.URL+"/protocols/"+publishDoc(t, s, "# Benign\n\nplain"), map[string]string{"Accept": "text/html"}, nil)
	own := scriptSources(benign.Body)
	if len(own) == 0 {
		t.Fatalf("the benign page has no site script to compare against:\n%s", benign.Body)
	}
	// The detector itself must see what it is for.
	if got := activeContent(`<img src=x onerror=alert(1)><a href=" JavaScript:x">x</a><script>x</script>`, own); len(got) != 3 {
		t.Fatalf("activeContent misses known-bad HTML: %v", got)
	}
	pages := []string{"/protocols/%s", "/protocols?q=alert", "/protocols?q=script", "/", "/tags"}
	for i, doc := range xssCorpus {
		hex := publishDoc(t, s, doc)
		for _, p := range pages {
			url := s.URL + p
			if strings.Contains(p, "%s") {
				url = fmt.Sprintf(s.URL+p, hex)
			}
			r := do(t, nil, "GET", url, map[string]string{"Accept": "text/html"}, nil)
			if r.Status != 200 {
				t.Fatalf("corpus %d: GET %s = %d", i, url, r.Status)
			}
			if bad := activeContent(r.Body, own); len(bad) > 0 {
				t.Errorf("corpus %d %q: %s carries %v", i, doc, p, bad)
			}
			if !strings.Contains(r.Header.Get("Content-Security-Policy"), "script-src 'self'") {
				t.Errorf("%s: no strict CSP", p)
			}
		}
	}
	t.Logf("XSS corpus: %d documents x %d pages", len(xssCorpus), len(pages))
}

// csrfToken loads the publish form in a browser and returns its form token.
func csrfToken(t *testing.T, s *Server, b *http.Client) string {
	t.Helper()
	r := do(t, b, "GET", s.URL+"/publish", map[string]string{"Accept": "text/html"}, nil)
	m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindStringSubmatch(r.Body)
	if m == nil {
		t.Fatalf("no CSRF token on the publish form")
	}
	return m[1]
}

func TestCSRFOnEveryForm(t *testing.T) {
	s := Start(t, Options{})
	victim := browser(t)
	good := csrfToken(t, s, victim)
	other := browser(t)
	othersToken := csrfToken(t, s, other)
	post := func(b *http.Client, token string, extra map[string]string) response {
		fields := map[string]string{"content": "# CSRF\n\nforged " + token, "tags": "x", "action": "publish", "anyway": "1", "token": s.PublishToken}
		if token != "-" {
			fields["csrf_token"] = token
		}
		body, ctype := multipartForm(t, fields)
		h := map[string]string{"Content-Type": ctype, "Accept": "text/html"}
		for k, v := range extra {
			h[k] = v
		}
		return do(t, b, "POST", s.URL+"/publish", h, body)
	}
	before := s.Snapshot(t)
	forged := []struct {
		name  string
		b     *http.Client
		token string
		extra map[string]string
	}{
		{"no cookie, no token", http.DefaultClient, "-", nil},
		{"no cookie, a valid token of someone else", http.DefaultClient, good, nil},
		{"cookie, no token", victim, "-", nil},
		{"cookie, empty token", victim, "", nil},
		{"cookie, garbage token", victim, "not-base64!!", nil},
		{"cookie, wrong token", victim, base64.RawURLEncoding.EncodeToString(make([]byte, 32)), nil},
		{"cookie, another browser's token", victim, othersToken, nil},
		{"cookie, token truncated", victim, good[:len(good)-2], nil},
		{"valid pair sent cross-site", victim, good, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"valid pair sent same-site", victim, good, map[string]string{"Sec-Fetch-Site": "same-site"}},
	}
	for _, f := range forged {
		if r := post(f.b, f.token, f.extra); r.Status != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", f.name, r.Status)
		}
	}
	if after := s.Snapshot(t); !after.Equal(before) {
		t.Fatalf("a forged form post changed the store:\n%v\n%v", before, after)
	}
	// The same post with the right pair works: the refusals above are CSRF's.
	if r := post(victim, good, nil); r.Status >= 400 {
		t.Fatalf("a genuine form post: %d %.300s", r.Status, r.Body)
	}
	if after := s.Snapshot(t); after.Stats.Documents != before.Stats.Documents+1 {
		t.Fatalf("the genuine post stored nothing")
	}
	t.Logf("CSRF: %d forged posts refused", len(forged))
}

// wantHeaders are on every HTML response.
var wantHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'",
	"X-Content-Type-Options":  "nosniff",
	"X-Frame-Options":         "DENY",
	"Referrer-Policy":         "no-referrer",
}

func TestSecurityHeadersOnEveryHTMLResponse(t *testing.T) {
	s := Start(t, Options{})
	hex := publishDoc(t, s, "---\nname: Headers\ntags: [h]\n---\nbody")
	gone := publishDoc(t, s, "# Gone\n\nwithdrawn")
	if r := do(t, nil, "DELETE", s.URL+"/api/v1/protocols/"+gone, map[string]string{"Authorization": "Bearer " + s.AdminToken}, nil); r.Status >= 300 {
		t.Fatalf("withdraw: %d %s", r.Status, r.Body)
	}
	b := browser(t)
	token := csrfToken(t, s, b)
	routes := []struct {
		method, path string
		status       int
	}{
		{"GET", "/", 200},
		{"GET", "/protocols", 200},
		{"GET", "/protocols?q=body&tag=h&sort=name", 200},
		{"GET", "/protocols?cursor=tampered", 400},
		{"GET", "/protocols?sort=bogus", 400},
		{"GET", "/protocols?limit=-5", 0},
		{"GET", "/protocols/" + hex, 200},
		{"GET", "/protocols/" + strings.ToUpper(hex), 0},
		{"GET", "/protocols/" + gone, 410},
		{"GET", "/protocols/" + strings.Repeat("0", 40), 404},
		{"GET", "/protocols/not-a-hash", 400},
		{"GET", "/protocols/%00", 400},
		{"GET", "/publish", 200},
		{"POST", "/publish", 403},
		{"GET", "/tags", 200},
		{"GET", "/no/such/page", 404},
		{"GET", "/api/v1/nothing-here", 0},
	}
	htmlAnswers := 0
	for _, rt := range routes {
		var r response
		if rt.method == "POST" {
			body, ctype := multipartForm(t, map[string]string{"content": "x", "csrf_token": token + "x"})
			r = do(t, b, "POST", s.URL+rt.path, map[string]string{"Accept": "text/html", "Content-Type": ctype}, body)
		} else {
			r = do(t, b, rt.method, s.URL+rt.path, map[string]string{"Accept": "text/html"}, nil)
		}
		if rt.status != 0 && r.Status != rt.status {
			t.Errorf("%s %s: status %d, want %d", rt.method, rt.path, r.Status, rt.status)
		}
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			continue // a machine path answering JSON
		}
		htmlAnswers++
		for h, want := range wantHeaders {
			if !strings.Contains(r.Header.Get(h), want) {
				t.Errorf("%s %s (%d): %s = %q, want %q", rt.method, rt.path, r.Status, h, r.Header.Get(h), want)
			}
		}
	}
	// Only /api/v1/nothing-here may answer JSON; everything else is a page.
	if htmlAnswers < len(routes)-1 {
		t.Fatalf("only %d of %d routes answered HTML", htmlAnswers, len(routes))
	}
	t.Logf("security headers: %d HTML answers", htmlAnswers)
}

func TestRateLimitsAnswer429WithRetryAfter(t *testing.T) {
	s := Start(t, Options{RatePerSec: 0.01, RateBurst: 5})
	var last response
	for i := 0; i < 6; i++ {
		last = do(t, nil, "GET", s.URL+"/api/v1/protocols", nil, nil)
	}
	checkLimited(t, "requests", last)

	p := Start(t, Options{PublishRate: 0.01})
	publishDoc(t, p, "# first\n\nallowed")
	r := do(t, nil, "POST", p.URL+"/api/v1/protocols",
		map[string]string{"Authorization": "Bearer " + p.PublishToken, "Content-Type": "text/markdown"}, strings.NewReader("# second\n\nlimited"))
	checkLimited(t, "API publishes", r)
	// The publish form shares the publish limiter.
	b := browser(t)
	body, ctype := multipartForm(t, map[string]string{"content": "# third", "csrf_token": csrfToken(t, p, b), "token": p.PublishToken, "action": "publish", "anyway": "1"})
	r = do(t, b, "POST", p.URL+"/publish", map[string]string{"Content-Type": ctype, "Accept": "text/html"}, body)
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Fatalf("form publish over the limit: %d, Retry-After %q", r.Status, r.Header.Get("Retry-After"))
	}
}

func checkLimited(t *testing.T, what string, r response) {
	t.Helper()
	if r.Status != http.StatusTooManyRequests {
		t.Fatalf("%s over the limit: status %d", what, r.Status)
	}
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || secs < 1 {
		t.Fatalf("%s: Retry-After %q is not a positive number of seconds", what, r.Header.Get("Retry-After"))
	}
	if code := r.problem(t); code != "rate_limited" {
		t.Fatalf("%s: code %q", what, code)
	}
}

func TestTokensNeverAppearInLogsOrErrors(t *testing.T) {
	s := Start(t, Options{})
	var raw [32]byte
	rand.Read(raw[:])
	wellFormedUnknown := registry.TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	secrets := []string{s.PublishToken, s.AdminToken, wellFormedUnknown, "agr_short-secret-value", "totally-wrong-secret-9f8e7d"}
	var bodies []string
	send := func(method, path, auth, ctype, body string) {
		h := map[string]string{"Content-Type": ctype}
		if auth != "" {
			h["Authorization"] = auth
		}
		r := do(t, nil, method, s.URL+path, h, strings.NewReader(body))
		bodies = append(bodies, fmt.Sprint(r.Status, r.Header, r.Body))
	}
	for _, sec := range secrets {
		send("POST", "/api/v1/protocols", "Bearer "+sec, "text/markdown", "# log test\n\n"+sec[:6])
		send("POST", "/api/v1/protocols", "Basic "+sec, "text/markdown", "# log test")
		send("POST", "/api/v1/protocols", sec, "text/markdown", "# log test")
		send("DELETE", "/api/v1/protocols/"+strings.Repeat("a", 40), "Bearer "+sec, "", "")
		send("POST", "/", "Bearer "+sec, "application/json", `{"name":"n","description":"d","protocol":"p"}`)
		send("GET", "/api/v1/protocols?token="+sec, "", "", "")
	}
	// The publish form's token field.
	b := browser(t)
	for _, sec := range secrets {
		body, ctype := multipartForm(t, map[string]string{"content": "# form " + sec[:6], "csrf_token": csrfToken(t, s, b), "token": sec, "action": "publish", "anyway": "1"})
		r := do(t, b, "POST", s.URL+"/publish", map[string]string{"Content-Type": ctype, "Accept": "text/html"}, body)
		bodies = append(bodies, r.Body)
	}
	logs := s.Logs.String()
	if !strings.Contains(logs, "/api/v1/protocols") {
		t.Fatalf("the request log is empty; the check would prove nothing:\n%.500s", logs)
	}
	for _, sec := range secrets {
		if strings.Contains(logs, sec) {
			t.Errorf("a token secret %.8s… appears in the logs", sec)
		}
		for _, b := range bodies {
			// The query-string case echoes nothing either: a secret must not
			// come back in any response.
			if strings.Contains(b, sec) {
				t.Errorf("a token secret %.8s… appears in a response: %.300s", sec, b)
			}
		}
	}
}

// recordingStore sees what the token lookup is given, and can play an engine
// bug that returns the wrong row.
type recordingStore struct {
	store.Store
	seen     [][32]byte
	wrongRow bool
}

func (r *recordingStore) TokenBySecret(ctx context.Context, h [32]byte) (entity.Token, error) {
	r.seen = append(r.seen, h)
	if r.wrongRow {
		toks, err := r.Store.ListTokens(ctx)
		if err != nil || len(toks) == 0 {
			return entity.Token{}, store.ErrTokenUnknown
		}
		return r.Store.TokenBySecret(ctx, toks[0].SecretHash)
	}
	return r.Store.TokenBySecret(ctx, h)
}

// Token checks are timing-independent of the secret: the store is only ever
// asked for SHA-256(secret) — an index lookup on a value the attacker cannot
// steer byte by byte — and the final check is subtle.ConstantTimeCompare, so
// an engine that returned a near match would still be refused.
func TestTokenLookupIsByHashAndConstantTime(t *testing.T) {
	ctx := context.Background()
	rec := &recordingStore{Store: openStore(t, "sqlite", "")}
	svc := registry.New(rec, registry.Config{PublicURL: "http://127.0.0.1"})
	tok, err := svc.CreateToken(ctx, "t", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, tok.Secret); err != nil {
		t.Fatal(err)
	}
	if len(rec.seen) != 1 || rec.seen[0] != sha256.Sum256([]byte(tok.Secret)) {
		t.Fatalf("the store was not asked for SHA-256(secret): %x", rec.seen)
	}
	// Someone else's well-formed secret, and an engine bug returning the
	// wrong row: the constant-time comparison refuses it.
	rec.wrongRow = true
	flip := "A"
	if strings.HasSuffix(tok.Secret, "A") {
		flip = "B"
	}
	other := tok.Secret[:len(tok.Secret)-1] + flip
	if _, err := svc.Authenticate(ctx, other); err == nil {
		t.Fatalf("a wrong secret was admitted when the engine returned another token's row")
	}
	// Malformed secrets never reach the store at all.
	n := len(rec.seen)
	for _, bad := range []string{"", "agr_", "x" + tok.Secret, tok.Secret + "x", strings.Repeat("a", 10_000)} {
		if _, err := svc.Authenticate(ctx, bad); err == nil {
			t.Fatalf("malformed secret %.20q admitted", bad)
		}
	}
	if len(rec.seen) != n {
		t.Fatalf("malformed secrets reached the store")
	}
}
