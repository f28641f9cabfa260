package storetest

import (
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// testResolve checks the batch resolve contract: one answer per digest
// asked, in the order asked (duplicates answered each time), found with
// the title, the tombstone flag and the publisher, unknown digests not
// found, and the MaxResolve limit.
func testResolve(t *testing.T, open Opener) {
	s := open(t)
	nd := prepare(t, simpleDoc("Resolve A", "a", []string{"x"}, "A."))
	nd.Publisher = "acme"
	a := put(t, s, nd)
	b := putText(t, s, simpleDoc("Resolve B", "b", nil, "B."))
	intl := putText(t, s, simpleDoc("Résumé — 日本 \"quoted\"", "c", nil, "C."))
	untitled := putText(t, s, "no front matter, no heading, just text\n")
	noErr(t, "Withdraw", s.Withdraw(ctx(t), b.Digest, "gone"))
	unknown := protocol.Digest{9, 9, 9}

	ask := []protocol.Digest{unknown, a.Digest, b.Digest, a.Digest, unknown, intl.Digest, untitled.Digest}
	want := []store.Resolution{
		{Digest: unknown},
		{Digest: a.Digest, Found: true, Title: "Resolve A", Status: entity.StatusActive, Publisher: "acme"},
		{Digest: b.Digest, Found: true, Title: "Resolve B", Withdrawn: true, Status: entity.StatusWithdrawn, Publisher: entity.DefaultPublisher},
		{Digest: a.Digest, Found: true, Title: "Resolve A", Status: entity.StatusActive, Publisher: "acme"},
		{Digest: unknown},
		{Digest: intl.Digest, Found: true, Title: intl.Metadata.Title, Status: entity.StatusActive, Publisher: entity.DefaultPublisher},
		{Digest: untitled.Digest, Found: true, Title: untitled.Metadata.Title, Status: entity.StatusActive, Publisher: entity.DefaultPublisher},
	}
	res, err := s.Resolve(ctx(t), ask)
	noErr(t, "Resolve", err)
	sameResolutions(t, "Resolve", res, want)
	if intl.Metadata.Title != "Résumé — 日本 \"quoted\"" {
		t.Fatalf("stored title %q: the test document lost its title", intl.Metadata.Title)
	}

	res, err = s.Resolve(ctx(t), nil)
	noErr(t, "Resolve of nothing", err)
	if res == nil || len(res) != 0 {
		t.Fatalf("Resolve of nothing returned %v, want an empty slice", res)
	}

	// A full batch: misses everywhere, stored digests at both ends and in
	// the middle.
	many := make([]protocol.Digest, store.MaxResolve)
	for i := range many {
		many[i] = protocol.Digest{byte(i >> 8), byte(i), 0xaa}
	}
	many[0], many[store.MaxResolve/2], many[len(many)-1] = b.Digest, a.Digest, a.Digest
	res, err = s.Resolve(ctx(t), many)
	noErr(t, "Resolve of MaxResolve digests", err)
	if len(res) != store.MaxResolve {
		t.Fatalf("Resolve of MaxResolve digests gave %d answers", len(res))
	}
	for i, r := range res {
		stored := i == 0 || i == store.MaxResolve/2 || i == len(many)-1
		if r.Digest != many[i] || r.Found != stored {
			t.Fatalf("Resolve of MaxResolve digests, answer %d: %+v (digest asked %s, stored %v)", i, r, many[i], stored)
		}
	}
	if !res[0].Withdrawn || res[0].Title != "Resolve B" || res[len(res)-1].Withdrawn {
		t.Fatalf("Resolve of MaxResolve digests: first %+v, last %+v", res[0], res[len(res)-1])
	}

	// The same digest MaxResolve times is MaxResolve answers.
	same := make([]protocol.Digest, store.MaxResolve)
	for i := range same {
		same[i] = a.Digest
	}
	res, err = s.Resolve(ctx(t), same)
	noErr(t, "Resolve of one digest MaxResolve times", err)
	for i, r := range res {
		if r != (store.Resolution{Digest: a.Digest, Found: true, Title: "Resolve A", Status: entity.StatusActive, Publisher: "acme"}) {
			t.Fatalf("Resolve of one digest MaxResolve times, answer %d: %+v", i, r)
		}
	}
	if len(res) != store.MaxResolve {
		t.Fatalf("Resolve of one digest MaxResolve times gave %d answers", len(res))
	}

	_, err = s.Resolve(ctx(t), append(many, a.Digest))
	wantErr(t, "Resolve of more than MaxResolve digests", err, store.ErrInvalid)
}

// sameResolutions compares a batch's answers one by one.
func sameResolutions(t testing.TB, what string, got, want []store.Resolution) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d answers for %d digests", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: answer %d is %+v, want %+v", what, i, got[i], want[i])
		}
	}
}
