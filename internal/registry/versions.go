package registry

import (
	"context"
	"errors"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Versions is what a document's page shows of its lineage. A document's
// `supersedes:` is a claim anyone can write; it makes a version only
// within one publisher.
type Versions struct {
	// Older is the document this one supersedes (nil when it supersedes
	// nothing); OlderEntry is set when that document is stored here.
	Older      *protocol.Digest
	OlderEntry *entity.Entry
	// OlderByAnother: the superseded document was published by another
	// publisher, so this document's claim does not make it its version.
	OlderByAnother bool
	// Newer are successors by the same publisher: its newer versions.
	Newer []entity.Entry
	// Claims are documents of other publishers that claim to supersede
	// this one: listed apart, never as its newer version.
	Claims []entity.Entry
}

// Versions reads e's lineage: what it supersedes and what supersedes it,
// split by publisher.
func (s *Service) Versions(ctx context.Context, e entity.Entry) (Versions, error) {
	v := Versions{Older: e.Metadata.Supersedes}
	if prev := e.Metadata.Supersedes; prev != nil {
		old, err := s.store.Get(ctx, *prev, false)
		switch {
		case err == nil, errors.Is(err, store.ErrWithdrawn):
			v.OlderEntry = &old
			v.OlderByAnother = old.Publisher != e.Publisher
		case !errors.Is(err, store.ErrNotFound):
			return v, err
		}
	}
	successors, err := s.store.Successors(ctx, e.Digest)
	if err != nil {
		return v, err
	}
	for _, n := range successors {
		if n.Publisher == e.Publisher {
			v.Newer = append(v.Newer, n)
		} else {
			v.Claims = append(v.Claims, n)
		}
	}
	return v, nil
}
