package html_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/render"
)

// hostileTable is issue 13's 6 KB table (1,000 columns by 1,000 rows):
// it made one page 10 MB of HTML and took seconds of CPU.
var hostileTable = "---\nname: Wide\ndescription: A hostile table.\n---\n" +
	strings.Repeat("|a", 1000) + "|\n" + strings.Repeat("|-", 1000) + "|\n" + strings.Repeat("|\n", 1000)

func TestHostileTablePageIsText(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	res, err := srv.svc.Publish(context.Background(), []byte(hostileTable), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv.URL)
	for range 2 { // the second view comes from the cache
		resp, body := c.get("/protocols/"+res.Entry.Digest.Hex(), htmlAccept)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if len(body) > 64<<10 || !strings.Contains(body, "<code>"+render.LintRenderBudget+"</code>") || !strings.Contains(body, "<pre><code>|a|a|a") {
			t.Fatalf("%d bytes, want the document as text with the %s lint:\n%.600s", len(body), render.LintRenderBudget, body)
		}
	}
}

func TestHostileTablePreviewIsText(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	c := newClient(t, srv.URL)
	resp, body := c.postForm(map[string]string{"content": hostileTable, "action": "preview", "csrf_token": c.csrfToken()})
	if resp.StatusCode != http.StatusOK || len(body) > 64<<10 || !strings.Contains(body, "<code>"+render.LintRenderBudget+"</code>") {
		t.Fatalf("status %d, %d bytes, want the preview as text with the %s lint", resp.StatusCode, len(body), render.LintRenderBudget)
	}
}

// heldRenderer holds its first rendering until released.
type heldRenderer struct {
	mu      sync.Mutex
	calls   int
	entered chan struct{}
	release chan struct{}
	free    func() // closes release, once
}

// newHeldRenderer's caller defers free, so a failed test does not leave
// its server blocked in Close.
func newHeldRenderer() *heldRenderer {
	h := &heldRenderer{entered: make(chan struct{}, 8), release: make(chan struct{})}
	h.free = sync.OnceFunc(func() { close(h.release) })
	return h
}

func (h *heldRenderer) render(doc []byte) (render.Rendered, error) {
	h.mu.Lock()
	h.calls++
	first := h.calls == 1
	h.mu.Unlock()
	h.entered <- struct{}{}
	if first {
		<-h.release
	}
	return render.Rendered{HTML: []byte("<p>rendered</p>")}, nil
}

// A second preview from a client whose first is still being prepared gets
// 429 with its text kept; another client's is not held up by it.
func TestOnePreviewPerClient(t *testing.T) {
	h := newHeldRenderer()
	defer h.free()
	srv := startServer(t, serverOptions{openPublish: true, documents: render.NewDocuments(render.DocumentsOptions{Slots: 4, Render: h.render})})
	c := newClient(t, srv.URL)
	csrf := c.csrfToken()
	first := make(chan int)
	go func() {
		resp, _ := c.postForm(map[string]string{"content": "# First\n", "action": "preview", "csrf_token": csrf})
		first <- resp.StatusCode
	}()
	<-h.entered
	resp, body := c.postForm(map[string]string{"content": "# Second\n", "action": "preview", "csrf_token": csrf})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" ||
		!strings.Contains(body, "still being prepared") || !strings.Contains(body, "# Second") {
		t.Fatalf("second concurrent preview: status %d, Retry-After %q:\n%.400s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	h.free()
	if status := <-first; status != http.StatusOK {
		t.Fatalf("first preview: %d", status)
	}
	if resp, _ := c.postForm(map[string]string{"content": "# Third\n", "action": "preview", "csrf_token": csrf}); resp.StatusCode != http.StatusOK {
		t.Fatalf("a preview after the first finished: %d", resp.StatusCode)
	}
}

// With every rendering slot held, raw documents and the JSON API still
// answer: rendering cannot take the server from them.
func TestRawFetchesDoNotWaitForRendering(t *testing.T) {
	h := newHeldRenderer()
	defer h.free()
	srv := startServer(t, serverOptions{openPublish: true, documents: render.NewDocuments(render.DocumentsOptions{Slots: 1, Render: h.render})})
	res, err := srv.svc.Publish(context.Background(), []byte("# Held\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	hex := res.Entry.Digest.Hex()
	c := newClient(t, srv.URL)
	page := make(chan int)
	go func() {
		resp, _ := c.get("/protocols/"+hex, htmlAccept)
		page <- resp.StatusCode
	}()
	<-h.entered
	for _, path := range []string{"/protocol/" + hex, "/api/v1/protocols/" + hex} {
		if resp, _ := c.get(path, "*/*"); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s with the rendering slot held: %d", path, resp.StatusCode)
		}
	}
	h.free()
	if status := <-page; status != http.StatusOK {
		t.Fatalf("page: %d", status)
	}
}

// Every way in refuses front matter over the limit with the same code:
// the JSON API, the paper demo's POST /, and the form (publish and preview).
func TestLargeFrontMatterIsRefusedEverywhere(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: true})
	doc := "---\nname: Big\ndescription: " + strings.Repeat("x", protocol.MaxFrontMatterBytes) + "\n---\n# Big\n"
	code := protocol.ErrFrontMatterTooLarge.Code
	c := newClient(t, srv.URL)
	problem := func(resp *http.Response, body string) string {
		var p struct{ Code string }
		_ = json.Unmarshal([]byte(body), &p)
		return p.Code
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/protocols", strings.NewReader(doc))
	req.Header.Set("Content-Type", "text/markdown")
	if resp, body := c.do(req); resp.StatusCode != http.StatusRequestEntityTooLarge || problem(resp, body) != code {
		t.Errorf("API publish: %d %.200s", resp.StatusCode, body)
	}
	demo, _ := json.Marshal(map[string]string{"name": "Big", "description": "d", "protocol": doc})
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(string(demo)))
	req.Header.Set("Content-Type", "application/json")
	if resp, body := c.do(req); resp.StatusCode != http.StatusRequestEntityTooLarge || problem(resp, body) != code {
		t.Errorf("demo publish: %d %.200s", resp.StatusCode, body)
	}
	csrf := c.csrfToken()
	for _, action := range []string{"publish", "preview"} {
		resp, body := c.postForm(map[string]string{"content": doc, "action": action, "csrf_token": csrf})
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "the front matter is") || !strings.Contains(body, "xxxxxxxx") {
			t.Errorf("form %s: %d %.300s", action, resp.StatusCode, body)
		}
	}
}

// BenchmarkHostileTablePublishAndView publishes a new variant of the 6 KB
// table through the service and reads its page (a first view, so it is
// rendered) over loopback: the per-document cost an attacker can cause.
//
//	go test -run '^$' -bench HostileTablePublishAndView -benchtime 20x ./internal/api/html
func BenchmarkHostileTablePublishAndView(b *testing.B) {
	srv := startServer(b, serverOptions{openPublish: true})
	c := &http.Client{}
	for i := 0; b.Loop(); i++ {
		res, err := srv.svc.Publish(context.Background(), fmt.Appendf([]byte(hostileTable), "\n%d\n", i), nil, "")
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/protocols/"+res.Entry.Digest.Hex(), nil)
		req.Header.Set("Accept", htmlAccept)
		resp, err := c.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatal(err, resp)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
