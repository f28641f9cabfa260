package registry

import (
	"context"
	"slices"

	"github.com/agora-registry/registry/internal/store"
)

// PublishMany validates a batch of publishes and stores the valid ones in
// one transaction (a follower's page: one commit instead of one per
// document). refused[i] is why rs[i] was not stored (PrepareDocument's
// error), nil when it was stored or was there already; err is a failure
// of the whole batch, which then stored nothing.
func (s *Service) PublishMany(ctx context.Context, rs []PublishRequest) (refused []error, err error) {
	refused = make([]error, len(rs))
	nds := make([]store.NewDocument, 0, len(rs))
	for i, r := range rs {
		nd, err := PrepareDocument(r, s.cfg.MaxDocumentBytes)
		if err != nil {
			refused[i] = err
			continue
		}
		nds = append(nds, nd)
	}
	if len(nds) == 0 {
		return refused, nil
	}
	created, err := s.store.PutMany(ctx, nds)
	if err != nil {
		return nil, err
	}
	if slices.Contains(created, true) {
		s.logChanged()
	}
	return refused, nil
}
