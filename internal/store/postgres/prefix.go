package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

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
	rows, _ := s.pool.Query(ctx, prefixQuery, lo[:], hi[:], limit)
	out, err := pgx.AppendRows([]store.Resolution{}, rows, func(row pgx.CollectableRow) (r store.Resolution, err error) {
		var digest []byte
		r.Found = true
		if err := row.Scan(&digest, &r.Title, &r.Withdrawn); err != nil {
			return r, err
		}
		if len(digest) != protocol.DigestSize {
			return r, store.ErrConflict.With("a stored digest is not 20 bytes")
		}
		copy(r.Digest[:], digest)
		return r, nil
	})
	return out, mapErr(err)
}
