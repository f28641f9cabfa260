package registry

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

func blobService(t *testing.T) (*Service, *blobs.Store) {
	t.Helper()
	files, err := blobs.Open(filepath.Join(t.TempDir(), "blobs"), 0)
	if err != nil {
		t.Fatal(err)
	}
	return newService(t, Config{Blobs: files}), files
}

func TestBlobsAreFilledAndNeverServedWrong(t *testing.T) {
	ctx := context.Background()
	svc, files := blobService(t)
	doc := []byte("# Blob\n\nServed from a file.\n")
	pub, err := svc.Publish(ctx, doc, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	d := pub.Entry.Digest
	svc.WaitBlobs()
	if files.Has(d) {
		t.Fatal("publish wrote a blob (the first read writes it)")
	}
	if _, err := svc.Raw(ctx, d); err != nil {
		t.Fatal(err)
	}
	svc.WaitBlobs()
	if !files.Has(d) {
		t.Fatal("the first read wrote no blob")
	}
	if _, ok := svc.blobRaw(d, true); ok {
		t.Fatal("a blob was served before the withdrawn set was loaded")
	}
	if err := svc.RefreshInactive(ctx); err != nil {
		t.Fatal(err)
	}
	if got, ok := svc.blobRaw(d, true); !ok || string(got.Content) != string(doc) {
		t.Fatal("no blob after the withdrawn set was loaded")
	}

	// A damaged file is deleted, not served; the next read through the
	// store writes it again.
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(files.Path(d), []byte("# Blob\n\nServed from a fiLe.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := svc.blobRaw(d, true); ok || files.Has(d) {
		t.Fatalf("damaged blob: served %v, still there %v", ok, files.Has(d))
	}
	if got, err := svc.Raw(ctx, d); err != nil || string(got) != string(doc) {
		t.Fatalf("Raw after the damage: %q, %v", got, err)
	}
	svc.WaitBlobs()
	if b, err := os.ReadFile(files.Path(d)); err != nil || string(b) != string(doc) {
		t.Fatalf("the first read did not rewrite the blob: %q, %v", b, err)
	}

	// Withdrawn through another replica (the store directly): the next
	// reload of the withdrawn set stops the file and removes it.
	if err := engine(svc).Withdraw(ctx, d, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	if err := svc.RefreshInactive(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := svc.blobRaw(d, true); ok || files.Has(d) {
		t.Fatalf("withdrawn elsewhere: served %v, file there %v", ok, files.Has(d))
	}
	if _, ok := svc.blobRaw(d, false); ok {
		t.Fatal("a body-less answer comes from a withdrawn document's blob")
	}
}

func TestImportFillsBlobsOfCreatedListedDocuments(t *testing.T) {
	ctx := context.Background()
	svc, files := blobService(t)
	nd := func(text string) store.NewDocument {
		doc, err := protocol.Prepare([]byte(text), 0)
		if err != nil {
			t.Fatal(err)
		}
		return store.NewDocument{Document: doc}
	}
	existing := nd("# Existing\n")
	if _, _, err := svc.store.Put(ctx, existing); err != nil {
		t.Fatal(err)
	}
	fresh, tomb := nd("# Fresh\n"), nd("# Tomb\n")
	when := time.Now()
	tomb.WithdrawnAt = &when
	docs := FillingBlobs(engine(svc), files)
	if _, err := docs.PutMany(ctx, []store.NewDocument{existing, fresh, tomb}); err != nil {
		t.Fatal(err)
	}
	if err := docs.Close(); err != nil {
		t.Fatal(err)
	}
	if !files.Has(fresh.Document.Sums.SHA1) || files.Has(tomb.Document.Sums.SHA1) || files.Has(existing.Document.Sums.SHA1) {
		t.Fatalf("blobs: fresh %v (want true), withdrawn %v, existing %v (want false: filled on first read)",
			files.Has(fresh.Document.Sums.SHA1), files.Has(tomb.Document.Sums.SHA1), files.Has(existing.Document.Sums.SHA1))
	}
}
