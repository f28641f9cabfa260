package api

import (
	"context"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

const (
	deprecatedDocText = "# Deprecated here\n\nDeprecated through this service below.\n"
	elsewhereDocText  = "# Deprecated elsewhere\n\nDeprecated through another replica below.\n"
)

// rawDeprecation checks that a deprecated document answers with its
// Deprecation and successor Link headers from every source, also after
// its blob was written, whether it was deprecated through this service or
// another replica (the store directly, then the inactive set's reload);
// made active again it loses them and is answered from its blob again.
func rawDeprecation(t *testing.T, base string, svc *registry.Service, st store.Store, cfg registry.Config, source string, repl protocol.Digest) {
	t.Helper()
	ctx := context.Background()
	admin := entity.Token{ID: 1, Name: "ops", Scopes: []entity.Scope{entity.ScopeAdmin}}
	link := `<http://registry.test/protocol/` + repl.Hex() + `>; rel="successor-version"`
	publishRead := func(text string) protocol.Digest {
		t.Helper()
		pub, err := svc.Publish(ctx, []byte(text), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.RawDocument(ctx, pub.Entry.Digest); err != nil {
			t.Fatal(err)
		}
		svc.WaitBlobs()
		if source == "blob" && !cfg.Blobs.Has(pub.Entry.Digest) {
			t.Fatal("the first read did not write the blob")
		}
		return pub.Entry.Digest
	}
	expect := func(what string, x protocol.Digest, text string, deprecated bool) {
		t.Helper()
		reqs := []struct {
			method string
			hdr    map[string]string
			status int
			body   string
		}{
			{"GET", nil, 200, text}, {"GET", nil, 200, text}, {"GET", nil, 200, text}, // read, verified, promoted
			{"HEAD", nil, 200, ""},
			{"GET", map[string]string{"If-None-Match": `"` + x.Hex() + `"`}, 304, ""},
			{"GET", map[string]string{"Range": "bytes=2-5"}, 206, text[2:6]},
		}
		for _, u := range []string{"/protocol/" + x.Hex(), "/protocol?id=" + x.Hex()} {
			headersAgree(t, base, u, x)
			for _, rq := range reqs {
				res, body := do(t, rq.method, base+u, rq.hdr)
				if res.StatusCode != rq.status || string(body) != rq.body {
					t.Errorf("%s: %s %s %v: %d %q, want %d %q", what, rq.method, u, rq.hdr, res.StatusCode, body, rq.status, rq.body)
					continue
				}
				dep, l := res.Header.Get("Deprecation"), res.Header.Get("Link")
				switch {
				case deprecated && (!strings.HasPrefix(dep, "@") || len(dep) < 2 || l != link):
					t.Errorf("%s: %s %s %v: Deprecation %q, Link %q; want @<unix> and %q", what, rq.method, u, rq.hdr, dep, l, link)
				case !deprecated && (dep != "" || l != ""):
					t.Errorf("%s: %s %s %v: Deprecation %q, Link %q on an active document", what, rq.method, u, rq.hdr, dep, l)
				}
			}
		}
	}

	here := publishRead(deprecatedDocText)
	expect("active, blob written", here, deprecatedDocText, false)
	if _, err := svc.SetStatus(ctx, admin, here, registry.StatusRequest{Status: entity.StatusDeprecated,
		Message: "use the other", Replacement: &repl}); err != nil {
		t.Fatal(err)
	}
	expect("deprecated here", here, deprecatedDocText, true)

	if source == "blob" {
		// Another replica's deprecation: the store changes under this
		// service, whose reload of the inactive set (every CacheTTL; here
		// at once) keeps the blob from answering.
		there := publishRead(elsewhereDocText)
		expect("active elsewhere", there, elsewhereDocText, false)
		if _, err := st.SetStatus(ctx, there, store.StatusChange{Status: entity.StatusDeprecated, Replacement: &repl, Actor: "admin:other"}); err != nil {
			t.Fatal(err)
		}
		if err := svc.RefreshInactive(ctx); err != nil {
			t.Fatal(err)
		}
		expect("deprecated elsewhere", there, elsewhereDocText, true)
	}

	if _, err := svc.SetStatus(ctx, admin, here, registry.StatusRequest{Status: entity.StatusActive}); err != nil {
		t.Fatal(err)
	}
	expect("active again", here, deprecatedDocText, false)
	if source == "blob" && !cfg.Blobs.Has(here) {
		t.Error("a document made active again is not answered from its blob")
	}
}
