package storetest

import (
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/store"
)

// prefixTwin is a document whose SHA-1 shares its first 8 hex digits
// (fc7fb47e) with the other twin's: twins 61546 (…541c…) and 133413
// (…6c68…), found by a birthday search over n.
func prefixTwin(n string) string {
	return "---\nname: Prefix twin " + n + "\ndescription: Shares its first 8 hex digits with another.\n---\n"
}

// testByPrefix checks the prefix lookup: every entry whose hex digest
// starts with the prefix, in digest order, withdrawn ones flagged, at most
// the limit; nothing else.
func testByPrefix(t *testing.T, open Opener) {
	s := open(t)
	low := putText(t, s, prefixTwin("61546"))
	high := putText(t, s, prefixTwin("133413"))
	other := putText(t, s, simpleDoc("Prefix other", "o", nil, "O."))
	noErr(t, "Withdraw", s.Withdraw(ctx(t), high.Digest, "gone"))
	if !strings.HasPrefix(low.Digest.Hex(), "fc7fb47e5") || !strings.HasPrefix(high.Digest.Hex(), "fc7fb47e6") {
		t.Fatalf("the twins are %s and %s: they no longer share a prefix", low.Digest, high.Digest)
	}
	lookup := func(prefix string, limit int) []store.Resolution {
		t.Helper()
		p, err := store.ParseHashPrefix(prefix)
		noErr(t, "ParseHashPrefix "+prefix, err)
		res, err := s.ByPrefix(ctx(t), p, limit)
		noErr(t, "ByPrefix "+prefix, err)
		if res == nil {
			t.Fatalf("ByPrefix %s returned nil, want a slice", prefix)
		}
		return res
	}
	lowR := store.Resolution{Digest: low.Digest, Found: true, Title: "Prefix twin 61546"}
	highR := store.Resolution{Digest: high.Digest, Found: true, Title: "Prefix twin 133413", Withdrawn: true}

	sameResolutions(t, "shared prefix", lookup("fc7fb47e", store.MaxPrefixMatches), []store.Resolution{lowR, highR})
	sameResolutions(t, "shared prefix, upper case", lookup("FC7FB47E", 2), []store.Resolution{lowR, highR})
	sameResolutions(t, "shared prefix, limit 1", lookup("fc7fb47e", 1), []store.Resolution{lowR})
	sameResolutions(t, "odd-length prefix", lookup("fc7fb47e6", 5), []store.Resolution{highR})
	sameResolutions(t, "whole hash", lookup(low.Digest.Hex(), 5), []store.Resolution{lowR})
	sameResolutions(t, "other", lookup(other.Digest.Hex()[:12], 5),
		[]store.Resolution{{Digest: other.Digest, Found: true, Title: "Prefix other"}})
	sameResolutions(t, "no match", lookup("fc7fb47e7", 5), nil)

	p, _ := store.ParseHashPrefix("fc7fb47e")
	for _, limit := range []int{0, -1, store.MaxPrefixMatches + 1} {
		_, err := s.ByPrefix(ctx(t), p, limit)
		wantErr(t, "ByPrefix with a bad limit", err, store.ErrInvalid)
	}
}
