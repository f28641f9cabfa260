package html_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestProtocolsWithTrailingSlashRedirects: /protocols/ is the listing
// mistyped, not a missing hash.
func TestProtocolsWithTrailingSlashRedirects(t *testing.T) {
	srv := startServer(t, serverOptions{})
	c := newClient(t, srv.URL)
	for path, want := range map[string]string{"/protocols/": "/protocols", "/protocols/?q=weather%20report&tag=x": "/protocols?q=weather%20report&tag=x"} {
		resp, _ := c.get(path, htmlAccept)
		if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != want {
			t.Errorf("%s: status %d, Location %q; want 301 to %q", path, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
}

// TestErrorPagesSpeakToPeople: a page 404 does not use the API's wording,
// and a 400 states the hash rule once.
func TestErrorPagesSpeakToPeople(t *testing.T) {
	srv := startServer(t, serverOptions{})
	c := newClient(t, srv.URL)
	resp, body := c.get("/nowhere", htmlAccept)
	if resp.StatusCode != http.StatusNotFound || strings.Contains(body, "no such endpoint") || !strings.Contains(body, "There is no page at this address.") {
		t.Errorf("page 404: status %d, body:\n%s", resp.StatusCode, body)
	}
	if resp, body := c.get("/nowhere", "application/json"); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, `"route_not_found"`) {
		t.Errorf("API 404 changed: status %d, %s", resp.StatusCode, body)
	}
	for _, path := range []string{"/protocols/xyz", "/protocols/" + strings.Repeat("z", 40), "/protocols/" + strings.Repeat("A", 27) + "!"} {
		resp, body := c.get(path, htmlAccept)
		if n := strings.Count(body, "28 Base64 characters"); resp.StatusCode != http.StatusBadRequest || n != 1 {
			t.Errorf("%s: status %d, the hash rule is stated %d times, want once:\n%s", path, resp.StatusCode, n, body)
		}
	}
}

// TestPublishedBannerOnlyForThePublisher: "Published." follows this
// browser's own publish, once; a link cannot show it to anyone else.
func TestPublishedBannerOnlyForThePublisher(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true, examples: true})
	publisher, stranger := newClient(t, srv.URL), newClient(t, srv.URL)
	resp, _ := publisher.postForm(map[string]string{"content": "---\nname: Banner\ndescription: flash once\n---\n# Banner\n", "action": "publish", "csrf_token": publisher.csrfToken()})
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/protocols/") {
		t.Fatalf("publish: status %d, Location %q", resp.StatusCode, loc)
	}
	for _, q := range []string{"", "?published=new", "?published=existing"} {
		if _, body := stranger.get(loc+q, htmlAccept); strings.Contains(body, "Published.") || strings.Contains(body, "already published") {
			t.Errorf("%s%s shows the publish banner to a browser that did not publish", loc, q)
		}
	}
	resp, body := publisher.get(loc, htmlAccept)
	if !strings.Contains(body, "Published.") || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("the publisher's page lacks the banner (or is cacheable: %q)", resp.Header.Get("Cache-Control"))
	}
	if _, body := publisher.get(loc, htmlAccept); strings.Contains(body, "Published.") {
		t.Error("the banner shows again on the next visit")
	}
	// Publishing the same bytes again says so, once.
	publisher.postForm(map[string]string{"content": "---\nname: Banner\ndescription: flash once\n---\n# Banner\n", "action": "publish", "csrf_token": publisher.csrfToken()})
	if _, body := publisher.get(loc, htmlAccept); !strings.Contains(body, "already published") {
		t.Error("republishing shows no 'already published' note")
	}
}
