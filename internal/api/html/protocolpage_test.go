package html_test

import (
	"context"
	"html"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/entity"
)

// codeOf returns the text of the element with the id, unescaped.
func codeOf(t *testing.T, body, id string) string {
	t.Helper()
	m := regexp.MustCompile(`<code id="` + id + `">([^<]*)</code>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the page has no <code id=%q>", id)
	}
	return html.UnescapeString(m[1])
}

// Every protocol page describes itself to search engines and link
// previews, has one <h1>, and offers the Use it snippets, each with a
// copy button that says what it copies.
func TestProtocolPageMetaAndSnippets(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	doc := "---\nname: Tide \"Tables\"\ndescription: Tides <by> harbour.\nmultiround: true\n---\n# Tide Tables\n\n## Request\n"
	r, err := srv.svc.Publish(context.Background(), []byte(doc), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	hex, b64 := r.Entry.Digest.Hex(), r.Entry.Digest.Base64()
	raw, page := srv.URL+"/protocol/"+hex, srv.URL+"/protocols/"+hex
	c := newClient(t, srv.URL)
	resp, body := c.get("/protocols/"+hex, htmlAccept)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, want := range []string{
		`<meta name="description" content="Tides &lt;by&gt; harbour.">`,
		`<meta property="og:title" content="Tide &#34;Tables&#34;">`,
		`<meta property="og:description" content="Tides &lt;by&gt; harbour.">`,
		`<meta property="og:url" content="` + page + `">`,
		`<link rel="canonical" href="` + page + `">`,
		`aria-label="Copy the hex hash"`, `aria-label="Copy the Base64 hash"`, `aria-label="Copy source URL 1"`,
		`aria-label="Copy the Agora request"`, `aria-label="Copy the agent.yaml entry"`, `aria-label="Copy the registry get command"`,
		`aria-label="Copy the curl command"`, `aria-label="Copy the Python SDK snippet"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := strings.Count(body, "<h1"); n != 1 {
		t.Errorf("the page has %d <h1> elements, want 1", n)
	}
	if strings.Contains(body, "noindex") {
		t.Errorf("a listed protocol's page asks not to be indexed")
	}
	// The identity card comes before the document in the page's order
	// (narrow screens show it first).
	if strings.Index(body, `id="hash-hex"`) > strings.Index(body, `class="markdown"`) {
		t.Errorf("the identity card comes after the document")
	}

	if got, want := codeOf(t, body, "use-get"), "registry get --server "+srv.URL+" "+hex+" > "+hex+".md"; got != want {
		t.Errorf("registry get snippet %q, want %q", got, want)
	}
	if got, want := codeOf(t, body, "use-curl"), "curl -fsS "+raw+" -o "+hex+".md && sha1sum "+hex+".md"; got != want {
		t.Errorf("curl snippet %q, want %q", got, want)
	}
	py := codeOf(t, body, "use-python")
	for _, want := range []string{`protocol_hash="` + b64 + `"`, `protocol_sources=["` + raw + `"]`, "multiround=True", "conversation.close()",
		"from agora.sender.components.transporter import SimpleSenderTransporter"} {
		if !strings.Contains(py, want) {
			t.Errorf("Python snippet lacks %s:\n%s", want, py)
		}
	}
	if python, err := exec.LookPath("python3"); err == nil {
		cmd := exec.Command(python, "-c", "import ast, sys; ast.parse(sys.stdin.read())")
		cmd.Stdin = strings.NewReader(py)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("the Python snippet is not Python: %v\n%s\n%s", err, out, py)
		}
	}
	goSrc := codeOf(t, body, "use-go")
	for _, want := range []string{`hash := "` + hex + `"`, `ProtocolSources: []string{"` + raw + `"}`, "Multiround:      true"} {
		if !strings.Contains(goSrc, want) {
			t.Errorf("Go snippet lacks %s:\n%s", want, goSrc)
		}
	}
	buildGoSnippet(t, goSrc)
	// The agent.yaml entry is one the agent loads.
	cfgPath := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(cfgPath, []byte("registries: ["+srv.URL+"]\n"+codeOf(t, body, "use-agent")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := agent.LoadConfig(cfgPath)
	if err != nil {
		t.Fatalf("the agent.yaml snippet does not load: %v", err)
	}
	if len(cfg.Protocols) != 1 || cfg.Protocols[0].Hash != hex || strings.Join(cfg.Protocols[0].Sources, " ") != raw ||
		cfg.Protocols[0].Routine.Exec == nil {
		t.Errorf("the agent.yaml snippet loads as %+v", cfg.Protocols)
	}
}

// A withdrawn document's page is a 410 that says what it was, why it went
// and what replaces it.
func TestWithdrawnPageNamesReasonAndReplacement(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	ctx := context.Background()
	old, err := srv.svc.Publish(ctx, []byte("---\nname: Old Tides\ndescription: First try.\n---\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	newer, err := srv.svc.Publish(ctx, []byte("---\nname: New Tides\ndescription: Second try.\nsupersedes: "+old.Entry.Digest.Hex()+"\n---\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.svc.Withdraw(ctx, entity.Token{Name: "test"}, old.Entry.Digest, "wrong units <cm>"); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv.URL)
	resp, body := c.get("/protocols/"+old.Entry.Digest.Hex(), htmlAccept)
	for _, want := range []string{"Withdrawn: Old Tides", "wrong units &lt;cm&gt;", `href="/protocols/` + newer.Entry.Digest.Hex() + `">New Tides</a>`,
		`<meta name="robots" content="noindex">`, `<meta name="description" content="First try.">`} {
		if !strings.Contains(body, want) {
			t.Errorf("the withdrawn page lacks %s", want)
		}
	}
	if resp.StatusCode != http.StatusGone {
		t.Errorf("status %d, want 410", resp.StatusCode)
	}
	// Without a reason or a replacement it says so.
	if err := srv.svc.Withdraw(ctx, entity.Token{Name: "test"}, newer.Entry.Digest, ""); err != nil {
		t.Fatal(err)
	}
	_, body = c.get("/protocols/"+newer.Entry.Digest.Hex(), htmlAccept)
	if !strings.Contains(body, "No reason was given.") || !strings.Contains(body, "search for it") {
		t.Errorf("the withdrawn page without reason or replacement:\n%s", body)
	}
}

// buildGoSnippet builds a "Use it" Go snippet as a module of its own
// against this checkout's agora module, as a reader pasting it would.
func buildGoSnippet(t *testing.T, src string) {
	t.Helper()
	if testing.Short() {
		return
	}
	agoraDir, err := filepath.Abs("../../../agora")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, _ := os.ReadFile(filepath.Join(agoraDir, "go.sum"))
	files := map[string]string{
		"main.go": src,
		"go.sum":  string(sum),
		"go.mod": "module example.com/use\n\ngo 1.26\n\nrequire github.com/agora-registry/registry/agora v0.1.0\n\n" +
			"replace github.com/agora-registry/registry/agora => " + agoraDir + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the Go snippet does not build: %v\n%s\n%s", err, out, src)
	}
}

// The page lists the tasks the document says it serves, escaped, and the
// one-protocol JSON answer carries them too.
func TestProtocolPageShowsRepresentativeQueries(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	doc := "---\nname: Table Booking\ndescription: Seats.\nrepresentativeQueries: [book a table for <four>, get a spot at a bistro]\n---\n# Table Booking\n"
	r, err := srv.svc.Publish(context.Background(), []byte(doc), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv.URL)
	_, body := c.get("/protocols/"+r.Entry.Digest.Hex(), htmlAccept)
	for _, want := range []string{`Tasks it serves`, `<li>book a table for &lt;four&gt;</li>`, `<li>get a spot at a bistro</li>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	_, js := c.get("/api/v1/protocols/"+r.Entry.Digest.Hex(), "application/json")
	if !strings.Contains(js, `"representativeQueries":["book a table for <four>","get a spot at a bistro"]`) {
		t.Errorf("the JSON answer lacks the queries: %s", js)
	}
}
