package sqlite

import (
	"context"

	"github.com/agora-registry/registry/internal/protocol"
)

// Inactive lists the withdrawn and deprecated digests (through
// documents_inactive).
func (s *Store) Inactive(ctx context.Context, fn func(d protocol.Digest, withdrawn bool) error) error {
	rows, err := s.read.QueryContext(ctx, `SELECT hex, withdrawn_at IS NOT NULL FROM documents
		WHERE withdrawn_at IS NOT NULL OR status <> 'active'`)
	var (
		h         string
		withdrawn bool
	)
	return each(rows, err, []any{&h, &withdrawn}, func() error {
		d, err := protocol.ParseDigest(h)
		if err != nil {
			return err
		}
		return fn(d, withdrawn)
	})
}
