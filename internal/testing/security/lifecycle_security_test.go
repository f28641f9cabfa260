package security

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// publishAs publishes doc with token and returns its hex digest.
func publishAs(t *testing.T, s *Server, token, doc string) string {
	t.Helper()
	r := do(t, nil, "POST", s.URL+"/api/v1/protocols",
		map[string]string{"Authorization": "Bearer " + token, "Content-Type": "text/markdown"}, strings.NewReader(doc))
	if r.Status != 201 {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	var out struct{ Hex string }
	if err := json.Unmarshal([]byte(r.Body), &out); err != nil {
		t.Fatal(err)
	}
	return out.Hex
}

// lifecycleOf is everything a status request could change of a document:
// its status, message, replacement and history.
func lifecycleOf(t *testing.T, s *Server, hex string) string {
	t.Helper()
	d, err := protocol.ParseDigest(hex)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := s.Store.Get(ctx, d, false)
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Store.History(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %q %v %d events publisher=%s", e.Status(), e.Lifecycle.Message, e.Lifecycle.Replacement, len(h), e.Publisher)
}

// Publisher accounts and the lifecycle endpoints under attack: another
// publisher's token, no token, forged bodies and names, on both engines.
// Every request is a 4xx with its stable code, and neither document's
// lifecycle nor the store changes.
func TestLifecycleAndPublisherAttacks(t *testing.T) {
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) {
			s := Start(t, Options{Engine: engine, OpenPublish: true})
			ctx := context.Background()
			tokens := map[string]string{}
			for _, name := range []string{"alice", "mallory"} {
				if _, err := s.Svc.CreatePublisher(ctx, name, name); err != nil {
					t.Fatal(err)
				}
				tok, err := s.Svc.CreatePublisherToken(ctx, name, name+"-publish", []entity.Scope{entity.ScopePublish})
				if err != nil {
					t.Fatal(err)
				}
				tokens[name] = tok.Secret
			}
			alice := publishAs(t, s, tokens["alice"], "---\nname: alice's protocol\n---\nbody a")
			mallory := publishAs(t, s, tokens["mallory"], "---\nname: mallory's protocol\n---\nbody m")
			publishAs(t, s, tokens["alice"], "---\nname: alice's second\n---\nbody a2")
			status := func(hex string) string { return "/api/v1/protocols/" + hex + "/status" }
			unknown := strings.Repeat("ab", 20)
			rows := []struct {
				name, method, path, token, body string
				status                          int
				code                            string
			}{
				{"another publisher deprecates", "POST", status(alice), "mallory", `{"status":"deprecated","message":"use mine","replacement":"` + mallory + `"}`, 403, "not_your_document"},
				{"another publisher reactivates", "POST", status(alice), "mallory", `{"status":"active"}`, 403, "not_your_document"},
				{"no token on an open registry", "POST", status(alice), "", `{"status":"deprecated"}`, 401, "missing_token"},
				{"a forged token", "POST", status(alice), "agr_" + strings.Repeat("A", 43), `{"status":"deprecated"}`, 401, ""},
				{"withdrawal by the publisher", "POST", status(alice), "alice", `{"status":"withdrawn"}`, 400, "invalid_status"},
				{"an unknown status", "POST", status(alice), "alice", `{"status":"DEPRECATED"}`, 400, "invalid_status"},
				{"an unknown field", "POST", status(alice), "alice", `{"status":"deprecated","publisher":"mallory"}`, 400, ""},
				{"a replacement that is no hash", "POST", status(alice), "alice", `{"status":"deprecated","replacement":"../x"}`, 400, "malformed_hash"},
				{"an unknown replacement", "POST", status(alice), "alice", `{"status":"deprecated","replacement":"` + unknown + `"}`, 400, "unknown_replacement"},
				{"itself as replacement", "POST", status(alice), "alice", `{"status":"deprecated","replacement":"` + alice + `"}`, 400, "replacement_is_self"},
				{"active with a message", "POST", status(alice), "alice", `{"status":"active","message":"x"}`, 400, "invalid_status"},
				{"a message over the limit", "POST", status(alice), "alice", `{"status":"deprecated","message":"` + strings.Repeat("é", store.MaxStatusMessageRunes+1) + `"}`, 400, ""},
				{"a body over the limit", "POST", status(alice), "alice", `{"status":"deprecated","message":"` + strings.Repeat("x", 4<<20) + `"}`, 413, ""},
				{"an unknown document", "POST", status(unknown), "alice", `{"status":"deprecated"}`, 404, ""},
				{"POST to a read-only sub-resource", "POST", "/api/v1/protocols/" + alice + "/history", "alice", `{"status":"deprecated"}`, 405, "method_not_allowed"},
				{"POST to the document", "POST", "/api/v1/protocols/" + alice, "alice", `{"status":"deprecated"}`, 405, "method_not_allowed"},
				{"GET of the status", "GET", status(alice), "", "", 405, "method_not_allowed"},
				{"publishing as another publisher", "POST", "/api/v1/protocols?publisher=alice", "mallory", "---\nname: forged\n---\nforged", 403, "not_your_publisher"},
				{"publishing as a reserved publisher", "POST", "/api/v1/protocols?publisher=examples", "mallory", "---\nname: forged\n---\nforged", 403, "not_your_publisher"},
				{"tokenless publishing as a publisher", "POST", "/api/v1/protocols?publisher=alice", "", "---\nname: forged\n---\nforged", 403, "not_your_publisher"},
				{"republishing with new tags", "POST", "/api/v1/protocols", "mallory", `{"content":"---\nname: alice's protocol\n---\nbody a","tags":["spam"]}`, 409, "tags_not_added"},
				{"a NUL publisher filter", "GET", "/api/v1/protocols?publisher=" + url.QueryEscape("al\x00ice"), "", "", 400, "invalid_publisher"},
				{"a long publisher filter", "GET", "/api/v1/protocols?publisher=" + strings.Repeat("a", 10000), "", "", 400, "invalid_publisher"},
				{"a filter with search words", "GET", "/api/v1/protocols?publisher=alice&q=x", "", "", 400, "filter_not_combinable"},
				{"a forged catalog cursor", "GET", "/api/v1/protocols?publisher=alice&cursor=" + strings.Repeat("A", 300), "", "", 400, "invalid_cursor"},
				{"another query's cursor", "GET", "/api/v1/protocols?publisher=mallory&cursor=" + catalogCursor(t, s, "alice"), "", "", 400, "invalid_cursor"},
				{"a bad latest", "GET", "/api/v1/protocols?latest=yes", "", "", 400, "invalid_latest"},
				{"a traversal publisher", "GET", "/api/v1/publishers/..%2f..%2fadmin", "", "", 404, ""},
				{"an unknown publisher", "GET", "/api/v1/publishers/nobody", "", "", 404, ""},
				{"an unknown document's history", "GET", "/api/v1/protocols/" + unknown + "/history", "", "", 404, ""},
				{"an unknown document's versions", "GET", "/api/v1/protocols/" + unknown + "/versions", "", "", 404, ""},
			}
			before, beforeA, beforeM := s.Snapshot(t), lifecycleOf(t, s, alice), lifecycleOf(t, s, mallory)
			for _, row := range rows {
				hdr := map[string]string{"Accept": "application/json", "Content-Type": "application/json"}
				if strings.HasPrefix(row.body, "---") {
					hdr["Content-Type"] = "text/markdown"
				}
				switch tok, ok := tokens[row.token]; {
				case ok:
					hdr["Authorization"] = "Bearer " + tok
				case row.token != "":
					hdr["Authorization"] = "Bearer " + row.token
				}
				var r response
				if row.body != "" {
					r = do(t, nil, row.method, s.URL+row.path, hdr, strings.NewReader(row.body))
				} else {
					r = do(t, nil, row.method, s.URL+row.path, hdr, nil)
				}
				if r.Status != row.status {
					t.Errorf("%s: status %d, want %d: %.300s", row.name, r.Status, row.status, r.Body)
					continue
				}
				if code := r.problem(t); row.code != "" && code != row.code {
					t.Errorf("%s: code %q, want %q", row.name, code, row.code)
				}
			}
			if after := s.Snapshot(t); !after.Equal(before) {
				t.Errorf("the store changed:\nbefore %+v\nafter  %+v", before, after)
			}
			if a, m := lifecycleOf(t, s, alice), lifecycleOf(t, s, mallory); a != beforeA || m != beforeM {
				t.Errorf("a lifecycle changed: alice %s -> %s, mallory %s -> %s", beforeA, a, beforeM, m)
			}
			// The publisher itself, and an admin, may.
			for _, tok := range []string{tokens["alice"], s.AdminToken} {
				r := do(t, nil, "POST", s.URL+status(alice), map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"},
					strings.NewReader(`{"status":"deprecated","replacement":"`+mallory+`"}`))
				if r.Status != 200 {
					t.Fatalf("an allowed deprecation: %d %s", r.Status, r.Body)
				}
			}
		})
	}
}

