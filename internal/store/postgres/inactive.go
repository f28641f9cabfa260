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
	rows, err := s.pool.Query(ctx, `SELECT digest, withdrawn_at IS NOT NULL FROM documents
		WHERE withdrawn_at IS NOT NULL OR status <> 'active'`)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			b         []byte
			withdrawn bool
		)
		if err := rows.Scan(&b, &withdrawn); err != nil {
			return mapErr(err)
		}
		var d protocol.Digest
		copy(d[:], b)
		if err := fn(d, withdrawn); err != nil {
			return err
		}
	}
	return mapErr(rows.Err())
}
