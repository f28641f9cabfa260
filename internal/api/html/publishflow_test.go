package html_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
)

// The publish form never echoes the token, publishes a document
// with notes only with "publish anyway", and refuses extra tags for a
// document already stored instead of dropping them.
func TestPublishFlowConfirmsAndKeeps(t *testing.T) {
	srv := startServer(t, serverOptions{openPublish: false})
	tok, err := srv.svc.CreateToken(context.Background(), "web", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv.URL)
	csrf := c.csrfToken()
	docs := func() int {
		s, err := srv.svc.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return s.Documents
	}

	good := "---\nname: Flow\ndescription: A form's flow.\n---\n# Flow\n"
	resp, body := c.postForm(map[string]string{"content": good, "action": "preview", "csrf_token": csrf, "token": tok.Secret})
	// The browser keeps the token (TestBrowserPreviewFocusTokenKeptEnterPublishes);
	// the answer never holds it.
	if resp.StatusCode != 200 || strings.Contains(body, tok.Secret) {
		t.Errorf("preview: status %d; the answer holds the token", resp.StatusCode)
	}
	if !strings.Contains(body, `id="preview" tabindex="-1" aria-labelledby="preview-h" data-focus`) {
		t.Errorf("the preview is not marked to take focus")
	}

	broken := "# No front matter\n\nJust text.\n"
	resp, body = c.postForm(map[string]string{"content": broken, "action": "publish", "csrf_token": csrf, "token": tok.Secret})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Publish anyway") ||
		!strings.Contains(body, "no_front_matter") || !strings.Contains(body, `name="anyway" value="1" data-focus`) {
		t.Errorf("publishing a document with notes: status %d, want 422 with the notes and a publish-anyway box:\n%s", resp.StatusCode, body)
	}
	if n := docs(); n != 0 {
		t.Fatalf("a document with notes was published without confirmation (%d stored)", n)
	}
	resp, _ = c.postForm(map[string]string{"content": broken, "action": "publish", "anyway": "1", "csrf_token": csrf, "token": tok.Secret})
	if resp.StatusCode != http.StatusSeeOther || docs() != 1 {
		t.Fatalf("publish anyway: status %d, %d stored", resp.StatusCode, docs())
	}

	resp, _ = c.postForm(map[string]string{"content": good, "action": "publish", "csrf_token": csrf, "token": tok.Secret, "tags": "first"})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish: status %d", resp.StatusCode)
	}
	resp, body = c.postForm(map[string]string{"content": good, "action": "publish", "csrf_token": csrf, "token": tok.Secret, "tags": "first, second"})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "the tags second were not added") {
		t.Errorf("republish with a new tag: status %d, want 409 naming the tag:\n%s", resp.StatusCode, body)
	}
	resp, _ = c.postForm(map[string]string{"content": good, "action": "publish", "csrf_token": csrf, "token": tok.Secret, "tags": "first"})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("republish with the same tags: status %d, want the page of the existing entry", resp.StatusCode)
	}
}
