package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// testLogStatusChange: SetStatus queues a status change's log event in its
// own transaction, with the document's hashes and size and the change's
// time (the history's), and queues nothing when the change is refused.
func testLogStatusChange(t *testing.T, open Opener) {
	s := open(t)
	ref := &refLog{}
	a := putText(t, s, simpleDoc("Status logged", "x", nil, "Body."))
	gone := putText(t, s, simpleDoc("Status gone", "x", nil, "Body."))
	noErr(t, "Withdraw", s.Withdraw(ctx(t), gone.Digest, "legal"))
	head := ref.drain(t, s, store.MaxLogBatch) // two publishes and a withdrawal

	// The caller's digest, hashes, size and time are not what is logged.
	bogus := store.LogEvent{Event: "deprecate", Digest: protocol.Digest{7}, SHA256: [32]byte{7}, Size: 7,
		At: time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC), Status: "deprecated", Reason: `use "v2"`}
	ev := bogus
	_, err := s.SetStatus(ctx(t), a.Digest, store.StatusChange{Status: entity.StatusDeprecated, Message: "use v2", Actor: "acme", Log: &ev})
	noErr(t, "SetStatus deprecated with a log event", err)
	_, err = s.SetStatus(ctx(t), a.Digest, store.StatusChange{Status: entity.StatusActive, Actor: "acme"})
	noErr(t, "SetStatus active without a log event", err)
	_, err = s.SetStatus(ctx(t), a.Digest, store.StatusChange{Status: entity.StatusActive, Actor: "acme",
		Log: &store.LogEvent{Event: "reactivate", Status: "active"}})
	noErr(t, "SetStatus active with a log event", err)

	// Refused changes queue nothing.
	_, err = s.SetStatus(ctx(t), gone.Digest, store.StatusChange{Status: entity.StatusDeprecated, Actor: "acme", Log: &bogus})
	wantErr(t, "deprecating a withdrawn document", err, store.ErrWithdrawn)
	_, err = s.SetStatus(ctx(t), protocol.Digest{9}, store.StatusChange{Status: entity.StatusDeprecated, Actor: "acme", Log: &bogus})
	wantErr(t, "deprecating an unknown document", err, store.ErrNotFound)
	_, err = s.SetStatus(ctx(t), a.Digest, store.StatusChange{Status: entity.StatusWithdrawn, Actor: "admin:ops",
		Log: &store.LogEvent{Event: "withdraw", Status: "withdrawn"}})
	wantErr(t, "a withdrawal with a log event (the engine logs it)", err, store.ErrInvalid)
	_, err = s.SetStatus(ctx(t), a.Digest, store.StatusChange{Status: entity.StatusDeprecated, Actor: "acme", Log: &store.LogEvent{}})
	wantErr(t, "a log event without an event name", err, store.ErrInvalid)
	if e, err := s.Get(ctx(t), a.Digest, false); err != nil || e.Status() != entity.StatusActive {
		t.Fatalf("a refused change changed the document: %v %v", e.Status(), err)
	}

	hist, err := s.History(ctx(t), a.Digest)
	noErr(t, "History", err)
	if len(hist) != 3 {
		t.Fatalf("history has %d events, want 3", len(hist))
	}
	end := ref.drain(t, s, store.MaxLogBatch)
	if end.Size != head.Size+2 {
		t.Fatalf("the log grew by %d records, want 2 (a deprecation and one reactivation)", end.Size-head.Size)
	}
	recs, err := s.LogRecords(ctx(t), head.Size, 10)
	noErr(t, "LogRecords", err)
	want := []store.LogEvent{
		{Event: "deprecate", Digest: a.Digest, SHA256: a.SHA256, Size: a.Size, At: hist[0].At, Status: "deprecated", Reason: bogus.Reason},
		{Event: "reactivate", Digest: a.Digest, SHA256: a.SHA256, Size: a.Size, At: hist[2].At, Status: "active"},
	}
	for i, w := range want {
		if r := recs[i]; r.Event != w.Event || r.Digest != w.Digest || !bytes.Equal(r.Text, refText(w)) {
			t.Fatalf("status record %d = %s %s %q, want %q", i, r.Event, r.Digest.Hex(), r.Text, refText(w))
		}
	}
}
