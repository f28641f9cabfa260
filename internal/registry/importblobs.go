package registry

import (
	"context"
	"sync"

	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// importBlobBatches is how many committed batches may wait for their blob
// files: the files of one batch are written while the next is stored.
const importBlobBatches = 2

// BlobFilling is a store.Documents that writes the blob of every document
// a PutMany created (and did not store withdrawn) once the batch is
// committed, in the background: `registry import` fills the blob
// directory as it goes. Close waits for the files and syncs them.
type BlobFilling struct {
	ImportTarget
	files   *blobs.Store
	batches chan []blobs.Item
	done    sync.WaitGroup
	err     error // the first write error, read after done
}

// ImportTarget is what an import writes to: documents and, restored from
// an archive, their lifecycles and publisher accounts.
type ImportTarget interface {
	store.Documents
	store.Lifecycles
	CreatePublisher(ctx context.Context, p entity.Publisher) (entity.Publisher, error)
}

// FillingBlobs wraps docs so that imports write blob files into files.
func FillingBlobs(docs ImportTarget, files *blobs.Store) *BlobFilling {
	b := &BlobFilling{ImportTarget: docs, files: files, batches: make(chan []blobs.Item, importBlobBatches)}
	b.done.Add(1)
	go func() {
		defer b.done.Done()
		for items := range b.batches {
			if err := files.PutBatch(items); err != nil && b.err == nil {
				b.err = err
			}
		}
	}()
	return b
}

// PutMany stores the batch, then queues its new documents' files.
func (b *BlobFilling) PutMany(ctx context.Context, docs []store.NewDocument) ([]bool, error) {
	created, err := b.ImportTarget.PutMany(ctx, docs)
	if err != nil {
		return created, err
	}
	var items []blobs.Item
	for i, c := range created {
		if c && docs[i].WithdrawnAt == nil {
			items = append(items, blobs.Item{Digest: docs[i].Document.Sums.SHA1, Content: docs[i].Document.Content})
		}
	}
	if len(items) > 0 {
		b.batches <- items
	}
	return created, nil
}

// Close waits for every queued file and syncs the directory. An error
// means some documents have no file yet: they are stored, and their first
// reads write the files.
func (b *BlobFilling) Close() error {
	close(b.batches)
	b.done.Wait()
	if b.err != nil {
		return b.err
	}
	return b.files.Sync()
}
