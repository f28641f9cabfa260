package html_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserScreenshots walks what a new user sees on a fresh registry
// (the bundled examples only) and, with REGISTRY_SCREENSHOTS set, saves
// the README's screenshots:
//
//	REGISTRY_SCREENSHOTS=$PWD/docs/screenshots go test -run TestBrowserScreenshots ./internal/api/html
//
// The public URL is the README's, so the pages show the addresses a new
// user's do.
func TestBrowserScreenshots(t *testing.T) {
	ctx, _ := newBrowser(t)
	srv := startServer(t, serverOptions{examples: true, publicURL: "http://localhost:8080"})

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")), "opening home")
	recent := run(t, ctx, "recent", chromedp.Evaluate[int](`document.querySelectorAll("ol.entries li.entry").length`))
	if recent == 0 {
		t.Fatal("the home page of a fresh registry lists no example protocols")
	}
	screenshot(t, ctx, "home.png")

	must(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("home-q"), "weather")), "typing a search")
	_, err := chromedp.RunResponse(ctx, chromedp.Submit(chromedp.ID("home-q")))
	must(t, err, "searching")
	first := run(t, ctx, "results", chromedp.Evaluate[string](`(document.querySelector("ol.entries li.entry h3 a") || {}).textContent || ""`))
	if !strings.Contains(first, "Weather") {
		t.Fatalf("searching a fresh registry for weather first finds %q", first)
	}
	screenshot(t, ctx, "search.png")

	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("ol.entries li.entry h3 a")))
	must(t, err, "opening the result")
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("hash-hex"))), "waiting for the protocol page")
	screenshot(t, ctx, "protocol.png")
}
