package archive_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// TestPublishersTravelWithARestore: a restore (KeepPublishers) makes the
// accounts its documents name, with the display names publishers.json
// carries, so `token create --publisher` works on the new registry; an
// import that does not keep publishers makes none.
func TestPublishersTravelWithARestore(t *testing.T) {
	ctx := context.Background()
	src := openSQLite(t)
	if _, err := src.CreatePublisher(ctx, entity.Publisher{Name: "acme", DisplayName: "Acme Corp."}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.CreatePublisher(ctx, entity.Publisher{Name: "idle", DisplayName: "No documents"}); err != nil {
		t.Fatal(err)
	}
	seed(t, src) // documents by acme and by someone-else (which has no account)
	arc := export(t, src)

	dst := openSQLite(t)
	rep := importBytes(t, dst, arc, restore)
	if rep.PublishersCreated != 3 {
		t.Errorf("accounts created: %d, want acme, idle and someone-else", rep.PublishersCreated)
	}
	for name, display := range map[string]string{"acme": "Acme Corp.", "idle": "No documents", "someone-else": ""} {
		p, err := dst.GetPublisher(ctx, name)
		if err != nil || p.DisplayName != display {
			t.Errorf("publisher %s after the restore: %+v %v", name, p, err)
		}
	}
	if rep := importBytes(t, dst, arc, restore); rep.PublishersCreated != 0 {
		t.Errorf("a second restore created %d accounts", rep.PublishersCreated)
	}

	plain := openSQLite(t)
	importBytes(t, plain, arc, archive.Limits{})
	if _, err := plain.GetPublisher(ctx, "acme"); !errors.Is(err, store.ErrPublisherUnknown) {
		t.Errorf("an import that does not keep publishers made an account: %v", err)
	}
}
