package html_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestLLMsTxtLinksAnswer: /llms.txt is llmstxt.org Markdown naming this
// registry's URLs, and every link it gives answers here (none is a 404).
func TestLLMsTxtLinksAnswer(t *testing.T) {
	srv := startServer(t, serverOptions{examples: true, log: true})
	c := newClient(t, srv.URL)
	resp, body := c.get("/llms.txt", "*/*")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/markdown") ||
		!strings.HasPrefix(body, "# Agora Registry\n\n> ") {
		t.Fatalf("/llms.txt: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	links := regexp.MustCompile(`\]\((`+regexp.QuoteMeta(srv.URL)+`[^)]*)\)`).FindAllStringSubmatch(body, -1)
	if len(links) < 10 {
		t.Fatalf("only %d links to this registry", len(links))
	}
	for _, l := range links {
		u := strings.ReplaceAll(l[1], "{hash}", "19c14acadb5e31000f7864d9a2cc1e918bd20e0b") // Weather Protocol v1, an example
		if strings.HasSuffix(u, "/mcp") {
			continue // served with --mcp (on by default), not by this test server
		}
		if resp, _ := c.get(strings.TrimPrefix(u, srv.URL), "*/*"); resp.StatusCode == http.StatusNotFound {
			t.Errorf("%s: 404", u)
		}
	}
}
