package html_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// hostileDoc tries every way we know to get script into a page: raw HTML,
// event handlers, script URLs in links and images, data: URLs, SVG, and
// HTML in every front matter field. Each payload would set window.__pwned,
// change the title, log to the console or open a dialog.
const hostileDoc = `---
name: "<script>window.__pwned='title'</script><img src=x onerror=\"window.__pwned='title-img'\">Evil Protocol"
description: "<svg onload=\"window.__pwned='desc'\"></svg><b onmouseover=alert(1)>bold</b> quarantine"
tags: ["<script>alert(1)</script>", "x\" onclick=\"alert(1)", hostile]
version: "<img src=x onerror=alert('version')>"
license: "<a href=javascript:alert(1)>MIT</a>"
---

# Evil Protocol

<script>window.__pwned = 'script'; document.title = 'pwned'; console.log('pwned');</script>

<img src="x" onerror="window.__pwned='img'; alert('img')">

<svg onload="window.__pwned='svg'"><circle r="10"/></svg>

<iframe src="javascript:alert('iframe')"></iframe>

<a href="javascript:window.__pwned='a'">raw link</a>

[markdown link](javascript:window.__pwned='md')
[encoded](&#106;avascript:alert(1))
[vb](vbscript:msgbox(1))
[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)
![data image](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)
![js image](javascript:alert(1))
<javascript:alert(1)>

<details open ontoggle="window.__pwned='details'"><summary>x</summary></details>

<form action="https://evil.example/"><button formaction="javascript:alert(1)">go</button></form>

` + "```\"><script>window.__pwned='fence'</script>\ncode\n```\n"

// domAudit lists what must never be in a page built from user content:
// inline handlers, script-ish URLs, scripts other than ours, frames and
// plugins, and forms that post anywhere but here.
const domAudit = `(() => {
  const bad = [];
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      const v = a.value.replace(/[\u0000-\u0020\u007f]/g, "").toLowerCase();
      if (name.startsWith("on")) bad.push(el.tagName + " " + name);
      if (["href", "src", "action", "formaction", "xlink:href", "srcset", "poster", "data"].includes(name) &&
          /^(javascript|vbscript|data):/.test(v)) bad.push(el.tagName + " " + name + "=" + a.value);
    }
  }
  for (const s of document.scripts) {
    if (!/^\/static\/app\.js\?v=[0-9a-f]+$/.test(s.getAttribute("src") || "")) bad.push("script " + s.outerHTML.slice(0, 80));
  }
  for (const el of document.querySelectorAll("iframe, object, embed, svg:not(.keep), math, base, meta[http-equiv]")) bad.push(el.tagName);
  for (const f of document.forms) {
    const action = f.getAttribute("action") || "";
    if (!action.startsWith("/")) bad.push("form action " + action);
  }
  return bad;
})()`

func TestBrowserHostileDocumentRunsNothing(t *testing.T) {
	ctx, ev := newBrowser(t)
	srv := startServer(t, serverOptions{openPublish: true})

	// Publishing goes through the preview, which renders the document too.
	publishThroughForm(t, ctx, srv.URL, hostileDoc, "<b>extra</b>, \"quoted\"")
	protocolURL := run(t, ctx, "location", chromedp.Location())

	check := func(where string) {
		t.Helper()
		pwned := run(t, ctx, "reading window.__pwned", chromedp.Evaluate[string](`String(window.__pwned)`))
		if pwned != "undefined" {
			t.Errorf("%s: a payload ran: window.__pwned = %q", where, pwned)
		}
		title := run(t, ctx, "title", chromedp.Title())
		if title == "pwned" || !strings.HasSuffix(title, "Agora Registry") {
			t.Errorf("%s: the title was changed to %q", where, title)
		}
		bad := run(t, ctx, "auditing the DOM", chromedp.Evaluate[[]string](domAudit))
		if len(bad) > 0 {
			t.Errorf("%s: dangerous markup survived: %q", where, bad)
		}
	}
	check("protocol page")
	// The hostile front matter is shown as text, not dropped or run.
	h1 := run(t, ctx, "heading", chromedp.Evaluate[string](`document.querySelector(".doc-head h1").textContent`))
	if !strings.Contains(h1, "<script>") || !strings.Contains(h1, "Evil Protocol") {
		t.Errorf("the title should be shown as literal text, got %q", h1)
	}

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")), "home")
	check("home page")
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/protocols?q=quarantine")), "search")
	n := run(t, ctx, "results", chromedp.Evaluate[int](`document.querySelectorAll("li.entry").length`))
	if n != 1 {
		t.Errorf("searching for the hostile document's description found %d entries", n)
	}
	check("search page")
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/tags")), "tags")
	check("tags page")
	must(t, chromedp.Do(ctx, chromedp.Navigate(protocolURL)), "protocol again")
	// Following the document's links must not run anything either.
	must(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](
		`document.querySelectorAll(".markdown a").forEach(a => { a.removeAttribute("target"); if (!a.href.startsWith("http")) a.click(); })`)), "clicking links")
	check("protocol page after clicking its links")

	// The audit must see what it looks for, or passing proves nothing.
	planted := run(t, ctx, "planting markup", chromedp.Evaluate[[]string](
		`(() => { const a = document.createElement("a"); a.setAttribute("onclick", "x"); a.setAttribute("href", " JaVa\tscript:x"); document.body.append(a); return `+domAudit+`; })()`))
	if len(planted) != 2 {
		t.Errorf("the DOM audit missed planted markup: %q", planted)
	}

	console, dialogs, thrown := ev.snapshot()
	if len(dialogs) > 0 {
		t.Errorf("dialogs opened: %q", dialogs)
	}
	for _, c := range console {
		if strings.Contains(c, "pwned") {
			t.Errorf("a payload logged to the console: %s", c)
		}
	}
	for _, e := range thrown {
		t.Errorf("uncaught exception: %s", e)
	}
}
