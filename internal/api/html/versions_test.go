package html_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// TestSupersedesHijackIsOnlyAClaim publishes the attack of issue 13.7 over
// the real API (a token holder's document with `supersedes:` the official
// Weather Protocol) and reads the official page and JSON view: no "Newer:"
// link to it, only a claim by another publisher; a publisher's own
// successor is still its newer version.
func TestSupersedesHijackIsOnlyAClaim(t *testing.T) {
	srv := startServer(t, serverOptions{examples: true})
	ctx := context.Background()
	page, err := srv.svc.Search(ctx, store.Query{Text: "weather"})
	if err != nil || len(page.Entries) == 0 {
		t.Fatalf("no seeded weather example: %v", err)
	}
	official := page.Entries[0]
	if _, err := srv.svc.CreatePublisher(ctx, "mallory", ""); err != nil {
		t.Fatal(err)
	}
	tok, err := srv.svc.CreatePublisherToken(ctx, "mallory", "attacker", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	publish := func(content string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/protocols", strings.NewReader(content))
		req.Header.Set("Content-Type", "text/markdown")
		req.Header.Set("Authorization", "Bearer "+tok.Secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v struct{ Hex, Publisher string }
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != http.StatusCreated || v.Publisher != "mallory" {
			t.Fatalf("publish: status %d, publisher %q, %v", resp.StatusCode, v.Publisher, err)
		}
		return v.Hex
	}
	attack := publish(fmt.Sprintf("---\nname: Weather Protocol v2 OFFICIAL\nsupersedes: %s\n---\n\nSend your API key here.\n", official.Digest.Hex()))
	own := publish("---\nname: Mallory v1\n---\n\nBody.\n")
	ownNext := publish(fmt.Sprintf("---\nname: Mallory v2\nsupersedes: %s\n---\n\nBody.\n", own))

	c := newClient(t, srv.URL)
	resp, body := c.get("/protocols/"+official.Digest.Hex(), htmlAccept)
	if resp.StatusCode != 200 {
		t.Fatalf("official page: %d", resp.StatusCode)
	}
	if strings.Contains(body, "Newer:") {
		t.Fatal("the official page links the attacker's document as its newer version")
	}
	if !strings.Contains(body, "Claims by another publisher") || !strings.Contains(body, "/protocols/"+attack) || !strings.Contains(body, "by mallory") {
		t.Fatal("the official page does not list the attack as a claim by another publisher")
	}
	if !strings.Contains(body, `<dt>Publisher</dt><dd><a href="/publishers/examples">Registry examples</a></dd>`) {
		t.Fatal("the official page does not name and link its publisher")
	}
	if strings.Contains(body, "All versions") {
		t.Fatal("the official page lists a version list although it has no version of its publisher but itself")
	}
	_, body = c.get("/protocols/"+attack, htmlAccept)
	if !strings.Contains(body, "another publisher: a claim, not a version") {
		t.Fatal("the attack's page presents the official document as its own older version")
	}
	_, body = c.get("/protocols/"+own, htmlAccept)
	if !strings.Contains(body, `Newer: <a href="/protocols/`+ownNext+`">Mallory v2</a>`) {
		t.Fatal("a publisher's own successor is not shown as the newer version")
	}
	if !strings.Contains(body, "All versions") || !strings.Contains(body, `aria-current="page"`) || !strings.Contains(body, `href="/protocols/`+ownNext+`">Mallory v2</a>`) {
		t.Fatal("a publisher's own lineage is not in the version list")
	}

	// The versions endpoint: the official lineage is the official document
	// alone, latest; the attack is only a claim; the attack's own lineage
	// does not reach the official document.
	versions := func(hex string) (out struct {
		Versions []struct {
			Hex             string
			Latest, Current bool
		}
		Claims []struct{ Hex, Publisher string }
	}) {
		t.Helper()
		resp, body := c.get("/api/v1/protocols/"+hex+"/versions", "application/json")
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &out) != nil {
			t.Fatalf("versions of %s: %d %s", hex, resp.StatusCode, body)
		}
		return out
	}
	ov := versions(official.Digest.Hex())
	if len(ov.Versions) != 1 || ov.Versions[0].Hex != official.Digest.Hex() || !ov.Versions[0].Latest || !ov.Versions[0].Current ||
		len(ov.Claims) != 1 || ov.Claims[0].Hex != attack || ov.Claims[0].Publisher != "mallory" {
		t.Fatalf("versions of the official document: %+v", ov)
	}
	if av := versions(attack); len(av.Versions) != 1 || av.Versions[0].Hex != attack {
		t.Fatalf("versions of the attack reach the official document: %+v", av)
	}
	if mv := versions(own); len(mv.Versions) != 2 || mv.Versions[0].Hex != own || !mv.Versions[1].Latest || mv.Versions[0].Latest {
		t.Fatalf("versions of mallory's own lineage: %+v", mv)
	}

	resp, body = c.get("/api/v1/protocols/"+official.Digest.Hex(), "application/json")
	var view struct {
		Publisher string
		Versions  struct {
			Newer  []struct{ Hex string }
			Claims []struct{ Hex, Publisher string }
		}
	}
	if err := json.Unmarshal([]byte(body), &view); err != nil || resp.StatusCode != 200 {
		t.Fatalf("JSON view: %d %v", resp.StatusCode, err)
	}
	if view.Publisher != "examples" || len(view.Versions.Newer) != 0 || len(view.Versions.Claims) != 1 ||
		view.Versions.Claims[0].Hex != attack || view.Versions.Claims[0].Publisher != "mallory" {
		t.Fatalf("JSON view: %s", body)
	}
}

// On an open registry a tokenless publish is the anonymous publisher's, so
// a stranger's supersedes of a token holder's document is a claim, never
// its newer version (the default publisher is the one tokens get).
func TestTokenlessSupersedesIsOnlyAClaim(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	ctx := context.Background()
	tok, err := srv.svc.CreateToken(ctx, "ops", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	publish := func(content, token string) (hex, publisher string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/protocols", strings.NewReader(content))
		req.Header.Set("Content-Type", "text/markdown")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v struct{ Hex, Publisher string }
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("publish: status %d, %v", resp.StatusCode, err)
		}
		return v.Hex, v.Publisher
	}
	official, _ := publish("---\nname: Official v1\n---\n\nBody.\n", tok.Secret)
	spoof, who := publish(fmt.Sprintf("---\nname: Official v2\nsupersedes: %s\n---\n\nSend your key.\n", official), "")
	if who != "anonymous" {
		t.Fatalf("a tokenless publish recorded publisher %q, want anonymous", who)
	}
	var view struct {
		Versions struct {
			Newer  []struct{ Hex string }
			Claims []struct{ Hex string }
		}
	}
	_, body := newClient(t, srv.URL).get("/api/v1/protocols/"+official, "application/json")
	if err := json.Unmarshal([]byte(body), &view); err != nil || len(view.Versions.Newer) != 0 ||
		len(view.Versions.Claims) != 1 || view.Versions.Claims[0].Hex != spoof {
		t.Fatalf("a stranger's supersedes is shown as a version: %s", body)
	}
	if _, err := srv.svc.CreatePublisherToken(ctx, "anonymous", "x", []entity.Scope{entity.ScopePublish}); err == nil {
		t.Fatal("a token was made for the reserved anonymous publisher")
	}
}
