package html_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/agora-registry/registry/internal/auth"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// provider is mockoidc, a real OpenID Connect provider, in-process on a
// loopback socket; it records what the registry sent it.
type provider struct {
	*mockoidc.MockOIDC
	mu        sync.Mutex
	authorize url.Values // the last authorization request's query
	token     url.Values // the last token request's form
	nonce     string     // when set, replaces the nonce the registry asked for
}

func startProvider(t testing.TB) *provider {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &provider{MockOIDC: m}
	_ = m.AddMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			p.mu.Lock()
			switch {
			case strings.HasSuffix(r.URL.Path, mockoidc.AuthorizationEndpoint):
				p.authorize = r.Form
				if p.nonce != "" {
					r.Form.Set("nonce", p.nonce)
				}
			case strings.HasSuffix(r.URL.Path, mockoidc.TokenEndpoint):
				p.token = r.Form
			}
			p.mu.Unlock()
			next.ServeHTTP(w, r)
		})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return p
}

// clock is the registry's time in a test: real time plus an offset.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return time.Now().Add(c.off) }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// The rules of the tests' registry: engineering publishes as acme, a
// verified example.com address as beta, registry-admins administers.
func signInWith(issuer, clientID, secret string, clk *clock) func(t testing.TB, st auth.Store, public string) *auth.OIDC {
	return func(t testing.TB, st auth.Store, public string) *auth.OIDC {
		rules := []auth.Rule{}
		for _, r := range []string{"engineering=acme", "@Example.com=beta"} {
			rule, err := auth.ParseRule(r)
			if err != nil {
				t.Fatal(err)
			}
			rules = append(rules, rule)
		}
		o, err := auth.New(auth.Config{Issuer: issuer, ClientID: clientID, ClientSecret: secret, PublicURL: public,
			Rules: rules, AdminGroups: []string{"registry-admins"}, SessionTTL: time.Hour,
			Key: []byte(strings.Repeat("k", 32)), Now: clk.now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, st)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
}

// userAgent is a browser in Go: a cookie jar, redirects followed.
func userAgent(t testing.TB) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 10 * time.Second}
}

