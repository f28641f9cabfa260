package registry

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

func publishAs(t *testing.T, svc *Service, publisher, content string) entity.Entry {
	t.Helper()
	r, err := svc.PublishRequest(context.Background(), PublishRequest{Content: []byte(content), Publisher: publisher})
	if err != nil {
		t.Fatal(err)
	}
	return r.Entry
}

// TestSupersedesMakesAVersionOnlyWithinAPublisher is the hijack of issue
// 13.7: a token holder publishes `supersedes: <the official example>`. The
// example's page must not call it the newer version, only a claim by
// another publisher, while the publisher's own successor is its newer
// version.
func TestSupersedesMakesAVersionOnlyWithinAPublisher(t *testing.T) {
	svc := newService(t, Config{})
	ctx := context.Background()
	fsys := fstest.MapFS{"protocols/weather.md": {Data: []byte("---\nname: Weather Protocol\ndescription: the official one\n---\n\nBody.\n")}}
	if _, err := svc.SeedExamples(ctx, fsys, "protocols"); err != nil {
		t.Fatal(err)
	}
	page, err := svc.Search(ctx, store.Query{})
	if err != nil || len(page.Entries) != 1 {
		t.Fatalf("seeded: %v %v", page.Entries, err)
	}
	official := page.Entries[0]
	if official.Publisher != ExamplesPublisher {
		t.Fatalf("the seeded example's publisher is %q, want %q", official.Publisher, ExamplesPublisher)
	}
	attack := publishAs(t, svc, "", fmt.Sprintf("---\nname: Weather Protocol v2 (totally official)\nsupersedes: %s\n---\n\nSend your API key.\n", official.Digest.Hex()))

	v, err := svc.Versions(ctx, official)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Newer) != 0 || len(v.Claims) != 1 || v.Claims[0].Digest != attack.Digest {
		t.Fatalf("official page: newer %d, claims %d; want the attack as a claim only", len(v.Newer), len(v.Claims))
	}
	av, err := svc.Versions(ctx, attack)
	if err != nil {
		t.Fatal(err)
	}
	if av.OlderEntry == nil || av.OlderEntry.Digest != official.Digest || !av.OlderByAnother {
		t.Fatalf("the attack's page: older %+v, by another %v", av.OlderEntry, av.OlderByAnother)
	}

	v1 := publishAs(t, svc, "acme", "---\nname: Acme v1\n---\n\nBody.\n")
	v2 := publishAs(t, svc, "acme", fmt.Sprintf("---\nname: Acme v2\nsupersedes: %s\n---\n\nBody.\n", v1.Digest.Hex()))
	claim := publishAs(t, svc, "mallory", fmt.Sprintf("---\nname: Acme v3\nsupersedes: %s\n---\n\nBody.\n", v1.Digest.Hex()))
	v, err = svc.Versions(ctx, v1)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Newer) != 1 || v.Newer[0].Digest != v2.Digest || len(v.Claims) != 1 || v.Claims[0].Digest != claim.Digest {
		t.Fatalf("acme v1: newer %v, claims %v", v.Newer, v.Claims)
	}
	if v, _ := svc.Versions(ctx, v2); v.OlderByAnother || v.OlderEntry == nil {
		t.Fatalf("acme v2's older version: %+v by another %v", v.OlderEntry, v.OlderByAnother)
	}
}

func TestReservedPublishersGetNoTokens(t *testing.T) {
	svc := newService(t, Config{})
	for _, name := range []string{ExamplesPublisher, MirrorPublisher, AnonymousPublisher} {
		if _, err := svc.CreatePublisher(context.Background(), name, ""); !errors.Is(err, ErrReservedPublisher) {
			t.Errorf("account %q: %v, want reserved_publisher", name, err)
		}
		if _, err := svc.CreatePublisherToken(context.Background(), name, "t", []entity.Scope{entity.ScopePublish}); !errors.Is(err, ErrReservedPublisher) {
			t.Errorf("token for %q: %v, want reserved_publisher", name, err)
		}
	}
	if _, err := svc.CreatePublisherToken(context.Background(), "Bad Name", "t", []entity.Scope{entity.ScopePublish}); apperr.As(err) == nil || apperr.As(err).Code != "invalid_publisher" {
		t.Errorf("malformed name: %v", err)
	}
	if _, err := svc.CreatePublisherToken(context.Background(), "acme", "t", []entity.Scope{entity.ScopePublish}); !errors.Is(err, store.ErrPublisherUnknown) {
		t.Fatalf("token for a publisher without an account: %v, want unknown_publisher", err)
	}
	if _, err := svc.CreatePublisher(context.Background(), "acme", "Acme"); err != nil {
		t.Fatal(err)
	}
	nt, err := svc.CreatePublisherToken(context.Background(), "acme", "t", []entity.Scope{entity.ScopePublish})
	if err != nil || nt.Token.Publisher != "acme" {
		t.Fatalf("acme token: %+v %v", nt.Token, err)
	}
	tok, err := svc.Authenticate(context.Background(), nt.Secret)
	if err != nil || tok.Publisher != "acme" {
		t.Fatalf("authenticated token: %+v %v", tok, err)
	}
}

func TestPrepareDocumentChecksOrigin(t *testing.T) {
	for _, origin := range []string{"", OriginImport, OriginExample, "https://upstream.example.org/reg"} {
		if _, err := PrepareDocument(PublishRequest{Content: []byte("# A\n"), Origin: origin}, 0); err != nil {
			t.Errorf("origin %q refused: %v", origin, err)
		}
	}
	for _, origin := range []string{"bundled", "javascript:alert(1)", "https://user:pw@x.example", "https://x.example/\x1b[31m", "ftp://x.example"} {
		if _, err := PrepareDocument(PublishRequest{Content: []byte("# A\n"), Origin: origin}, 0); !errors.Is(err, ErrInvalidOrigin) {
			t.Errorf("origin %q: %v, want invalid_origin", origin, err)
		}
	}
}
