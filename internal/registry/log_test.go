package registry

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/translog"
)

// TestStatusChangesAreLogged: a deprecation, its undoing and a withdrawal
// each enter the log as one record with the document's hashes and size,
// the change's time (the history's), the new status and the cleaned
// reason.
func TestStatusChangesAreLogged(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	key, err := translog.LoadKey(ctx, st, "", "registry.test")
	if err != nil {
		t.Fatal(err)
	}
	tl := translog.New(st, key, nil)
	svc := New(st, Config{PublicURL: "http://registry.test", Log: tl})
	old, err := svc.Publish(ctx, []byte("# Old\n\nSoon deprecated.\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	repl, err := svc.Publish(ctx, []byte("# New\n\nThe replacement.\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	d := old.Entry.Digest
	tok := entity.Token{ID: 1, Name: "ci", Publisher: entity.DefaultPublisher, Scopes: []entity.Scope{entity.ScopePublish}}
	if _, err := svc.SetStatus(ctx, tok, d, StatusRequest{Status: entity.StatusDeprecated, Message: "  use v2\x1b[31m ", Replacement: &repl.Entry.Digest}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetStatus(ctx, tok, d, StatusRequest{Status: entity.StatusActive}); err != nil {
		t.Fatal(err)
	}
	admin := entity.Token{ID: 2, Name: "ops", Scopes: []entity.Scope{entity.ScopeAdmin}}
	if err := svc.Withdraw(ctx, admin, d, "leaked a key"); err != nil {
		t.Fatal(err)
	}
	if err := tl.Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	hist, err := svc.History(ctx, d)
	if err != nil || len(hist) != 3 {
		t.Fatalf("history: %d events, %v", len(hist), err)
	}
	// Every record attests the publisher (agora-registry/2); the
	// deprecation its replacement too.
	by := agora.LogAttestation{Publisher: entity.DefaultPublisher, PublisherDisplayName: "Default publisher"}
	replaced := by
	replaced.ReplacedBy = repl.Entry.Digest.Hex()
	want := []agora.LogRecord{
		{Event: "deprecate", Status: "deprecated", Reason: CleanReason("  use v2\x1b[31m ") + " (replacement " + repl.Entry.Digest.Hex() + ")", Time: hist[0].At, Attested: replaced},
		{Event: "reactivate", Status: "active", Time: hist[1].At, Attested: by},
		{Event: "withdraw", Status: "withdrawn", Reason: "leaked a key", Time: hist[2].At, Attested: by},
	}
	for i, w := range want {
		text, err := tl.Record(ctx, int64(2+i))
		if err != nil {
			t.Fatalf("record %d: %v", 2+i, err)
		}
		rec, err := agora.ParseLogRecord(text)
		if err != nil {
			t.Fatal(err)
		}
		w.Digest, w.SHA256, w.Size = d, old.Entry.SHA256, old.Entry.Size
		if !rec.Time.Equal(w.Time) {
			t.Fatalf("record %d at %s, the history says %s", 2+i, rec.Time, w.Time)
		}
		rec.Time = w.Time
		if rec != w || w.Status != "active" && rec.Reason == "" {
			t.Fatalf("record %d = %+v, want %+v", 2+i, rec, w)
		}
	}
	if _, err := tl.Record(ctx, 5); err == nil {
		t.Fatal("the log holds more than the publishes and three status changes")
	}
}
