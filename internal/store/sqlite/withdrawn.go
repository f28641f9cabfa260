package sqlite

import (
	"context"

	"github.com/agora-registry/registry/internal/protocol"
)

// Withdrawn lists the withdrawn digests (through documents_withdrawn).
func (s *Store) Withdrawn(ctx context.Context, fn func(protocol.Digest) error) error {
	rows, err := s.read.QueryContext(ctx, `SELECT hex FROM documents WHERE withdrawn_at IS NOT NULL`)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return mapErr(err)
		}
		d, err := protocol.ParseDigest(h)
		if err != nil {
			return err
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	return mapErr(rows.Err())
}
