package postgres

import (
	"context"

	"github.com/agora-registry/registry/internal/protocol"
)

// Withdrawn lists the withdrawn digests (through documents_withdrawn).
func (s *Store) Withdrawn(ctx context.Context, fn func(protocol.Digest) error) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT digest FROM documents WHERE withdrawn_at IS NOT NULL`)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return mapErr(err)
		}
		var d protocol.Digest
		copy(d[:], b)
		if err := fn(d); err != nil {
			return err
		}
	}
	return mapErr(rows.Err())
}
