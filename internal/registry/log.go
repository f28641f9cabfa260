package registry

import (
	"context"
	"errors"
	"time"

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

// AppendStatusChange logs a status change of a stored document that the
// engines do not log themselves (publishes and withdrawals they do):
// event names the change ("deprecate", …), status the new status, reason
// why. Call it after the change is stored.
func (s *Service) AppendStatusChange(ctx context.Context, d protocol.Digest, event, status, reason string) error {
	if event == translog.EventPublish || event == translog.EventWithdraw {
		return store.ErrInvalid.With("publishes and withdrawals are logged by the store itself")
	}
	e, err := s.store.Get(ctx, d, false)
	if err != nil && !errors.Is(err, store.ErrWithdrawn) {
		return err
	}
	ev := store.LogEvent{Event: event, Digest: d, SHA256: e.SHA256, Size: e.Size, At: time.Now(), Status: status, Reason: CleanReason(reason)}
	if _, err := translog.FormatRecord(ev); err != nil {
		return err // refused now, not by the integrator later
	}
	if err := s.store.AppendLog(ctx, ev); err != nil {
		return err
	}
	s.logChanged()
	return nil
}

// Stored returns the stored entry of d, withdrawn or not, never asking an
// upstream (followers decide from it what to import).
func (s *Service) Stored(ctx context.Context, d protocol.Digest) (store.Entry, error) {
	e, err := s.store.Get(ctx, d, false)
	if errors.Is(err, store.ErrWithdrawn) {
		err = nil
	}
	return e, err
}
