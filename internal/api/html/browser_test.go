package html_test

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browserEvents records what a page did that a test must see: console
// calls, uncaught exceptions and dialogs (alert, confirm, prompt).
type browserEvents struct {
	mu       sync.Mutex
	console  []string
	dialogs  []string
	thrown   []string
	dialogCh chan struct{}
}

func (b *browserEvents) snapshot() (console, dialogs, thrown []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string{}, b.console...), append([]string{}, b.dialogs...), append([]string{}, b.thrown...)
}

// newBrowser starts headless Chromium with a fresh profile, or skips the
// test when there is none (unless REGISTRY_TEST_REQUIRE_BROWSER=1).
func newBrowser(t *testing.T) (context.Context, *browserEvents) {
	t.Helper()
	path := os.Getenv("REGISTRY_TEST_CHROMIUM")
	if path == "" {
		for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		if p, err := exec.LookPath("chromium"); err == nil {
			path = p
		}
	}
	if path == "" {
		if os.Getenv("REGISTRY_TEST_REQUIRE_BROWSER") == "1" {
			t.Fatal("REGISTRY_TEST_REQUIRE_BROWSER=1 but no Chromium was found (install the chromium package or set REGISTRY_TEST_CHROMIUM)")
		}
		t.Skip("SKIPPING BROWSER TEST: no Chromium at /usr/bin/chromium (apt-get install chromium, or set REGISTRY_TEST_REQUIRE_BROWSER=1 to make this fatal)")
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	// The overall bound keeps a wedged browser from hanging the test run;
	// nothing is asserted about time.
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })

	ev := &browserEvents{dialogCh: make(chan struct{}, 16)}
	if err := chromedp.Listen(ctx, func(e any) {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		switch e := e.(type) {
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value)+a.Description)
			}
			ev.console = append(ev.console, string(e.Type)+": "+strings.Join(parts, " "))
		case *runtime.EventExceptionThrown:
			ev.thrown = append(ev.thrown, e.ExceptionDetails.Text)
		case *page.EventJavascriptDialogOpening:
			ev.dialogs = append(ev.dialogs, string(e.Type)+": "+e.Message)
			select {
			case ev.dialogCh <- struct{}{}:
			default:
			}
		}
	}); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	// A dialog would block the page; dismiss any that opens so the test
	// reports it instead of hanging.
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-ev.dialogCh:
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}
		}
	}()
	if _, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	return ctx, ev
}

func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	must(t, err, what)
	return v
}

// screenshot saves a full-page PNG into $REGISTRY_SCREENSHOTS when set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("REGISTRY_SCREENSHOTS")
	if dir == "" {
		return
	}
	png := run(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	must(t, os.MkdirAll(dir, 0o755), "screenshot dir")
	must(t, os.WriteFile(filepath.Join(dir, name), png, 0o644), "writing screenshot")
}

// publishThroughForm fills the publish form, previews, then publishes, and
// returns once the protocol page has loaded.
func publishThroughForm(t *testing.T, ctx context.Context, base, doc, tags string) {
	t.Helper()
	must(t, chromedp.Do(ctx, chromedp.Navigate(base+"/publish")), "opening /publish")
	must(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("content"), doc)), "filling the text area")
	if tags != "" {
		must(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("tags"), tags)), "filling the tags")
	}
	_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`button[value="preview"]`)))
	must(t, err, "previewing")
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("section.preview"))), "waiting for the preview")
	kept := run(t, ctx, "reading the text area after preview", chromedp.Value(chromedp.ID("content")))
	if kept != doc {
		t.Fatalf("the preview lost the user's text:\n got %q\nwant %q", kept, doc)
	}
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`button[value="publish"]`)))
	must(t, err, "publishing")
	must(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("p.alert.success"))), "waiting for the published page")
}

const goodDoc = `---
name: Harbour Tide Tables
description: Exchange tide predictions for coastal harbours, one estuary at a time.
multiround: false
tags: [tides, maritime]
---

# Harbour Tide Tables

Ask an agent for the tides of a harbour on a date.

## Request

| field   | type   | meaning                 |
|---------|--------|-------------------------|
| harbour | string | the harbour's UN/LOCODE |
| date    | string | ISO 8601 date           |

## Response

` + "```json\n{\"high\": [\"06:12\", \"18:40\"], \"low\": [\"00:03\", \"12:25\"]}\n```\n"

