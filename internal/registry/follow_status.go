package registry

import (
	"context"
	"errors"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// ReplicateStatus deprecates a document or makes it active again because
// the upstreams a follower replicates say so (internal/follow decides
// which documents and which status); actor names the follower in the
// document's history. There is no token: the follower acts for this
// registry's operator. A replacement this registry could not accept from
// a publisher (not stored here, withdrawn, the document itself, or one
// leading back to it) is left out: the message still names it, and a page
// must not link to nothing or in a circle. Asking for the status the
// document already has writes nothing, so a follower may repeat itself.
func (s *Service) ReplicateStatus(ctx context.Context, d protocol.Digest, r StatusRequest, actor string) (entity.Entry, error) {
	r.Message = clipClean(r.Message, store.MaxStatusMessageRunes)
	if r.Status == entity.StatusActive {
		r.Message, r.Replacement = "", nil
	}
	if r.Replacement != nil {
		s.replacing.Lock() // as in SetStatus: the check and the write under one lock
		defer s.replacing.Unlock()
		err := s.checkReplacement(ctx, d, *r.Replacement)
		switch {
		case errors.Is(err, ErrReplacementSelf), errors.Is(err, ErrUnknownReplacement),
			errors.Is(err, ErrReplacementWithdrawn), errors.Is(err, ErrReplacementCycle),
			errors.Is(err, ErrReplacementChain):
			r.Replacement = nil
		case err != nil:
			return entity.Entry{}, err
		}
	}
	e, err := s.store.Get(ctx, d, false)
	if err != nil {
		return e, err
	}
	if lc := e.Lifecycle; e.Status() == r.Status && (r.Status == entity.StatusActive ||
		lc.Message == r.Message && sameDigest(lc.Replacement, r.Replacement)) {
		return e, nil
	}
	return s.applyStatus(ctx, d, r, actor)
}

func sameDigest(a, b *protocol.Digest) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
