package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
)

// testWithdrawnSet covers Withdrawn: every tombstone, withdrawn live or
// imported withdrawn, and nothing listed.
func testWithdrawnSet(t *testing.T, open Opener) {
	s := open(t)
	list := func() []string {
		var got []string
		noErr(t, "Withdrawn", s.Withdrawn(ctx(t), func(d protocol.Digest) error {
			got = append(got, d.Hex())
			return nil
		}))
		slices.Sort(got)
		return got
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("Withdrawn on an empty store = %v", got)
	}
	kept := putText(t, s, simpleDoc("Kept", "listed", nil, "Kept body."))
	live := putText(t, s, simpleDoc("Live", "withdrawn live", nil, "Live body."))
	noErr(t, "Withdraw", s.Withdraw(ctx(t), live.Digest, "spam"))
	tomb := prepare(t, simpleDoc("Tomb", "imported withdrawn", nil, "Tomb body."))
	when := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	tomb.WithdrawnAt = &when
	te := put(t, s, tomb)

	want := []string{live.Digest.Hex(), te.Digest.Hex()}
	slices.Sort(want)
	if got := list(); !slices.Equal(got, want) {
		t.Fatalf("Withdrawn = %v, want %v (not the listed %s)", got, want, kept.Digest.Hex())
	}
	stop := errors.New("stop")
	calls := 0
	err := s.Withdrawn(ctx(t), func(protocol.Digest) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("Withdrawn with fn failing: err %v after %d calls, want fn's error after 1", err, calls)
	}
}