// catalogCursor is a real next-page cursor of publisher's catalog.
func catalogCursor(t *testing.T, s *Server, publisher string) string {
	t.Helper()
	page, err := s.Svc.Catalog(context.Background(), store.CatalogQuery{Publisher: publisher, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if page.NextCursor == "" {
		t.Fatalf("%s has one page only", publisher)
	}
	return page.NextCursor
}

// Two deprecations naming each other, sent at once, cannot both pass the
// cycle check: at most one of the pair ends deprecated (both engines).
func TestConcurrentDeprecationsMakeNoCycle(t *testing.T) {
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) {
			s := Start(t, Options{Engine: engine})
			ctx := context.Background()
			if _, err := s.Svc.CreatePublisher(ctx, "alice", ""); err != nil {
				t.Fatal(err)
			}
			tok, err := s.Svc.CreatePublisherToken(ctx, "alice", "alice-publish", []entity.Scope{entity.ScopePublish})
			if err != nil {
				t.Fatal(err)
			}
			deprecate := func(d, by string) {
				do(t, nil, "POST", s.URL+"/api/v1/protocols/"+d+"/status", map[string]string{"Authorization": "Bearer " + tok.Secret, "Content-Type": "application/json"},
					strings.NewReader(`{"status":"deprecated","replacement":"`+by+`"}`))
			}
			for i := 0; i < 20; i++ {
				x := publishAs(t, s, tok.Secret, fmt.Sprintf("---\nname: x\n---\nx %d", i))
				y := publishAs(t, s, tok.Secret, fmt.Sprintf("---\nname: y\n---\ny %d", i))
				var wg sync.WaitGroup
				wg.Add(2)
				go func() { defer wg.Done(); deprecate(x, y) }()
				go func() { defer wg.Done(); deprecate(y, x) }()
				wg.Wait()
				if strings.HasPrefix(lifecycleOf(t, s, x), "deprecated") && strings.HasPrefix(lifecycleOf(t, s, y), "deprecated") {
					t.Fatalf("round %d: %s and %s replace each other", i, x, y)
				}
			}
		})
	}
}
