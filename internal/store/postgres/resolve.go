package postgres

import (
	"context"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// resolveQuery answers a batch by position: WITH ORDINALITY numbers each
// asked digest (from 1), and the join probes the primary key once per
// asked digest, so duplicates are answered each time and no map from
// digest to answer is needed. Only the three columns a resolution reports
// are read.
const resolveQuery = `SELECT k.i, d.title, d.withdrawn_at IS NOT NULL
	FROM unnest($1::bytea[]) WITH ORDINALITY AS k(digest, i) JOIN documents AS d ON d.digest = k.digest`

// Resolve answers many digests with one query, in the order asked.
func (s *Store) Resolve(ctx context.Context, ds []protocol.Digest) ([]store.Resolution, error) {
	if err := store.CheckResolveSize(len(ds)); err != nil {
		return nil, err
	}
	out := store.Unresolved(ds)
	if len(ds) == 0 {
		return out, nil
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	keys := make([][]byte, len(ds))
	for i := range ds {
		keys[i] = ds[i][:]
	}
	rows, err := s.pool.Query(ctx, resolveQuery, keys)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var (
		pos       int64
		title     string
		withdrawn bool
	)
	for rows.Next() {
		if err := rows.Scan(&pos, &title, &withdrawn); err != nil {
			return nil, mapErr(err)
		}
		if err := store.MarkFound(out, pos-1, title, withdrawn); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	return out, nil
}
