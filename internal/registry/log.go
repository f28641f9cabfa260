package registry

import (
	"context"
	"errors"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/translog"
)

// Log is the transparency log, nil when the registry runs without one.
func (s *Service) Log() *translog.Log { return s.cfg.Log }

// logChanged wakes the log's integrator after a change was stored.
func (s *Service) logChanged() {
	if s.cfg.Log != nil {
		s.cfg.Log.Notify()
	}
}

// Stored returns the stored entry of d, withdrawn or not, never asking an
// upstream (followers decide from it what to import).
func (s *Service) Stored(ctx context.Context, d protocol.Digest) (entity.Entry, error) {
	e, err := s.store.Get(ctx, d, false)
	if errors.Is(err, store.ErrWithdrawn) {
		err = nil
	}
	return e, err
}
