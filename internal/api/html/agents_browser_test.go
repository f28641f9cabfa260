package html_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The directory's pages in a real browser: /agents lists and searches the
// registered agents, an agent's page links what it speaks, and the
// protocol page says who speaks it and who refuses it.
func TestBrowserAgentPages(t *testing.T) {
	ctx, ev := newBrowser(t)
	srv := startServer(t, serverOptions{})
	res, err := srv.svc.Publish(context.Background(), []byte("# Weather Protocol\n\nAsk for the weather.\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	hex := res.Entry.Digest.Hex()
	elsewhere := strings.Repeat("ab", 20)
	agent := func(body string) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/.wellknown" {
				http.NotFound(w, r)
				return
			}
			io.WriteString(w, body)
		}))
		t.Cleanup(s.Close)
		return s.URL
	}
	for _, body := range []string{
		`{"` + hex + `": ["x"], "` + elsewhere + `": [], "_meta": {"name": "Weather <b>Bob</b>", "kinds": ["weather"]}}`,
		`{"` + elsewhere + `": [], "_unsupported": ["` + hex + `"], "_meta": {"name": "Picky Alice"}}`,
	} {
		if _, _, err := srv.dir.Register(context.Background(), agent(body)); err != nil {
			t.Fatal(err)
		}
	}

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/protocols/"+hex)), "protocol page")
	heading := run(t, ctx, "adoption heading", chromedp.Evaluate[string](`document.getElementById("adoption-h").textContent`))
	if heading != "Spoken by 1 agent" {
		t.Errorf("protocol page heading %q", heading)
	}
	speaking := run(t, ctx, "speaking", chromedp.Evaluate[string](`document.getElementById("speaking-agents").textContent`))
	refusing := run(t, ctx, "refusing", chromedp.Evaluate[string](`document.getElementById("refusing-agents").textContent`))
	if !strings.Contains(speaking, "Weather <b>Bob</b>") || !strings.Contains(refusing, "Picky Alice") {
		t.Errorf("speaking %q, refusing %q", speaking, refusing)
	}
	if n := run(t, ctx, "sparkline", chromedp.Evaluate[int](`document.querySelector("svg.sparkline polyline").points.length`)); n != 30 {
		t.Errorf("the sparkline has %d points, want 30", n)
	}

	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/agents")), "agents page")
	if n := run(t, ctx, "agents listed", chromedp.Evaluate[int](`document.querySelectorAll("#agent-list li.entry").length`)); n != 2 {
		t.Errorf("/agents lists %d agents, want 2", n)
	}
	must(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("agents-q"), "picky")), "typing a search")
	_, err = chromedp.RunResponse(ctx, chromedp.Submit(chromedp.ID("agents-q")))
	must(t, err, "searching agents")
	names := run(t, ctx, "search results", chromedp.Evaluate[string](`document.getElementById("agent-list").textContent`))
	if !strings.Contains(names, "Picky Alice") || strings.Contains(names, "Bob") {
		t.Errorf("searching for picky found %q", names)
	}
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("#agent-list a")))
	must(t, err, "opening the agent page")
	refuses := run(t, ctx, "refused link", chromedp.Evaluate[string](`document.querySelector("#agent-refuses a").getAttribute("href")`))
	if refuses != "/protocols/"+hex {
		t.Errorf("the agent page links the refused protocol to %q", refuses)
	}
	unknown := run(t, ctx, "unknown hash", chromedp.Evaluate[string](`document.getElementById("agent-speaks").textContent`))
	if !strings.Contains(unknown, elsewhere) || !strings.Contains(unknown, "not in this registry") {
		t.Errorf("a hash the registry lacks shows as %q", unknown)
	}
	if _, _, thrown := ev.snapshot(); len(thrown) > 0 {
		t.Errorf("exceptions: %q", thrown)
	}
}

// TestBrowserAgentDialects: an agent speaking only A2A and ARD is listed
// with its dialects and found by the dialect filter; its page shows the
// card's signature state, interfaces and skills (a stranger's markup as
// text) and the manifest's entries.
func TestBrowserAgentDialects(t *testing.T) {
	ctx, ev := newBrowser(t)
	srv := startServer(t, serverOptions{})
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/agent-card.json":
			io.WriteString(w, `{"name":"Route <i>Planner</i>","description":"plans routes","version":"1.2.0",
				"supportedInterfaces":[{"url":"https://a.test/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
				"skills":[{"id":"r","name":"Traffic <script>alert(1)</script>Router","description":"routes around traffic","tags":["maps"],"examples":["from A to B"]}]}`)
		case "/.well-known/ai-catalog.json":
			io.WriteString(w, `{"host":{"displayName":"Acme"},"entries":[{"identifier":"urn:air:a.test:agent:r","displayName":"Router Entry","type":"application/a2a-agent-card+json","url":"https://a.test/card.json"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(agent.Close)
	if _, _, err := srv.dir.Register(context.Background(), agent.URL); err != nil {
		t.Fatal(err)
	}
	must(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/agents")), "agents page")
	must(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.ID("agents-dialect"), "a2a")), "choosing a dialect")
	_, err := chromedp.RunResponse(ctx, chromedp.Submit(chromedp.ID("agents-q")))
	must(t, err, "filtering by dialect")
	listed := run(t, ctx, "listed", chromedp.Evaluate[string](`document.getElementById("agent-list").textContent`))
	if !strings.Contains(listed, "Route <i>Planner</i>") || !strings.Contains(listed, "A2A card, 1 skill (unsigned)") ||
		!strings.Contains(listed, "ARD manifest, 1 entry") || strings.Contains(listed, "speaks") {
		t.Errorf("the A2A agent is listed as %q", listed)
	}
	_, err = chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("#agent-list a")))
	must(t, err, "opening the agent page")
	dialects := run(t, ctx, "dialects", chromedp.Evaluate[string](`document.getElementById("agent-dialects").textContent`))
	signature := run(t, ctx, "signature", chromedp.Evaluate[string](`document.getElementById("card-signature").textContent`))
	skills := run(t, ctx, "skills", chromedp.Evaluate[string](`document.getElementById("agent-skills").textContent`))
	card := run(t, ctx, "card", chromedp.Evaluate[string](`document.getElementById("agent-a2a").textContent`))
	entries := run(t, ctx, "entries", chromedp.Evaluate[string](`document.getElementById("agent-ard-entries").textContent`))
	speaks := run(t, ctx, "no Agora section", chromedp.Evaluate[bool](`document.getElementById("agent-speaks") === null`))
	if !strings.Contains(dialects, "A2A") || !strings.Contains(dialects, "ARD") || strings.Contains(dialects, "Agora") ||
		signature != "unsigned" || !strings.Contains(skills, "Traffic <script>alert(1)</script>Router") ||
		!strings.Contains(skills, "from A to B") || !strings.Contains(card, "JSONRPC") || !strings.Contains(entries, "Router Entry") || !speaks {
		t.Errorf("agent page: dialects %q, signature %q, skills %q, card %q, entries %q, no Agora section %v",
			dialects, signature, skills, card, entries, speaks)
	}
	if _, _, thrown := ev.snapshot(); len(thrown) > 0 {
		t.Errorf("exceptions (a stranger's script ran?): %q", thrown)
	}
}
