package registry

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/translog"
)

// TestAppendStatusChange: the hook status changes (deprecation) use logs
// one record with the new status and the cleaned reason.
func TestAppendStatusChange(t *testing.T) {
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
	r, err := svc.Publish(ctx, []byte("# Old\n\nSoon deprecated.\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	d := r.Entry.Digest
	if err := svc.AppendStatusChange(ctx, d, "deprecate", "deprecated", "  use v2\x1b[31m "); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][3]string{{"publish", "x", ""}, {"withdraw", "withdrawn", ""}, {"Deprecate", "deprecated", ""}, {"deprecate", "", ""}} {
		if err := svc.AppendStatusChange(ctx, d, bad[0], bad[1], bad[2]); err == nil {
			t.Fatalf("AppendStatusChange(%q, %q) accepted", bad[0], bad[1])
		}
	}
	if err := svc.AppendStatusChange(ctx, protocol.Digest{9}, "deprecate", "deprecated", ""); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a status change of an unknown document: %v", err)
	}
	if err := tl.Integrate(ctx); err != nil {
		t.Fatal(err)
	}
	text, err := tl.Record(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := translog.ParseRecord(text)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Event != "deprecate" || rec.Status != "deprecated" || rec.Digest != d || rec.SHA256 != r.Entry.SHA256 || rec.Size != r.Entry.Size || rec.Reason != CleanReason("  use v2\x1b[31m ") || rec.Reason == "" {
		t.Fatalf("status change record: %+v", rec)
	}
}
