package archive_test

import (
	"context"
	"sync"

	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// nopStore accepts every batch at once and remembers the digests it saw,
// so a test's store fakes only need to embed it and add their twist.
type nopStore struct {
	archive.Target
	mu   sync.Mutex
	seen map[protocol.Digest]bool
}

func (s *nopStore) PutMany(ctx context.Context, docs []store.NewDocument) ([]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	created := make([]bool, len(docs))
	for i, nd := range docs {
		d := nd.Document.Sums.SHA1
		created[i] = !s.seen[d]
		s.seen[d] = true
	}
	return created, nil
}
