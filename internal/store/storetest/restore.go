package storetest

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// testRestoreLifecycle: an archive's lifecycle lands, times and actors as
// recorded, on a document whose status was never changed here, and on no
// other; what no status change could make is refused.
func testRestoreLifecycle(t *testing.T, open Opener) {
	s := open(t)
	old := ownedDoc(t, s, "acme", "Restored old", nil)
	repl := ownedDoc(t, s, "acme", "Restored new", &old)
	changed := ownedDoc(t, s, "acme", "Changed here", nil)
	gone := ownedDoc(t, s, "acme", "Restored gone", nil)

	t0 := time.Date(2025, 3, 1, 10, 0, 0, 123456000, time.UTC)
	t1 := t0.Add(time.Hour)
	lc := entity.Lifecycle{Status: entity.StatusDeprecated, Message: "use the new one", Replacement: &repl.Digest, ChangedAt: &t1}
	history := []entity.HistoryEvent{
		{At: t0, Actor: "acme", Status: entity.StatusDeprecated, Message: "first try"},
		{At: t1, Actor: "admin:ops", Status: entity.StatusDeprecated, Message: "use the new one", Replacement: &repl.Digest},
	}
	ok, err := s.RestoreLifecycle(ctx(t), old.Digest, lc, history)
	noErr(t, "RestoreLifecycle", err)
	if !ok {
		t.Fatal("RestoreLifecycle of a never-changed document restored nothing")
	}
	got := mustGet(t, s, old.Digest)
	if got.Status() != entity.StatusDeprecated || got.Lifecycle.Message != lc.Message || got.Lifecycle.Replacement == nil ||
		*got.Lifecycle.Replacement != repl.Digest || got.Lifecycle.ChangedAt == nil || !got.Lifecycle.ChangedAt.Equal(t1) {
		t.Fatalf("restored lifecycle %+v, want %+v", got.Lifecycle, lc)
	}
	h, err := s.History(ctx(t), old.Digest)
	noErr(t, "History", err)
	if len(h) != 2 {
		t.Fatalf("restored history %+v", h)
	}
	for i := range h {
		h[i].At = h[i].At.UTC()
	}
	if !reflect.DeepEqual(h, history) {
		t.Fatalf("restored history %+v, want %+v", h, history)
	}
	res, err := s.Resolve(ctx(t), []protocol.Digest{old.Digest})
	noErr(t, "Resolve", err)
	if res[0].Status != entity.StatusDeprecated || res[0].Message != lc.Message {
		t.Fatalf("Resolve after a restore: %+v", res[0])
	}

	// A second restore, or one of a document changed here, changes nothing.
	again := entity.Lifecycle{Status: entity.StatusActive, ChangedAt: &t0}
	ok, err = s.RestoreLifecycle(ctx(t), old.Digest, again, nil)
	if err != nil || ok || mustGet(t, s, old.Digest).Status() != entity.StatusDeprecated {
		t.Fatalf("a second restore: %v, %v", ok, err)
	}
	_, err = s.SetStatus(ctx(t), changed.Digest, store.StatusChange{Status: entity.StatusDeprecated, Message: "ours", Actor: "acme"})
	noErr(t, "SetStatus", err)
	ok, err = s.RestoreLifecycle(ctx(t), changed.Digest, entity.Lifecycle{Status: entity.StatusActive, ChangedAt: &t0}, history[:1])
	if err != nil || ok {
		t.Fatalf("restore over a change made here: %v, %v", ok, err)
	}
	if e := mustGet(t, s, changed.Digest); e.Lifecycle.Message != "ours" {
		t.Fatalf("a restore overwrote a change made here: %+v", e.Lifecycle)
	}
	if h, _ := s.History(ctx(t), changed.Digest); len(h) != 1 || h[0].Message != "ours" {
		t.Fatalf("a restore added to a history made here: %+v", h)
	}

	// A withdrawn document keeps its tombstone and gets its history.
	noErr(t, "Withdraw", s.Withdraw(ctx(t), gone.Digest, "bad"))
	ok, err = s.RestoreLifecycle(ctx(t), gone.Digest, entity.Lifecycle{Status: entity.StatusActive}, history[:1])
	if err != nil || !ok {
		t.Fatalf("restore of a withdrawn document: %v, %v", ok, err)
	}
	if e := mustGetAny(t, s, gone); e.Status() != entity.StatusWithdrawn {
		t.Fatalf("a restore revived a withdrawn document: %v", e.Status())
	}

	_, err = s.RestoreLifecycle(ctx(t), protocol.Digest{9}, lc, nil)
	wantErr(t, "RestoreLifecycle of an unknown document", err, store.ErrNotFound)
	many := make([]entity.HistoryEvent, store.MaxHistory+1)
	for i := range many {
		many[i] = history[0]
	}
	for what, bad := range map[string]struct {
		lc entity.Lifecycle
		h  []entity.HistoryEvent
	}{
		"a withdrawn status":         {entity.Lifecycle{Status: entity.StatusWithdrawn, ChangedAt: &t0}, nil},
		"a deprecation without time": {entity.Lifecycle{Status: entity.StatusDeprecated}, nil},
		"its own replacement":        {entity.Lifecycle{Status: entity.StatusDeprecated, ChangedAt: &t0, Replacement: &repl.Digest}, nil},
		"an active replacement":      {entity.Lifecycle{Status: entity.StatusActive, Replacement: &old.Digest}, nil},
		"a long message":             {entity.Lifecycle{Status: entity.StatusDeprecated, ChangedAt: &t0, Message: strings.Repeat("x", store.MaxStatusMessageRunes+1)}, nil},
		"too many events":            {entity.Lifecycle{Status: entity.StatusActive}, many},
		"an event without an actor":  {entity.Lifecycle{Status: entity.StatusActive}, []entity.HistoryEvent{{At: t0, Status: entity.StatusActive}}},
		"an event without a time":    {entity.Lifecycle{Status: entity.StatusActive}, []entity.HistoryEvent{{Actor: "a", Status: entity.StatusActive}}},
		"an unknown event status":    {entity.Lifecycle{Status: entity.StatusActive}, []entity.HistoryEvent{{At: t0, Actor: "a", Status: "retired"}}},
	} {
		_, err := s.RestoreLifecycle(ctx(t), repl.Digest, bad.lc, bad.h)
		wantErr(t, "RestoreLifecycle of "+what, err, store.ErrInvalid)
	}
	if e := mustGet(t, s, repl.Digest); e.Lifecycle.ChangedAt != nil {
		t.Fatalf("a refused restore changed the document: %+v", e.Lifecycle)
	}
}