func fetch(t testing.TB, c *http.Client, method, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range form {
		for _, v := range vs {
			_ = mw.WriteField(k, v)
		}
	}
	mw.Close()
	var rd io.Reader
	if form != nil {
		rd = &body
	}
	req, _ := http.NewRequest(method, u, rd)
	req.Header.Set("Accept", htmlAccept)
	if form != nil {
		// A browser's same-origin form post (multipart, as the pages send).
		req.Header.Set("Content-Type", mw.FormDataContentType())
		pu, _ := url.Parse(u)
		req.Header.Set("Origin", pu.Scheme+"://"+pu.Host)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var tokenRE = regexp.MustCompile(`<code id="new-token">([^<]+)</code>`)

func signInServer(t *testing.T, pg bool) (*testServer, *provider, *clock) {
	p := startProvider(t)
	clk := &clock{}
	cfg := p.Config()
	srv := startServer(t, serverOptions{postgres: pg, signIn: signInWith(cfg.Issuer, cfg.ClientID, cfg.ClientSecret, clk)})
	return srv, p, clk
}

// A member of a group a rule names signs in through the real provider
// (PKCE S256, state, nonce), lands where next said, publishes as the
// group's publisher without a token, makes and revokes a token (recorded
// as theirs), and signs out; on both engines.
func TestSignInPublishTokensSignOut(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			srv, p, _ := signInServer(t, engine == "postgres")
			ctx := context.Background()
			if _, err := srv.svc.CreatePublisher(ctx, "acme", "Acme"); err != nil {
				t.Fatal(err)
			}
			p.QueueUser(&mockoidc.MockUser{Subject: "u1", Email: "ann@corp.test", EmailVerified: true, Groups: []string{"engineering"}})
			ua := userAgent(t)
			resp, body := fetch(t, ua, "GET", srv.URL+"/login?next=/publish", nil)
			if resp.StatusCode != 200 || resp.Request.URL.Path != "/publish" || !strings.Contains(body, "Signed in as ann@corp.test") {
				t.Fatalf("after signing in: %d at %s, want the publish form for ann:\n%s", resp.StatusCode, resp.Request.URL, body)
			}
			// PKCE: an S256 challenge went out and its verifier came back.
			p.mu.Lock()
			az, tk := p.authorize, p.token
			p.mu.Unlock()
			sum := sha256.Sum256([]byte(tk.Get("code_verifier")))
			if az.Get("code_challenge_method") != "S256" || tk.Get("code_verifier") == "" ||
				az.Get("code_challenge") != base64.RawURLEncoding.EncodeToString(sum[:]) {
				t.Fatalf("no PKCE S256: authorize %v, token %v", az, tk)
			}
			if az.Get("state") == "" || az.Get("nonce") == "" || az.Get("state") == az.Get("nonce") {
				t.Fatalf("state %q and nonce %q must be set and differ", az.Get("state"), az.Get("nonce"))
			}

			if !strings.Contains(body, `id="nav-account"`) {
				t.Error("the navigation has no link to the account page")
			}
			csrf := csrfRE.FindStringSubmatch(body)[1]
			doc := "---\nname: Team protocol\ndescription: Published with a session.\n---\n# Team\n"
			resp, _ = fetch(t, ua, "POST", srv.URL+"/publish", url.Values{"content": {doc}, "action": {"publish"}, "csrf_token": {csrf}, "publisher": {"acme"}})
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Request.URL.Path, "/protocols/") {
				t.Fatalf("publishing with the session: %d at %s", resp.StatusCode, resp.Request.URL)
			}
			page, err := srv.svc.Search(ctx, store.Query{Publisher: "acme", Limit: 10})
			if err != nil || len(page.Entries) != 1 {
				t.Fatalf("acme's documents: %v, %v", page.Entries, err)
			}
			// Not as a publisher no rule gives ann.
			resp, body = fetch(t, ua, "POST", srv.URL+"/publish", url.Values{"content": {doc + "x\n"}, "action": {"publish"}, "csrf_token": {csrf}, "publisher": {"beta"}})
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "You may not publish as") {
				t.Fatalf("publishing as beta: %d\n%s", resp.StatusCode, body)
			}

			resp, body = fetch(t, ua, "GET", srv.URL+"/account", nil)
			if resp.StatusCode != 200 || !strings.Contains(body, "ann@corp.test") || !strings.Contains(body, "publisher <a href=\"/account?publisher=acme\">acme</a>") {
				t.Fatalf("account page: %d\n%s", resp.StatusCode, body)
			}
			// ann makes no token for a publisher no rule gives her.
			if _, err := srv.svc.CreatePublisher(ctx, "beta", "Beta"); err != nil {
				t.Fatal(err)
			}
			resp, _ = fetch(t, ua, "POST", srv.URL+"/account/tokens", url.Values{"csrf_token": {csrf}, "publisher": {"beta"}, "name": {"x"}, "scope": {"read"}})
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a token of another publisher: %d", resp.StatusCode)
			}
			// Nor revokes one.
			betaTok, err := srv.svc.CreatePublisherToken(ctx, "beta", "beta ci", []entity.Scope{entity.ScopePublish})
			if err != nil {
				t.Fatal(err)
			}
			resp, _ = fetch(t, ua, "POST", srv.URL+"/account/tokens/"+itoa(betaTok.Token.ID)+"/revoke", url.Values{"csrf_token": {csrf}})
			if _, err := srv.svc.Authenticate(ctx, betaTok.Secret); resp.StatusCode != http.StatusNotFound || err != nil {
				t.Fatalf("revoking another publisher's token: %d, it authenticates: %v", resp.StatusCode, err)
			}
			// ann may grant read and publish, never admin.
			resp, body = fetch(t, ua, "POST", srv.URL+"/account/tokens", url.Values{"csrf_token": {csrf}, "publisher": {"acme"}, "name": {"ci"}, "scope": {"admin"}})
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("an admin token from a publisher: %d\n%s", resp.StatusCode, body)
			}
			resp, body = fetch(t, ua, "POST", srv.URL+"/account/tokens", url.Values{"csrf_token": {csrf}, "publisher": {"acme"}, "name": {"ci"}, "scope": {"read", "publish"}})
			m := tokenRE.FindStringSubmatch(body)
			if resp.StatusCode != 200 || m == nil {
				t.Fatalf("making a token: %d\n%s", resp.StatusCode, body)
			}
			tok, err := srv.svc.Authenticate(ctx, m[1])
			if err != nil || tok.Publisher != "acme" || tok.CreatedBy != "ann@corp.test" || !tok.Has(entity.ScopePublish) {
				t.Fatalf("the token made in the browser: %+v, %v", tok, err)
			}
			resp, _ = fetch(t, ua, "POST", srv.URL+"/account/tokens/"+itoa(tok.ID)+"/revoke", url.Values{"csrf_token": {csrf}})
			if resp.StatusCode != 200 {
				t.Fatalf("revoking: %d", resp.StatusCode)
			}
			if _, err := srv.svc.Authenticate(ctx, m[1]); err == nil {
				t.Fatal("the revoked token still authenticates")
			}

			// Signing out needs the form's token, then ends the session
			// on the server, not only in this browser.
			session := cookieValue(ua, srv.URL, "registry_session")
			resp, _ = fetch(t, ua, "POST", srv.URL+"/logout", url.Values{"csrf_token": {"forged"}})
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a logout without the CSRF token: %d", resp.StatusCode)
			}
			fetch(t, ua, "POST", srv.URL+"/logout", url.Values{"csrf_token": {csrf}})
			replay := noRedirects(t)
			u, _ := url.Parse(srv.URL)
			replay.Jar.SetCookies(u, []*http.Cookie{{Name: "registry_session", Value: session}})
			resp, _ = fetch(t, replay, "GET", srv.URL+"/account", nil)
			if session == "" || resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("the session cookie %q still works after signing out: %d", session, resp.StatusCode)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func cookieValue(c *http.Client, base, name string) string {
	u, _ := url.Parse(base)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// noRedirects is a browser that stops at each redirect, to tamper with it.
func noRedirects(t testing.TB) *http.Client {
	c := userAgent(t)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// toCallback starts a sign-in and walks it to the provider's redirect
// back, returning the callback URL unvisited.
func toCallback(t *testing.T, c *http.Client, base, next string) *url.URL {
	t.Helper()
	resp, _ := fetch(t, c, "GET", base+"/login?next="+url.QueryEscape(next), nil)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("/login: %d", resp.StatusCode)
	}
	resp, _ = fetch(t, c, "GET", resp.Header.Get("Location"), nil)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("the provider's authorization: %d", resp.StatusCode)
	}
	cb, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || cb.Path != auth.CallbackPath {
		t.Fatalf("the provider redirected to %v", resp.Header.Get("Location"))
	}
	return cb
}

