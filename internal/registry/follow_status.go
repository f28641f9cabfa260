package registry

import (
	"context"
	"errors"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// ReplicateStatus deprecates a document or makes it active again because
// the upstreams a follower replicates say so (internal/follow decides
// which documents and which status); actor names the follower in the
// document's history. There is no token: the follower acts for this
// registry's operator. A replacement not stored here is left out (the
// message still names it), since a page must not link to nothing.
func (s *Service) ReplicateStatus(ctx context.Context, d protocol.Digest, r StatusRequest, actor string) (store.Entry, error) {
	r.Message = clipClean(r.Message, store.MaxStatusMessageRunes)
	if r.Status == store.StatusActive {
		r.Message, r.Replacement = "", nil
	}
	if r.Replacement != nil {
		if _, err := s.store.Get(ctx, *r.Replacement, false); err != nil {
			if !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrWithdrawn) {
				return store.Entry{}, err
			}
			r.Replacement = nil
		}
	}
	if r.Status == store.StatusDeprecated {
		s.markInactive(d, false)
	}
	e, err := s.store.SetStatus(ctx, d, store.StatusChange{Status: r.Status, Message: r.Message,
		Replacement: r.Replacement, Actor: actor, Log: s.statusLogEvent(r)})
	s.cache.remove(d)
	if err != nil {
		return e, err
	}
	if r.Status == store.StatusActive {
		s.markActive(d)
	} else {
		s.markInactive(d, false)
	}
	s.logChanged()
	return e, nil
}
