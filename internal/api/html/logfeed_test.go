package html_test

import (
	"context"
	"encoding/xml"
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
)

// TestLogPageAndFeed: /log explains the latest checkpoint (its size,
// root, key, the signed note) and lists the latest changes with titles;
// /feed.atom lists the protocols, filtered by tag or publisher, a
// deprecation marked.
func TestLogPageAndFeed(t *testing.T) {
	srv := startServer(t, serverOptions{examples: true, log: true})
	ctx := context.Background()
	if _, err := srv.svc.CreatePublisher(ctx, "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	res, err := srv.svc.PublishRequest(ctx, registry.PublishRequest{Publisher: "acme",
		Content: []byte("---\nname: Tide Tables\ndescription: tides\ntags: [sea]\n---\n# Tide Tables\n")})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := srv.svc.CreatePublisherToken(ctx, "acme", "ci", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.svc.SetStatus(ctx, tok.Token, res.Entry.Digest, registry.StatusRequest{Status: entity.StatusDeprecated, Message: "tides moved"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.log.Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv.URL)
	resp, body := c.get("/log", htmlAccept)
	body = html.UnescapeString(body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/log: %d", resp.StatusCode)
	}
	for _, want := range []string{`<dd id="log-size">6</dd>`, srv.log.VerifierKey(), "registry.test/log", "Tide Tables",
		`<span class="badge">deprecate</span>`, "registry verify --registry " + srv.URL} {
		if !strings.Contains(body, want) {
			t.Errorf("/log lacks %q", want)
		}
	}
	if i, j := strings.Index(body, "deprecate</span>"), strings.Index(body, "publish</span>"); i < 0 || j < 0 || i > j {
		t.Errorf("/log does not list the newest change first")
	}

	type feed struct {
		Entries []struct {
			ID      string `xml:"id"`
			Title   string `xml:"title"`
			Summary string `xml:"summary"`
			Author  struct {
				Name string `xml:"name"`
			} `xml:"author"`
		} `xml:"entry"`
	}
	read := func(path string) feed {
		t.Helper()
		resp, body := c.get(path, "application/atom+xml")
		var f feed
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/atom+xml") || xml.Unmarshal([]byte(body), &f) != nil {
			t.Fatalf("%s: %d %s\n%s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		return f
	}
	if f := read("/feed.atom"); len(f.Entries) != 5 {
		t.Errorf("/feed.atom lists %d entries, want the 5 protocols", len(f.Entries))
	}
	for _, path := range []string{"/feed.atom?tag=sea", "/feed.atom?publisher=acme"} {
		f := read(path)
		if len(f.Entries) != 1 || f.Entries[0].Title != "Tide Tables (deprecated)" || f.Entries[0].Author.Name != "acme" ||
			!strings.Contains(f.Entries[0].Summary, "tides moved") || f.Entries[0].ID != "urn:sha1:"+res.Entry.Digest.Hex() {
			t.Errorf("%s: %+v", path, f.Entries)
		}
	}
}
