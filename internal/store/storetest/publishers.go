package storetest

import (
	"fmt"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// testPublishers: a document records the publisher that first published it
// (DefaultPublisher when none is named), every read returns it, a later Put
// of the same bytes under another publisher changes nothing, and a
// malformed name is refused by Put and PutMany alike.
func testPublishers(t *testing.T, open Opener) {
	s := open(t)
	unnamed := putText(t, s, simpleDoc("Unnamed", "no publisher given", nil, "Body."))
	if unnamed.Publisher != entity.DefaultPublisher {
		t.Fatalf("Put without a publisher recorded %q, want %q", unnamed.Publisher, entity.DefaultPublisher)
	}
	nd := prepare(t, simpleDoc("Acme v1", "published by acme", []string{"acme"}, "Body."))
	nd.Publisher = "acme"
	v1 := put(t, s, nd)
	if v1.Publisher != "acme" {
		t.Fatalf("Put recorded publisher %q, want acme", v1.Publisher)
	}
	nd.Publisher = "mallory"
	again, created, err := s.Put(ctx(t), nd)
	noErr(t, "Put of the same bytes by another publisher", err)
	if created || again.Publisher != "acme" {
		t.Fatalf("second Put: created %v, publisher %q; the first publisher must stay", created, again.Publisher)
	}

	succ := prepare(t, fmt.Sprintf("---\nname: Acme v2\ntags: [acme]\nsupersedes: %s\n---\n\nBody.\n", v1.Digest.Hex()))
	succ.Publisher = "acme"
	claim := prepare(t, fmt.Sprintf("---\nname: Not acme's v2\ntags: [acme]\nsupersedes: %s\n---\n\nBody.\n", v1.Digest.Hex()))
	claim.Publisher = "mallory"
	created2, err := s.PutMany(ctx(t), []store.NewDocument{succ, claim})
	noErr(t, "PutMany", err)
	if !created2[0] || !created2[1] {
		t.Fatalf("PutMany created %v", created2)
	}

	want := map[string]string{v1.Digest.Hex(): "acme", unnamed.Digest.Hex(): entity.DefaultPublisher,
		succ.Document.Sums.SHA1.Hex(): "acme", claim.Document.Sums.SHA1.Hex(): "mallory"}
	for _, d := range []protocol.Digest{v1.Digest, unnamed.Digest, succ.Document.Sums.SHA1, claim.Document.Sums.SHA1} {
		e, err := s.Get(ctx(t), d, false)
		noErr(t, "Get", err)
		if e.Publisher != want[d.Hex()] {
			t.Fatalf("Get(%s).Publisher = %q, want %q", d, e.Publisher, want[d.Hex()])
		}
	}
	page, err := s.Search(ctx(t), store.Query{Tags: []string{"acme"}})
	noErr(t, "Search", err)
	for _, e := range page.Entries {
		if e.Publisher != want[e.Digest.Hex()] {
			t.Fatalf("Search entry %s: publisher %q, want %q", e.Digest, e.Publisher, want[e.Digest.Hex()])
		}
	}
	successors, err := s.Successors(ctx(t), v1.Digest)
	noErr(t, "Successors", err)
	if len(successors) != 2 {
		t.Fatalf("Successors = %v", hexes(successors))
	}
	for _, e := range successors {
		if e.Publisher != want[e.Digest.Hex()] {
			t.Fatalf("successor %s: publisher %q, want %q", e.Digest, e.Publisher, want[e.Digest.Hex()])
		}
	}
	seen := 0
	noErr(t, "Each", s.Each(ctx(t), func(e entity.Entry) error {
		seen++
		if e.Publisher != want[e.Digest.Hex()] {
			return fmt.Errorf("entry %s from Each: publisher %q, want %q", e.Digest, e.Publisher, want[e.Digest.Hex()])
		}
		return nil
	}))
	if seen != len(want) {
		t.Fatalf("Each saw %d entries, want %d", seen, len(want))
	}

	bad := prepare(t, simpleDoc("Bad publisher", "refused", nil, "Body."))
	bad.Publisher = "Not A Name"
	_, _, err = s.Put(ctx(t), bad)
	wantErr(t, "Put with a malformed publisher", err, entity.ErrInvalidPublisher)
	_, err = s.PutMany(ctx(t), []store.NewDocument{bad})
	wantErr(t, "PutMany with a malformed publisher", err, entity.ErrInvalidPublisher)
}

// testSuccessorsOwnFirst: claims by another publisher, however many and
// however old, never crowd the publisher's own newer version out of the
// capped Successors list.
func testSuccessorsOwnFirst(t *testing.T, open Opener) {
	s := open(t)
	nd := prepare(t, simpleDoc("Owned v1", "the original", nil, "Body."))
	nd.Publisher = "acme"
	v1 := put(t, s, nd)
	claims := make([]store.NewDocument, store.MaxSuccessors)
	for i := range claims {
		claims[i] = prepare(t, fmt.Sprintf("---\nname: Claim %d\nsupersedes: %s\n---\n\nBody.\n", i, v1.Digest.Hex()))
		claims[i].Publisher = "mallory"
	}
	_, err := s.PutMany(ctx(t), claims)
	noErr(t, "PutMany of the claims", err)
	own := prepare(t, fmt.Sprintf("---\nname: Owned v2\nsupersedes: %s\n---\n\nBody.\n", v1.Digest.Hex()))
	own.Publisher = "acme"
	v2 := put(t, s, own)

	succ, err := s.Successors(ctx(t), v1.Digest)
	noErr(t, "Successors", err)
	if len(succ) != store.MaxSuccessors {
		t.Fatalf("Successors returned %d entries, want the cap %d", len(succ), store.MaxSuccessors)
	}
	if succ[0].Digest != v2.Digest {
		t.Fatalf("Successors[0] = %s (%q by %s), want the publisher's own v2 first", succ[0].Digest, succ[0].Metadata.Title, succ[0].Publisher)
	}
}
