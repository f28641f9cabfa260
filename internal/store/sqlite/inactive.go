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
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			h         string
			withdrawn bool
		)
		if err := rows.Scan(&h, &withdrawn); err != nil {
			return mapErr(err)
		}
		d, err := protocol.ParseDigest(h)
		if err != nil {
			return err
		}
		if err := fn(d, withdrawn); err != nil {
			return err
		}
	}
	return mapErr(rows.Err())
}
