package storetest

import (
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// testInactiveSet covers Inactive: every tombstone (withdrawn live or
// imported withdrawn) and every deprecated entry, saying which, and
// neither an active entry nor one made active again.
func testInactiveSet(t *testing.T, open Opener) {
	s := open(t)
	list := func() map[string]bool {
		got := map[string]bool{}
		noErr(t, "Inactive", s.Inactive(ctx(t), func(d protocol.Digest, withdrawn bool) error {
			if _, twice := got[d.Hex()]; twice {
				t.Errorf("Inactive listed %s twice", d.Hex())
			}
			got[d.Hex()] = withdrawn
			return nil
		}))
		return got
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("Inactive on an empty store = %v", got)
	}
	kept := putText(t, s, simpleDoc("Kept", "listed", nil, "Kept body."))
	live := putText(t, s, simpleDoc("Live", "withdrawn live", nil, "Live body."))
	noErr(t, "Withdraw", s.Withdraw(ctx(t), live.Digest, "spam"))
	tomb := prepare(t, simpleDoc("Tomb", "imported withdrawn", nil, "Tomb body."))
	when := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	tomb.WithdrawnAt = &when
	te := put(t, s, tomb)
	dep := putText(t, s, simpleDoc("Dep", "deprecated", nil, "Dep body."))
	_, err := s.SetStatus(ctx(t), dep.Digest, store.StatusChange{Status: entity.StatusDeprecated, Message: "old", Actor: "test"})
	noErr(t, "SetStatus deprecated", err)
	depGone := putText(t, s, simpleDoc("DepGone", "deprecated, then withdrawn", nil, "DepGone body."))
	_, err = s.SetStatus(ctx(t), depGone.Digest, store.StatusChange{Status: entity.StatusDeprecated, Actor: "test"})
	noErr(t, "SetStatus deprecated", err)
	noErr(t, "Withdraw", s.Withdraw(ctx(t), depGone.Digest, "spam"))
	back := putText(t, s, simpleDoc("Back", "deprecated, then active again", nil, "Back body."))
	_, err = s.SetStatus(ctx(t), back.Digest, store.StatusChange{Status: entity.StatusDeprecated, Actor: "test"})
	noErr(t, "SetStatus deprecated", err)
	_, err = s.SetStatus(ctx(t), back.Digest, store.StatusChange{Status: entity.StatusActive, Actor: "test"})
	noErr(t, "SetStatus active", err)

	want := map[string]bool{live.Digest.Hex(): true, te.Digest.Hex(): true, dep.Digest.Hex(): false, depGone.Digest.Hex(): true}
	if got := list(); !maps.Equal(got, want) {
		t.Fatalf("Inactive = %v, want %v (not the active %s nor the reactivated %s)", got, want, kept.Digest.Hex(), back.Digest.Hex())
	}
	stop := errors.New("stop")
	calls := 0
	err = s.Inactive(ctx(t), func(protocol.Digest, bool) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("Inactive with fn failing: err %v after %d calls, want fn's error after 1", err, calls)
	}
}
