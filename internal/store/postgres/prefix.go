package postgres

import (
	"context"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// prefixQuery scans the primary key between the prefix's lowest and
// highest digest; LIMIT stops the scan after the rows asked.
const prefixQuery = `SELECT digest, title, withdrawn_at IS NOT NULL FROM documents
	WHERE digest BETWEEN $1 AND $2 ORDER BY digest LIMIT $3`

// ByPrefix lists the entries whose digest starts with p.
func (s *Store) ByPrefix(ctx context.Context, p store.HashPrefix, limit int) ([]store.Resolution, error) {
	if err := store.CheckPrefixLimit(limit); err != nil {
		return nil, err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	lo, hi := p.Range()
	rows, err := s.pool.Query(ctx, prefixQuery, lo[:], hi[:], limit)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	out := []store.Resolution{}
	for rows.Next() {
		var (
			digest []byte
			r      = store.Resolution{Found: true}
		)
		if err := rows.Scan(&digest, &r.Title, &r.Withdrawn); err != nil {
			return nil, mapErr(err)
		}
		if len(digest) != protocol.DigestSize {
			return nil, store.ErrConflict.With("a stored digest is not 20 bytes")
		}
		copy(r.Digest[:], digest)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	return out, nil
}
