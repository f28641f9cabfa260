package html_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/api/openapi"
)

// TestAPIReferenceListsEveryOperation: /api shows each operation of the
// OpenAPI document, marks the ones that need a token, and every page's
// footer links to it.
func TestAPIReferenceListsEveryOperation(t *testing.T) {
	srv := startServer(t, serverOptions{examples: true})
	c := newClient(t, srv.URL)
	resp, body := c.get("/api", htmlAccept)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api: %d", resp.StatusCode)
	}
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document, &d); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, ops := range d.Paths {
		for method, raw := range ops {
			var op struct {
				Security []any `json:"security"`
			}
			if method == "parameters" || json.Unmarshal(raw, &op) != nil {
				continue
			}
			n++
			heading := "<code>" + strings.ToUpper(method) + " " + path + "</code>"
			i := strings.Index(body, heading)
			if i < 0 {
				t.Errorf("the reference lacks %s %s", method, path)
				continue
			}
			marked := strings.HasPrefix(body[i+len(heading):], ` <span class="badge">token</span>`)
			if marked != (len(op.Security) > 0) {
				t.Errorf("%s %s: token mark %v, security %v", method, path, marked, op.Security)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d operations in the document", n)
	}
	for _, page := range []string{"/", "/protocols", "/tags", "/api"} {
		if _, body := c.get(page, htmlAccept); !strings.Contains(body, `<a href="/api">API reference</a>`) {
			t.Errorf("%s: no footer link to the API reference", page)
		}
	}
}
