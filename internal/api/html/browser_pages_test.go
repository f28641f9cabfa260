package html_test

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// After Preview the preview has focus and is in view, the token is still
// in its field, and Enter in the token field publishes.
func TestBrowserPreviewFocusTokenKeptEnterPublishes(t *testing.T) {
	ctx, _ := newBrowser(t)
	srv := startServer(t, serverOptions{openPublish: false})
	tok, err := srv.svc.CreateToken(context.Background(), "browser", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/publish")), "opening /publish")
	must(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("content"), goodDoc)), "filling the text area")
	must(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("token"), tok.Secret)), "typing the token")
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`button[value="preview"]`)))
	must(t, err, "previewing")
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("section.preview"))), "waiting for the preview")
	focused := run(t, ctx, "focus", chromedp.Evaluate[string](`document.activeElement.id`))
	if focused != "preview" {
		t.Errorf("after Preview the focus is on %q, want the preview", focused)
	}
	inView := run(t, ctx, "scroll", chromedp.Evaluate[bool](
		`(r => r.top >= -1 && r.top < innerHeight / 2)(document.getElementById("preview").getBoundingClientRect())`))
	if !inView {
		t.Errorf("the preview was not scrolled into view")
	}
	if kept := run(t, ctx, "token", chromedp.Value(chromedp.ID("token"))); kept != tok.Secret {
		t.Fatalf("after Preview the token field holds %q", kept)
	}
	_, err = chromedp.RunResponse(ctx, chromedp.SendKeys(chromedp.ID("token"), kb.Enter))
	must(t, err, "pressing Enter in the token field")
	if alert := run(t, ctx, "alert", chromedp.Evaluate[string](`(document.querySelector(".alert") || {}).textContent || ""`)); !strings.HasPrefix(alert, "Published.") {
		t.Errorf("after Enter in the token field the page says %q, want Published.", alert)
	}
	sum := sha1.Sum([]byte(goodDoc))
	if loc := run(t, ctx, "location", chromedp.Location()); !strings.HasPrefix(loc, srv.URL+"/protocols/"+hex.EncodeToString(sum[:])) {
		t.Fatalf("Enter in the token field led to %s, want the published page", loc)
	}
}

// A copy button announces what it copied through a live region and keeps
// its width while its label says "Copied".
func TestBrowserCopyAnnouncesAndKeepsWidth(t *testing.T) {
	ctx, _ := newBrowser(t)
	srv := startServer(t, serverOptions{openPublish: true, examples: true})
	d := examplePage(t, srv)
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/protocols/"+d)), "opening the weather protocol")
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: srv.URL})
		must(t, err, "granting "+name)
	}
	for _, id := range []string{"hash-hex", "use-python"} {
		sel := `button.copy[data-copy="` + id + `"]`
		before := run(t, ctx, "width", chromedp.Evaluate[float64](`document.querySelector('`+sel+`').getBoundingClientRect().width`))
		must(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))), "clicking copy "+id)
		name := run(t, ctx, "name", chromedp.Evaluate[string](`document.querySelector('`+sel+`').getAttribute("aria-label")`))
		want := "Copied " + strings.TrimPrefix(name, "Copy ")
		// Wait (up to a second) for the announcement; report what there is.
		got := run(t, ctx, "announcement", chromedp.Evaluate[[]any](`new Promise(r => {
			const b = document.querySelector('`+sel+`'), s = document.getElementById("copy-status");
			const end = Date.now() + 1000;
			const check = () => (s.textContent === `+"`"+`${"`+want+`"}`+"`"+` || Date.now() > end) ?
				r([s.textContent, s.getAttribute("role"), b.textContent, b.getBoundingClientRect().width]) : setTimeout(check, 20);
			check();
		})`, chromedp.EvalAwaitPromise))
		if got[0] != want || got[1] != "status" || got[2] != "Copied" {
			t.Errorf("copy %s: live region %q (role %v), button %q; want %q in a status region and the label Copied", id, got[0], got[1], got[2], want)
		}
		if w := got[3].(float64); w != before {
			t.Errorf("copy %s: the button is %.1fpx wide while it says Copied, %.1fpx before", id, w, before)
		}
	}
}

// A hash pasted into the header's or the home page's search box opens its
// page, whichever spelling.
func TestBrowserHashPasteOpensTheProtocol(t *testing.T) {
	ctx, _ := newBrowser(t)
	srv := startServer(t, serverOptions{openPublish: true, examples: true})
	hexHash := examplePage(t, srv)
	raw, _ := hex.DecodeString(hexHash)
	b64 := base64.StdEncoding.EncodeToString(raw)
	for _, c := range []struct{ page, box, text string }{
		{"/", "home-q", b64},
		{"/tags", "site-q", strings.ToUpper(hexHash)},
		{"/protocols", "browse-q", url.QueryEscape(b64)},
		{"/", "site-q", hexHash[:12]},
	} {
		must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+c.page)), "opening "+c.page)
		must(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.ID(c.box), c.text)), "pasting")
		_, err := chromedp.RunResponse(ctx, chromedp.Submit(chromedp.ID(c.box)))
		must(t, err, "searching")
		must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("hash-hex"))), "waiting for the protocol page")
		if loc := run(t, ctx, "location", chromedp.Location()); loc != srv.URL+"/protocols/"+hexHash {
			t.Errorf("pasting %q into %s on %s led to %s", c.text, c.box, c.page, loc)
		}
	}
}

// On a phone-sized screen the identity card comes before the document,
// and the Agora request wraps instead of being clipped.
func TestBrowserNarrowProtocolPage(t *testing.T) {
	ctx, _ := newBrowser(t)
	srv := startServer(t, serverOptions{openPublish: true, examples: true})
	d := examplePage(t, srv)
	_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride,
		emulation.SetDeviceMetricsOverrideParams{Width: 390, Height: 844, DeviceScaleFactor: 2, Mobile: true})
	must(t, err, "emulating a phone")
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/protocols/"+d)), "opening the weather protocol")
	got := run(t, ctx, "layout", chromedp.Evaluate[map[string]bool](`(() => {
		const top = s => document.querySelector(s).getBoundingClientRect().top;
		const pre = document.getElementById("agora-request").parentElement;
		return {
			identityFirst: top(".doc-id") < top("article.doc"),
			requestWraps: pre.scrollWidth <= pre.clientWidth,
			pageFits: document.documentElement.scrollWidth <= innerWidth,
		};
	})()`))
	for _, k := range []string{"identityFirst", "requestWraps", "pageFits"} {
		if !got[k] {
			t.Errorf("narrow protocol page: %s is false", k)
		}
	}
}

// examplePage is the hex hash of the bundled Weather Protocol.
func examplePage(t *testing.T, srv *testServer) string {
	t.Helper()
	page, err := srv.svc.Search(context.Background(), store.Query{Text: "weather"})
	if err != nil || len(page.Entries) == 0 {
		t.Fatalf("the examples hold no weather protocol: %v", err)
	}
	return page.Entries[0].Digest.Hex()
}
