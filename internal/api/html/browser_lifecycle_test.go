package html_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
)

// TestBrowserDeprecationBannerAndVersionList: a deprecated document's page
// shows the message and a working link to its replacement, the version
// list marks the page's own entry and the latest version, and the
// publisher's listing marks the deprecated one.
func TestBrowserDeprecationBannerAndVersionList(t *testing.T) {
	ctx, _ := newBrowser(t)
	srv := startServer(t, serverOptions{})
	bg := context.Background()
	if _, err := srv.svc.CreatePublisher(bg, "acme", "Acme Corp."); err != nil {
		t.Fatal(err)
	}
	publish := func(content string) entity.Entry {
		t.Helper()
		res, err := srv.svc.PublishRequest(bg, registry.PublishRequest{Content: []byte(content), Publisher: "acme"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Entry
	}
	v1 := publish("---\nname: Tide Tables\nversion: 1\n---\n\n# Tide Tables\n\nv1.\n")
	v2 := publish(fmt.Sprintf("---\nname: Tide Tables v2\nversion: 2\nsupersedes: %s\n---\n\n# Tide Tables\n\nv2.\n", v1.Digest.Hex()))
	tok, err := srv.svc.CreatePublisherToken(bg, "acme", "ci", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.svc.SetStatus(bg, tok.Token, v1.Digest, registry.StatusRequest{Status: entity.StatusDeprecated,
		Message: "Harbour codes changed <b>not bold</b>; use v2.", Replacement: &v2.Digest}); err != nil {
		t.Fatal(err)
	}

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/protocols/"+v1.Digest.Hex())), "opening v1")
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("deprecation"))), "waiting for the banner")
	msg := run(t, ctx, "banner message", chromedp.Evaluate[string](`document.querySelector("#deprecation .deprecation-message").textContent`))
	if msg != "Harbour codes changed <b>not bold</b>; use v2." {
		t.Errorf("banner message = %q (the message must appear as text)", msg)
	}
	if n := run(t, ctx, "markup in the banner", chromedp.Evaluate[int](`document.querySelectorAll("#deprecation b").length`)); n != 0 {
		t.Errorf("the deprecation message became markup")
	}
	versions := run(t, ctx, "version list", chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("ol.lineage-list li")).map(li => (li.getAttribute("aria-current") || "-") + " " + li.textContent.replace(/\s+/g, " ").trim())`))
	if len(versions) != 2 || !strings.HasPrefix(versions[0], "page Tide Tables v1 deprecated") || !strings.Contains(versions[1], "Tide Tables v2 v2 latest") {
		t.Errorf("version list on v1's page = %q", versions)
	}
	screenshot(t, ctx, "deprecated.png")

	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("#deprecation a.replacement")))
	must(t, err, "following the replacement link")
	if loc := run(t, ctx, "location", chromedp.Location()); loc != srv.URL+"/protocols/"+v2.Digest.Hex() {
		t.Fatalf("the replacement link led to %s, want v2's page", loc)
	}
	if n := run(t, ctx, "banner on v2", chromedp.Evaluate[int](`document.querySelectorAll("#deprecation").length`)); n != 0 {
		t.Error("the active replacement shows a deprecation banner")
	}
	current := run(t, ctx, "current entry", chromedp.Evaluate[string](`document.querySelector("ol.lineage-list li[aria-current=page]").textContent.replace(/\s+/g, " ").trim()`))
	if !strings.HasPrefix(current, "Tide Tables v2 v2 latest") {
		t.Errorf("current entry on v2's page = %q", current)
	}
	publisher := run(t, ctx, "publisher link", chromedp.Evaluate[string](`document.querySelector("a[href='/publishers/acme']").textContent`))
	if publisher != "Acme Corp." {
		t.Errorf("publisher link = %q", publisher)
	}

	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("a[href='/publishers/acme']")))
	must(t, err, "opening the publisher page")
	marks := run(t, ctx, "listing marks", chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("ol.entries li.entry")).map(li => li.querySelector("h3").textContent + (li.querySelector(".badge.deprecated") ? " [deprecated]" : ""))`))
	if strings.Join(marks, "|") != "Tide Tables v2|Tide Tables [deprecated]" {
		t.Errorf("publisher listing = %q", marks)
	}

	// Search and tag listings show the same marks as the publisher page,
	// with the replacement linked and the publisher on every card.
	for _, page := range []string{"/protocols?q=tide", "/protocols?sort=name"} {
		must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+page)), "opening "+page)
		cards := run(t, ctx, "cards of "+page, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll("ol.entries li.entry")).map(li => li.querySelector("h3").textContent.trim() +
				" by " + (li.querySelector("a.publisher") ? li.querySelector("a.publisher").textContent : "?") +
				(li.querySelector(".badge.deprecated") ? " [deprecated]" : "") +
				(li.querySelector("a.replacement") ? " -> " + li.querySelector("a.replacement").getAttribute("href") : ""))`))
		want := map[string]bool{"Tide Tables v2 by acme": true, "Tide Tables by acme [deprecated] -> /protocols/" + v2.Digest.Hex(): true}
		if len(cards) != 2 || !want[cards[0]] || !want[cards[1]] {
			t.Errorf("%s cards = %q", page, cards)
		}
	}
}

// TestBrowserLogPage: the log page shows the checkpoint's size and the
// latest change, linked to its protocol page, in a real browser.
func TestBrowserLogPage(t *testing.T) {
	ctx, _ := newBrowser(t)
	srv := startServer(t, serverOptions{examples: true, log: true})
	if err := srv.log.Integrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/log")), "opening /log")
	size := run(t, ctx, "log size", chromedp.Evaluate[string](`document.querySelector("#log-size").textContent`))
	if size != "4" {
		t.Errorf("log size shown = %q, want the 4 examples", size)
	}
	first := run(t, ctx, "latest change", chromedp.Evaluate[string](`document.querySelector("ol.log-recent li a").getAttribute("href")`))
	if !strings.HasPrefix(first, "/protocols/") {
		t.Fatalf("latest change links to %q", first)
	}
	screenshot(t, ctx, "log.png")
	_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("ol.log-recent li a")))
	must(t, err, "following the latest change")
	if loc := run(t, ctx, "location", chromedp.Location()); loc != srv.URL+first {
		t.Errorf("the change led to %s, want %s", loc, srv.URL+first)
	}
}
