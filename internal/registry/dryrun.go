package registry

import (
	"context"
	"errors"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// DryRun answers what PublishRequest would, without storing anything: the
// entry as it is or would be stored (hashes, title, lints) and whether it
// would be new. Publishing is irreversible, so the CLI and the API offer
// this before it.
func (s *Service) DryRun(ctx context.Context, r PublishRequest) (PublishResult, error) {
	nd, err := PrepareDocument(r, s.cfg.MaxDocumentBytes)
	if err != nil {
		return PublishResult{}, err
	}
	d := nd.Document
	e, err := s.store.Get(ctx, d.Sums.SHA1, false)
	switch {
	case errors.Is(err, store.ErrWithdrawn):
		return PublishResult{}, store.ErrWithdrawn.With(
			"this protocol was withdrawn by an administrator and cannot be published again; publish a new version instead")
	case err == nil:
		if err := checkTagsKept(e, nd.ExtraTags); err != nil {
			return PublishResult{}, err
		}
		return PublishResult{Entry: e}, nil
	case !errors.Is(err, store.ErrNotFound):
		return PublishResult{}, err
	}
	m := d.Metadata
	m.Tags = protocol.NormaliseTags(append(append([]string{}, m.Tags...), nd.ExtraTags...))
	return PublishResult{Created: true, Entry: entity.Entry{
		Digest: d.Sums.SHA1, SHA256: d.Sums.SHA256, Size: len(d.Content), Metadata: m, Lints: d.Lints,
		CreatedAt: time.Now().UTC(), Origin: nd.Origin, Publisher: nd.Publisher,
		Lifecycle: entity.Lifecycle{Status: entity.StatusActive},
	}}, nil
}
