package registry

import (
	"context"
	"log/slog"

	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/store"
)

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
	var items []blobs.Item
	for i, c := range created {
		if c && docs[i].WithdrawnAt == nil {
			items = append(items, blobs.Item{Digest: docs[i].Document.Sums.SHA1, Content: docs[i].Document.Content})
		}
	}
	if err := b.files.PutBatch(items); err != nil {
		// The documents are stored; their files are written by their
		// first reads instead.
		slog.Warn("writing blob files failed; those documents are served from the database until read once", "error", err.Error())
	}
	return created, nil
}
