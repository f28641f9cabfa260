package html_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// prefixTwins share their SHA-1's first 8 hex digits, fc7fb47e (see
// storetest's prefix test).
var prefixTwins = []string{
	"---\nname: Prefix twin 61546\ndescription: Shares its first 8 hex digits with another.\n---\n",
	"---\nname: Prefix twin 133413\ndescription: Shares its first 8 hex digits with another.\n---\n",
}

// /protocols/{prefix}: a unique prefix redirects to the full hash, a shared
// one lists the candidates, an unknown one is a 404; under 8 digits is not
// a prefix.
func TestHashPrefixPages(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	var hexes []string
	for _, doc := range prefixTwins {
		r, err := srv.svc.Publish(context.Background(), []byte(doc), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		hexes = append(hexes, r.Entry.Digest.Hex())
	}
	c := newClient(t, srv.URL)
	for _, p := range []string{hexes[0][:12], strings.ToUpper(hexes[0][:9]), hexes[0][:39]} {
		resp, _ := c.get("/protocols/"+p, htmlAccept)
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/protocols/"+hexes[0] {
			t.Errorf("/protocols/%s: %d to %q, want 302 to the full hash", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	resp, body := c.get("/protocols/fc7fb47e", htmlAccept)
	if resp.StatusCode != http.StatusMultipleChoices || !strings.Contains(body, `href="/protocols/`+hexes[0]+`"`) ||
		!strings.Contains(body, `href="/protocols/`+hexes[1]+`"`) || !strings.Contains(body, "Prefix twin 133413") {
		t.Errorf("shared prefix: status %d, want 300 listing both twins:\n%s", resp.StatusCode, body)
	}
	resp, body = c.get("/protocols/fc7fb47e7", htmlAccept)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "starts with fc7fb47e7") {
		t.Errorf("unknown prefix: status %d:\n%s", resp.StatusCode, body)
	}
	if resp, _ := c.get("/protocols/fc7fb47", htmlAccept); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a 7-digit prefix answered %d, want 400", resp.StatusCode)
	}
}

// A hash typed or pasted into a search box goes to its page: hex of either
// case, Base64, percent-escaped, with spaces around, or a short hash with
// a digit that names stored documents. Anything else is a search.
func TestSearchBoxTakesAPastedHash(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	// A document whose Base64 holds '/' or '+', so escaping matters.
	var hex, b64 string
	for i := 0; hex == ""; i++ {
		r, err := srv.svc.Publish(context.Background(), []byte("---\nname: Paste "+strings.Repeat("x", i)+"\ndescription: d\n---\n"), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if b := r.Entry.Digest.Base64(); strings.ContainsAny(b, "/+") {
			hex, b64 = r.Entry.Digest.Hex(), b
		}
	}
	c := newClient(t, srv.URL)
	search := func(q string) (*http.Response, string) {
		return c.get("/protocols?q="+url.QueryEscape(q), htmlAccept)
	}
	for _, q := range []string{hex, strings.ToUpper(hex), " " + hex + " ", b64, strings.TrimSuffix(b64, "="), url.PathEscape(b64),
		strings.NewReplacer("/", "%2F", "+", "%2B", "=", "%3D").Replace(b64), strings.NewReplacer("+", "-", "/", "_").Replace(b64)} {
		resp, _ := search(q)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/protocols/"+hex {
			t.Errorf("search %q: %d to %q, want 303 to /protocols/%s", q, resp.StatusCode, resp.Header.Get("Location"), hex)
		}
	}
	short := hex[:12]
	if !strings.ContainsAny(short, "0123456789") {
		t.Fatalf("short hash %s has no digit; pick another document", short)
	}
	if resp, _ := search(short); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/protocols/"+short {
		t.Errorf("search for the short hash: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Searches, not hashes: a hex-looking word, an unknown short hash, a
	// near-hash.
	for _, q := range []string{"deadbeefcafe", "0000000000ff", hex[:39] + "g", b64 + "x"} {
		if resp, body := search(q); resp.StatusCode != http.StatusOK || !strings.Contains(body, "Results for “"+html.EscapeString(q)+"”") {
			t.Errorf("search %q answered %d %q, want the results page", q, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}
