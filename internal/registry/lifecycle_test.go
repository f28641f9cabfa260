package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// TestReplacementChainIsBounded: naming a replacement whose own
// replacements run longer than MaxReplacementChain is refused after that
// many reads, and a chain within the bound is accepted.
func TestReplacementChainIsBounded(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, Config{})
	admin := entity.Token{ID: 1, Name: "ops", Scopes: []entity.Scope{entity.ScopeAdmin}}
	var chain []protocol.Digest
	for i := 0; i < MaxReplacementChain+3; i++ {
		r, err := svc.Publish(ctx, []byte(fmt.Sprintf("# Doc %d\n", i)), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		chain = append(chain, r.Entry.Digest)
	}
	// chain[i] is deprecated for chain[i+1], newest last.
	for i := len(chain) - 2; i >= 1; i-- {
		if _, err := svc.SetStatus(ctx, admin, chain[i], StatusRequest{Status: entity.StatusDeprecated, Replacement: &chain[i+1]}); err != nil {
			t.Fatalf("deprecating doc %d: %v", i, err)
		}
	}
	_, err := svc.SetStatus(ctx, admin, chain[0], StatusRequest{Status: entity.StatusDeprecated, Replacement: &chain[1]})
	if !errors.Is(err, ErrReplacementChain) {
		t.Fatalf("a replacement with %d replacements after it: %v, want replacement_chain_too_long", len(chain)-2, err)
	}
	if _, err := svc.SetStatus(ctx, admin, chain[0], StatusRequest{Status: entity.StatusDeprecated, Replacement: &chain[len(chain)-3]}); err != nil {
		t.Fatalf("a replacement within the bound: %v", err)
	}
}

// TestStatusChangeReachesCachedRaw: a raw document in the cache loses it
// when its status changes, so the next answer carries the Deprecation
// and Link headers' values.
func TestStatusChangeReachesCachedRaw(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, Config{PublicURL: "https://reg.example", CacheBytes: 1 << 20})
	old, _ := svc.Publish(ctx, []byte("# Old\n"), nil, "")
	repl, _ := svc.Publish(ctx, []byte("# New\n"), nil, "")
	if doc, err := svc.RawDocument(ctx, old.Entry.Digest); err != nil || doc.Deprecation != "" {
		t.Fatalf("raw of an active document: %+v %v", doc, err)
	}
	if _, ok := svc.CachedRaw(old.Entry.Digest); !ok {
		t.Fatal("the raw document was not cached")
	}
	tok := entity.Token{ID: 1, Name: "ci", Publisher: entity.DefaultPublisher, Scopes: []entity.Scope{entity.ScopePublish}}
	if _, err := svc.SetStatus(ctx, tok, old.Entry.Digest, StatusRequest{Status: entity.StatusDeprecated, Replacement: &repl.Entry.Digest}); err != nil {
		t.Fatal(err)
	}
	doc, err := svc.RawDocument(ctx, old.Entry.Digest)
	if err != nil || !strings.HasPrefix(doc.Deprecation, "@") ||
		doc.Link != "<https://reg.example/protocol/"+repl.Entry.Digest.Hex()+`>; rel="successor-version"` {
		t.Fatalf("raw after deprecation: %+v %v", doc, err)
	}
}

func TestCheckDomain(t *testing.T) {
	for _, ok := range []string{"example.org", "Acme.Example.", "127.0.0.1:8443", "xn--bcher-kva.example"} {
		if _, err := CheckDomain(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "exa mple.org", "-bad.example", "example.org/path", "user@example.org", "example.org:0", "example.org:99999", "a..b", "https://example.org"} {
		if _, err := CheckDomain(bad); !errors.Is(err, ErrBadDomain) {
			t.Errorf("%q: %v, want invalid_domain", bad, err)
		}
	}
}
