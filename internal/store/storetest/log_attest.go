package storetest

import (
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// testLogAttestations: every queued event carries the document's publisher
// as its account reads when the event is queued (display name, and the
// domain only once verified), and a deprecation the replacement its
// caller names; the engine reads these from its own rows, not the caller's.
func testLogAttestations(t *testing.T, open Opener) {
	s := open(t)
	(&refLog{}).drain(t, s, store.MaxLogBatch)
	_, err := s.CreatePublisher(ctx(t), entity.Publisher{Name: "attest-co", DisplayName: "Attest Co"})
	noErr(t, "CreatePublisher", err)
	nd := prepare(t, simpleDoc("Attested", "x", nil, "Body."))
	nd.Publisher = "attest-co"
	a := put(t, s, nd)
	noErr(t, "MarkVerified", s.MarkVerified(ctx(t), "attest-co", "attest.example", time.Now()))
	b := putText(t, s, simpleDoc("Attested replacement", "x", nil, "Body."))
	_, err = s.SetStatus(ctx(t), a.Digest, store.StatusChange{Status: entity.StatusDeprecated, Replacement: &b.Digest, Actor: "attest-co",
		Log: &store.LogEvent{Event: "deprecate", Status: "deprecated", Publisher: "mallory", ReplacedBy: b.Digest.Hex()}})
	noErr(t, "SetStatus", err)
	noErr(t, "Withdraw", s.Withdraw(ctx(t), a.Digest, "legal"))

	var got []store.LogEvent
	_, _, err = s.IntegrateLog(ctx(t), store.MaxLogBatch, func(_ store.LogHead, p []store.LogEvent, _ tlog.HashReader) (store.LogBatch, bool, error) {
		got = p
		return store.LogBatch{}, false, nil // look, write nothing
	})
	noErr(t, "IntegrateLog", err)
	type attest struct{ event, publisher, display, domain, replacedBy string }
	want := []attest{
		{"publish", "attest-co", "Attest Co", "", ""},
		{"publish", entity.DefaultPublisher, "Default publisher", "", ""},
		{"deprecate", "attest-co", "Attest Co", "attest.example", b.Digest.Hex()},
		{"withdraw", "attest-co", "Attest Co", "attest.example", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d queued events, want %d", len(got), len(want))
	}
	for i, w := range want {
		ev := got[i]
		if g := (attest{ev.Event, ev.Publisher, ev.PublisherDisplayName, ev.PublisherDomain, ev.ReplacedBy}); g != w {
			t.Errorf("queued event %d attests %+v, want %+v", i, g, w)
		}
	}
}