func TestBrowserPublishFindReadAndCopy(t *testing.T) {
	ctx, ev := newBrowser(t)
	srv := startServer(t, serverOptions{openPublish: true, examples: true})

	sum := sha1.Sum([]byte(goodDoc))
	wantHex, wantB64 := hex.EncodeToString(sum[:]), base64.StdEncoding.EncodeToString(sum[:])
	wantSource := srv.URL + "/protocol/" + wantHex

	publishThroughForm(t, ctx, srv.URL, goodDoc, "")
	loc := run(t, ctx, "location", chromedp.Location())
	if !strings.HasPrefix(loc, srv.URL+"/protocols/"+wantHex) {
		t.Fatalf("after publishing the browser is at %s, want the page of %s", loc, wantHex)
	}

	// Find it from the home page by a word of its description only.
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")), "opening home")
	must(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("home-q"), "estuary")), "typing a search")
	_, err := chromedp.RunResponse(ctx, chromedp.Submit(chromedp.ID("home-q")))
	must(t, err, "searching")
	results := run(t, ctx, "reading results", chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("ol.entries li.entry h3 a")).map(a => a.textContent)`))
	if len(results) != 1 || results[0] != "Harbour Tide Tables" {
		t.Fatalf("searching for a word of the description found %q, want exactly the published document", results)
	}
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("ol.entries li.entry h3 a")))
	must(t, err, "opening the result")

	// The rendered document: headings and the table.
	// The page title is the one <h1>; the document's headings sit below
	// it, each with an id and a link to itself.
	headings := run(t, ctx, "headings", chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("h1, .markdown h2, .markdown h3")).map(h =>
			h.tagName + " " + h.firstChild.textContent + (h.id ? " #" + h.id : "") + (h.querySelector("a.anchor[href='#" + h.id + "']") ? " linked" : ""))`))
	if strings.Join(headings, "|") != "H1 Harbour Tide Tables|H2 Harbour Tide Tables #doc-harbour-tide-tables linked|H3 Request #doc-request linked|H3 Response #doc-response linked" {
		t.Errorf("headings = %q", headings)
	}
	cells := run(t, ctx, "table", chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll(".markdown table th, .markdown table td")).map(c => c.textContent)`))
	if len(cells) != 9 || cells[0] != "field" || cells[3] != "harbour" || cells[8] != "ISO 8601 date" {
		t.Errorf("rendered table cells = %q", cells)
	}
	codeClass := run(t, ctx, "code class", chromedp.Evaluate[string](`document.querySelector(".markdown pre code").className`))
	if codeClass != "language-json" {
		t.Errorf("fenced code class = %q, want language-json", codeClass)
	}

	// The copy targets hold exactly the values, and the buttons copy
	// exactly them: nothing around them, no whitespace.
	wantRequest := map[string]any{"protocolHash": wantB64, "protocolSources": []any{wantSource}}
	targets := map[string]string{"hash-hex": wantHex, "hash-b64": wantB64, "source-0": wantSource}
	for id, want := range targets {
		got := run(t, ctx, "copy target "+id, chromedp.Evaluate[string](`document.getElementById("`+id+`").textContent`))
		if got != want {
			t.Errorf("copy target %s holds %q, want %q", id, got, want)
		}
	}
	var req map[string]any
	reqText := run(t, ctx, "request", chromedp.Evaluate[string](`document.getElementById("agora-request").textContent`))
	must(t, json.Unmarshal([]byte(reqText), &req), "the Agora request is not JSON: "+reqText)
	if len(req) != 3 || req["protocolHash"] != wantRequest["protocolHash"] || !sameJSON(req["protocolSources"], wantRequest["protocolSources"]) {
		t.Errorf("Agora request = %s, want protocolHash %s, protocolSources [%s] and body", reqText, wantB64, wantSource)
	}
	if _, ok := req["body"].(string); !ok {
		t.Errorf("Agora request lacks a string body: %s", reqText)
	}
	targets["agora-request"] = reqText

	origin := srv.URL
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: origin})
		must(t, err, "granting "+name)
	}
	for id, want := range targets {
		must(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button.copy[data-copy="`+id+`"]`))), "clicking copy "+id)
		got := run(t, ctx, "reading the clipboard", chromedp.Evaluate[string](
			`new Promise(r => setTimeout(r, 50)).then(() => navigator.clipboard.readText())`, chromedp.EvalAwaitPromise))
		if got != want {
			t.Errorf("copy button %s put %q on the clipboard, want %q", id, got, want)
		}
	}

	// The raw link serves the exact bytes.
	// (The page itself may not fetch: its CSP allows no connections.)
	rawURL := run(t, ctx, "raw link", chromedp.Evaluate[string](`document.querySelector('a[download]').href`))
	if rawURL != wantSource {
		t.Errorf("the raw download link is %q, want %q", rawURL, wantSource)
	}
	resp, err := http.Get(rawURL)
	must(t, err, "fetching the raw link")
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(raw) != goodDoc {
		t.Errorf("the raw download link served %q", raw)
	}
	console, dialogs, thrown := ev.snapshot()
	if len(dialogs) > 0 || len(thrown) > 0 {
		t.Errorf("pages opened dialogs %q or threw %q", dialogs, thrown)
	}
	for _, c := range console {
		if strings.HasPrefix(c, "error") {
			t.Errorf("console error: %s", c)
		}
	}
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
