package postgres

import (
	"context"

	"github.com/agora-registry/registry/internal/protocol"
)

// Inactive lists the withdrawn and deprecated digests (through
// documents_inactive).
func (s *Store) Inactive(ctx context.Context, fn func(d protocol.Digest, withdrawn bool) error) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, `SELECT digest, withdrawn_at IS NOT NULL FROM documents
		WHERE withdrawn_at IS NOT NULL OR status <> 'active'`)
	var (
		b         []byte
		withdrawn bool
	)
	return each(rows, []any{&b, &withdrawn}, func() error {
		var d protocol.Digest
		copy(d[:], b)
		return fn(d, withdrawn)
	})
}
