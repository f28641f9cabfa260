package security

import (
	"context"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	xhtml "golang.org/x/net/html"
)

// pageMetas lists every <meta> of page as "name-or-property=content", and
// every http-equiv.
func pageMetas(t *testing.T, page string) (metas map[string]string, equiv []string) {
	t.Helper()
	metas = map[string]string{}
	z := xhtml.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return metas, equiv
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			if tok.Data != "meta" {
				continue
			}
			var key, content string
			for _, a := range tok.Attr {
				switch a.Key {
				case "name", "property":
					key = a.Val
				case "content":
					content = a.Val
				case "http-equiv":
					equiv = append(equiv, a.Val)
				}
			}
			if key != "" {
				if _, dup := metas[key]; dup {
					t.Errorf("meta %s appears twice", key)
				}
				metas[key] = content
			}
		}
	}
}

// A document's title, description and a deprecation message cannot add
// or change a page's meta tags (OpenGraph link previews, refresh): they
// stay attribute text, and the page's own set of tags is all there is.
func TestMetaTagsCannotBeInjected(t *testing.T) {
	// The detector sees what it is for.
	if m, eq := pageMetas(t, `<meta http-equiv="refresh" content="0"><meta property="og:image" content="x">`); len(eq) != 1 || m["og:image"] != "x" {
		t.Fatalf("pageMetas misses injected tags: %v %v", m, eq)
	}
	s := Start(t, Options{})
	ctx := context.Background()
	if _, err := s.Svc.CreatePublisher(ctx, "alice", ""); err != nil {
		t.Fatal(err)
	}
	tok, err := s.Svc.CreatePublisherToken(ctx, "alice", "alice-publish", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	title := `x" property="og:image" content="https://evil.test/a.png`
	desc := `y"><meta http-equiv="refresh" content="0;url=https://evil.test/"><meta property="og:url" content="https://evil.test/`
	hex := publishAs(t, s, tok.Secret, "---\nname: '"+title+"'\ndescription: '"+desc+"'\n---\nbody")
	other := publishAs(t, s, tok.Secret, "---\nname: other\n---\nother")
	r := do(t, nil, "POST", s.URL+"/api/v1/protocols/"+hex+"/status", map[string]string{"Authorization": "Bearer " + tok.Secret, "Content-Type": "application/json"},
		strings.NewReader(`{"status":"deprecated","message":"<meta http-equiv=\"refresh\" content=\"0;url=https://evil.test/\">","replacement":"`+other+`"}`))
	if r.Status != 200 {
		t.Fatalf("deprecate: %d %s", r.Status, r.Body)
	}
	allowed := map[string]bool{"viewport": true, "color-scheme": true, "description": true, "robots": true,
		"og:type": true, "og:site_name": true, "og:title": true, "og:description": true, "og:url": true}
	for _, path := range []string{"/protocols/" + hex, "/protocols/" + hex[:8], "/publishers/alice", "/protocols?q=evil"} {
		page := do(t, browser(t), "GET", s.URL+path, map[string]string{"Accept": "text/html"}, nil)
		if page.Status >= 400 {
			t.Fatalf("%s: %d", path, page.Status)
		}
		metas, equiv := pageMetas(t, page.Body)
		if len(equiv) > 0 {
			t.Errorf("%s: http-equiv meta %v", path, equiv)
		}
		for k, v := range metas {
			if !allowed[k] {
				t.Errorf("%s: unexpected meta %s=%q", path, k, v)
			}
			if k == "og:url" && !strings.HasPrefix(v, s.URL+"/") {
				t.Errorf("%s: og:url %q", path, v)
			}
		}
		if path == "/protocols/"+hex && !strings.Contains(metas["og:title"], "og:image") {
			t.Errorf("the title is not the og:title's text: %q", metas["og:title"])
		}
	}
}
