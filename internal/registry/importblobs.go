package registry

import (
	"context"
	"log/slog"
	"sync"

	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/store"
)

// importBlobWriters is how many blob files an import writes at once; their
// fsyncs overlap in the file system's journal.
const importBlobWriters = 8

// blobFilling is a store.Documents that writes the blob of every document
// a PutMany created (and did not store withdrawn), once the batch is
// committed: `registry import` fills the blob directory as it goes.
type blobFilling struct {
	store.Documents
	files *blobs.Store
}

// FillingBlobs wraps docs so that imports write blob files into files.
func FillingBlobs(docs store.Documents, files *blobs.Store) store.Documents {
	return &blobFilling{Documents: docs, files: files}
}

func (b *blobFilling) PutMany(ctx context.Context, docs []store.NewDocument) ([]bool, error) {
	created, err := b.Documents.PutMany(ctx, docs)
	if err != nil {
		return created, err
	}
	work := make(chan int)
	errs := make(chan error, importBlobWriters)
	var wg sync.WaitGroup
	for range importBlobWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for i := range work {
				d := docs[i].Document
				if err := b.files.Put(d.Sums.SHA1, d.Content); err != nil && first == nil {
					first = err
				}
			}
			errs <- first
		}()
	}
	for i, c := range created {
		if c && docs[i].WithdrawnAt == nil {
			work <- i
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			// The documents are stored; their files are written by
			// their first reads instead.
			slog.Warn("writing blob files failed; those documents are served from the database until read once", "error", err.Error())
			break
		}
	}
	return created, nil
}
