package html_test

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestPlantedCSRFCookieGetsNoToken (issue 13.10): a nonce cookie the server
// did not mint, as a sibling subdomain could plant it, is not signed. The
// planter fetches the form with it and posts the token it was shown with
// the same cookie, as a forged post from the victim's browser would: 403,
// and the form page sets a fresh server-minted cookie instead.
func TestPlantedCSRFCookieGetsNoToken(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	base, _ := url.Parse(srv.URL)
	for _, size := range []int{32, 48} { // the old nonce size, and the new cookie's
		raw := make([]byte, size)
		_, _ = rand.Read(raw)
		planted := &http.Cookie{Name: "registry_csrf", Value: base64.RawURLEncoding.EncodeToString(raw), Path: "/"}
		attacker := newClient(t, srv.URL)
		attacker.http.Jar.SetCookies(base, []*http.Cookie{planted})
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/publish", nil)
		req.Header.Set("Accept", "text/html")
		req.AddCookie(planted)
		// Sent by hand so the planted value stays the only cookie.
		resp, body := (&browserClient{t: t, http: http.DefaultClient, base: srv.URL}).do(req)
		m := csrfRE.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no token on the form")
		}
		if !strings.Contains(resp.Header.Get("Set-Cookie"), "registry_csrf=") {
			t.Errorf("%d-byte planted cookie: the form kept it instead of minting a new one", size)
		}
		post, _ := attacker.postForm(map[string]string{"content": "# Planted\n", "action": "preview", "csrf_token": m[1]})
		if post.StatusCode != http.StatusForbidden {
			t.Errorf("%d-byte planted cookie with the token shown for it: status %d, want 403", size, post.StatusCode)
		}
	}
	// The server's own cookie still works (the refusals above are CSRF's).
	c := newClient(t, srv.URL)
	if resp, body := c.postForm(map[string]string{"content": "# Genuine\n", "action": "preview", "csrf_token": c.csrfToken()}); resp.StatusCode != 200 {
		t.Fatalf("genuine preview: %d %.300s", resp.StatusCode, body)
	}
}

// TestCrossOriginFormPostIsRefused: a valid pair posted with a foreign
// Origin (a browser without Sec-Fetch-Site) or Sec-Fetch-Site: same-site is
// refused by the origin check.
func TestCrossOriginFormPostIsRefused(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	for _, h := range []map[string]string{
		{"Origin": "https://evil.example"},
		{"Sec-Fetch-Site": "same-site"},
		{"Sec-Fetch-Site": "cross-site", "Origin": srv.URL},
	} {
		c := newClient(t, srv.URL)
		tok := c.csrfToken()
		resp, _ := c.postFormWith(map[string]string{"content": "# X\n", "action": "preview", "csrf_token": tok}, h)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%v: status %d, want 403", h, resp.StatusCode)
		}
	}
	c := newClient(t, srv.URL)
	tok := c.csrfToken()
	if resp, _ := c.postFormWith(map[string]string{"content": "# X\n", "action": "preview", "csrf_token": tok}, map[string]string{"Origin": srv.URL, "Sec-Fetch-Site": "same-origin"}); resp.StatusCode != 200 {
		t.Errorf("same-origin post: %d", resp.StatusCode)
	}
}
