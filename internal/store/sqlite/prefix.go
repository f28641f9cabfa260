package sqlite

import (
	"context"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// prefixQuery scans documents_resolve, which holds every column the answer
// needs, between the prefix's lowest and highest hex digest (hex is stored
// lower-case and compared bytewise); LIMIT stops the scan after the rows
// asked. TestPrefixLookupSearchesTheDigestIndex holds the planner to it.
const prefixQuery = `SELECT d.hex, d.title, d.withdrawn_at IS NOT NULL
	FROM documents AS d
	WHERE d.hex BETWEEN ? AND ? ORDER BY d.hex LIMIT ?`

// ByPrefix lists the entries whose digest starts with p.
func (s *Store) ByPrefix(ctx context.Context, p store.HashPrefix, limit int) ([]store.Resolution, error) {
	if err := store.CheckPrefixLimit(limit); err != nil {
		return nil, err
	}
	lo, hi := p.Range()
	rows, err := s.read.QueryContext(ctx, prefixQuery, lo.Hex(), hi.Hex(), limit)
	out := []store.Resolution{}
	var (
		h string
		r = store.Resolution{Found: true}
	)
	err = each(rows, err, []any{&h, &r.Title, &r.Withdrawn}, func() error {
		var err error
		r.Digest, err = protocol.ParseDigest(h)
		out = append(out, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
