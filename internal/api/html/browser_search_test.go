package html_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agora-registry/registry/internal/registry"
)

// TestBrowserSearchFacetsAndPages walks the browse page as a user does:
// the tags offered to narrow a tag's results are those among its results
// (never one that leads to nothing), the count is shown, Previous goes
// back page by page to exactly the pages Next went through, matched words
// are marked, and a misspelt search offers the indexed spelling.
func TestBrowserSearchFacetsAndPages(t *testing.T) {
	ctx, _ := newBrowser(t)
	srv := startServer(t, serverOptions{})
	publish := func(title, desc string, tags ...string) {
		doc := fmt.Sprintf("---\nname: %s\ndescription: %s\ntags: [%s]\n---\n\nBody.\n", title, desc, strings.Join(tags, ", "))
		if _, err := srv.svc.PublishRequest(context.Background(), registry.PublishRequest{Content: []byte(doc)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 45 {
		tags := []string{"weather"}
		if i%3 == 0 {
			tags = append(tags, "api")
		}
		publish(fmt.Sprintf("Weather station %02d", i), "Readings from a <b>station</b> & more", tags...)
	}
	for i := range 11 {
		publish(fmt.Sprintf("Booking desk %02d", i), "Reservations", "booking")
	}

	titles := func(what string) []string {
		return run(t, ctx, what, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll("ol.entries li.entry h3 a")).map(a => a.textContent)`))
	}
	text := func(what, js string) string { return run(t, ctx, what, chromedp.Evaluate[string](js)) }
	follow := func(what, selector string) {
		t.Helper()
		_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(selector)))
		must(t, err, what)
	}

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/protocols?tag=weather")), "opening the weather tag")
	facets := run(t, ctx, "facets", chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("aside .tags a")).map(a => a.textContent.replace(/\s+/g, " ").trim())`))
	if !slices.Equal(facets, []string{"api 15"}) {
		t.Fatalf("narrowing weather offers %q, want only the tag among its results with its count there (api 15)", facets)
	}
	if got := text("count", `document.querySelector(".result-count").textContent`); got != "45 results" {
		t.Fatalf("result count %q, want 45 results", got)
	}
	if n := text("previous on page 1", `String(document.querySelectorAll('a[rel="prev"]').length)`); n != "0" {
		t.Fatal("the first page has a Previous link")
	}

	// Forward through the pages, then back with Previous.
	var pages [][]string
	for {
		pages = append(pages, titles(fmt.Sprintf("page %d", len(pages)+1)))
		if text("next link", `String(document.querySelectorAll('a[rel="next"]').length)`) == "0" {
			break
		}
		follow("next page", `a[rel="next"]`)
	}
	if len(pages) != 3 || len(pages[0]) != 20 || len(pages[2]) != 5 {
		t.Fatalf("pages of %v entries, want 20, 20, 5", len(pages))
	}
	for i := len(pages) - 2; i >= 0; i-- {
		follow("previous page", `a[rel="prev"]`)
		if got := titles("back"); !slices.Equal(got, pages[i]) {
			t.Fatalf("Previous to page %d shows %q, want %q", i+1, got, pages[i])
		}
	}
	if n := text("previous on page 1 again", `String(document.querySelectorAll('a[rel="prev"]').length)`); n != "0" {
		t.Fatal("back on the first page, a Previous link is still offered")
	}

	// A facet narrows to its results.
	follow("narrowing by api", "aside .tags a")
	if got := titles("api results"); len(got) != 15 {
		t.Fatalf("weather and api: %d results, want 15", len(got))
	}

	// Matched words are marked; the description's markup stays text.
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/protocols?q=stat")), "searching a prefix")
	marks := run(t, ctx, "marks", chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("ol.entries li.entry:first-child mark")).map(m => m.textContent)`))
	if !slices.Equal(marks, []string{"station", "station"}) {
		t.Fatalf("marked words %q, want the title's and the description's station", marks)
	}
	if got := text("snippet", `document.querySelector("ol.entries li.entry .desc").textContent`); got != "Readings from a <b>station</b> & more" {
		t.Fatalf("snippet %q", got)
	}

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/protocols?q=wether")), "searching a misspelling")
	if got := text("suggestion", `document.querySelector(".suggestion a").textContent`); got != "weather" {
		t.Fatalf("suggestion %q, want weather", got)
	}
	follow("following the suggestion", ".suggestion a")
	if got := titles("suggested results"); len(got) != 20 {
		t.Fatalf("the suggestion found %d results on its first page, want 20", len(got))
	}
}