// signedIn asks /account without following its redirect to sign in (the
// mock provider signs anyone in).
func signedIn(t *testing.T, c *http.Client, base string) bool {
	resp, _ := fetch(t, noRedirectsWithJar(c), "GET", base+"/account", nil)
	return resp.StatusCode == http.StatusOK
}

// Each way a sign-in can be attacked or go wrong ends without a session
// and with a clear page.
func TestSignInRefusals(t *testing.T) {
	srv, p, clk := signInServer(t, false)

	t.Run("wrong state", func(t *testing.T) {
		c := noRedirects(t)
		cb := toCallback(t, c, srv.URL, "/")
		q := cb.Query()
		q.Set("state", "forged")
		cb.RawQuery = q.Encode()
		resp, body := fetch(t, c, "GET", cb.String(), nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "state does not match") || signedIn(t, c, srv.URL) {
			t.Fatalf("a forged state: %d, signed in %v\n%s", resp.StatusCode, signedIn(t, c, srv.URL), body)
		}
	})
	t.Run("replayed code", func(t *testing.T) {
		c := noRedirects(t)
		cb := toCallback(t, c, srv.URL, "/")
		if resp, _ := fetch(t, c, "GET", cb.String(), nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("the first use of the code: %d", resp.StatusCode)
		}
		// The same callback again: its login cookie is spent.
		other := noRedirects(t)
		resp, _ := fetch(t, other, "GET", cb.String(), nil)
		if resp.StatusCode != http.StatusUnauthorized || signedIn(t, other, srv.URL) {
			t.Fatalf("a replayed callback without the login cookie: %d", resp.StatusCode)
		}
		// With a fresh login of its own, the old code under the new state:
		// the provider refuses a code used once.
		cb2 := toCallback(t, other, srv.URL, "/")
		q := cb2.Query()
		q.Set("code", cb.Query().Get("code"))
		cb2.RawQuery = q.Encode()
		resp, body := fetch(t, other, "GET", cb2.String(), nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "did not accept") || signedIn(t, other, srv.URL) {
			t.Fatalf("a replayed code: %d\n%s", resp.StatusCode, body)
		}
	})
	t.Run("nonce mismatch", func(t *testing.T) {
		p.mu.Lock()
		p.nonce = "not-the-registrys"
		p.mu.Unlock()
		defer func() { p.mu.Lock(); p.nonce = ""; p.mu.Unlock() }()
		c := noRedirects(t)
		cb := toCallback(t, c, srv.URL, "/")
		resp, body := fetch(t, c, "GET", cb.String(), nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "nonce mismatch") || signedIn(t, c, srv.URL) {
			t.Fatalf("a token with another nonce: %d\n%s", resp.StatusCode, body)
		}
	})
	t.Run("open redirect", func(t *testing.T) {
		for _, next := range []string{"//evil.test/x", "https://evil.test/", "/\\evil.test", "http:/evil.test", "javascript:alert(1)", "/%0d%0aSet-Cookie:x"} {
			c := noRedirects(t)
			cb := toCallback(t, c, srv.URL, next)
			resp, _ := fetch(t, c, "GET", cb.String(), nil)
			if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || (loc != "/" && !strings.HasPrefix(loc, "/%")) {
				t.Errorf("next=%q sent the user to %q", next, loc)
			}
		}
	})
	t.Run("no matching group", func(t *testing.T) {
		p.QueueUser(&mockoidc.MockUser{Subject: "u2", Email: "bob@corp.test", EmailVerified: true, Groups: []string{"marketing"}})
		c := userAgent(t)
		resp, body := fetch(t, c, "GET", srv.URL+"/login?next=/account", nil)
		if resp.StatusCode != 200 || !strings.Contains(body, `id="no-roles"`) || !strings.Contains(body, "cannot publish") {
			t.Fatalf("a user no rule names: %d\n%s", resp.StatusCode, body)
		}
		_, body = fetch(t, c, "GET", srv.URL+"/publish", nil)
		csrf := csrfRE.FindStringSubmatch(body)[1]
		resp, body = fetch(t, c, "POST", srv.URL+"/publish", url.Values{"content": {"---\nname: N\ndescription: d\n---\n# N\n"}, "action": {"publish"}, "csrf_token": {csrf}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "no rule of this registry gives your account a publisher") {
			t.Fatalf("publishing without a role: %d\n%s", resp.StatusCode, body)
		}
	})
	t.Run("unverified email", func(t *testing.T) {
		p.QueueUser(&mockoidc.MockUser{Subject: "u3", Email: "eve@example.com", EmailVerified: false})
		c := userAgent(t)
		_, body := fetch(t, c, "GET", srv.URL+"/login?next=/account", nil)
		if !strings.Contains(body, `id="no-roles"`) || strings.Contains(body, "publisher <a") {
			t.Fatalf("an unverified example.com address got a publisher:\n%s", body)
		}
		p.QueueUser(&mockoidc.MockUser{Subject: "u4", Email: "dan@EXAMPLE.com", EmailVerified: true})
		c = userAgent(t)
		_, body = fetch(t, c, "GET", srv.URL+"/login?next=/account", nil)
		if !strings.Contains(body, "publisher <a href=\"/account?publisher=beta\">beta</a>") {
			t.Fatalf("a verified example.com address did not get beta:\n%s", body)
		}
	})
	t.Run("admin group", func(t *testing.T) {
		p.QueueUser(&mockoidc.MockUser{Subject: "u5", Email: "root@corp.test", EmailVerified: true, Groups: []string{"registry-admins"}})
		c := userAgent(t)
		_, body := fetch(t, c, "GET", srv.URL+"/login?next=/account", nil)
		if !strings.Contains(body, "administrator") {
			t.Fatalf("an admin-group member is no administrator:\n%s", body)
		}
	})
	t.Run("expired session", func(t *testing.T) {
		p.QueueUser(&mockoidc.MockUser{Subject: "u6", Email: "ann@corp.test", EmailVerified: true, Groups: []string{"engineering"}})
		c := userAgent(t)
		fetch(t, c, "GET", srv.URL+"/login", nil)
		if !signedIn(t, c, srv.URL) {
			t.Fatal("not signed in")
		}
		clk.advance(time.Hour + time.Second)
		defer clk.advance(-time.Hour - time.Second)
		resp, _ := fetch(t, noRedirectsWithJar(c), "GET", srv.URL+"/account", nil)
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
			t.Fatalf("an expired session: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
}

func noRedirectsWithJar(c *http.Client) *http.Client {
	return &http.Client{Jar: c.Jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// A provider that is down when the registry starts: the registry serves,
// /login explains, and once the provider is up signing in works.
func TestSignInProviderDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens here yet
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{}
	srv := startServer(t, serverOptions{signIn: signInWith("http://"+addr+"/oidc", m.ClientID, m.ClientSecret, clk)})
	c := userAgent(t)
	if resp, _ := fetch(t, c, "GET", srv.URL+"/protocols", nil); resp.StatusCode != 200 {
		t.Fatalf("the registry does not serve while its provider is down: %d", resp.StatusCode)
	}
	resp, body := fetch(t, c, "GET", srv.URL+"/login", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "identity provider") || !strings.Contains(body, "cannot be reached") {
		t.Fatalf("/login with the provider down: %d\n%s", resp.StatusCode, body)
	}
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the provider's port was taken meanwhile: %v", err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	clk.advance(10 * time.Second) // past the pause between discovery attempts
	resp, _ = fetch(t, c, "GET", srv.URL+"/login?next=/account", nil)
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/account" {
		t.Fatalf("signing in once the provider is up: %d at %s", resp.StatusCode, resp.Request.URL)
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"/publish": "/publish", "/protocols?q=a%20b": "/protocols?q=a%20b", "": "/", "//evil.test": "/",
		"/\\evil.test": "/", "https://evil.test/": "/", "evil": "/", "/a\r\nb": "/", "/ok#frag": "/ok#frag",
	} {
		if got := auth.SafeNext(in); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", in, got, want)
		}
	}
}
