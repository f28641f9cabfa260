package postgres

import (
	"context"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// resolveQuery answers a batch by probe index: WITH ORDINALITY numbers each
// sent digest (from 1), and the join probes the primary key once per
// element, in array order (a nested loop over the unnest), so duplicates
// are answered each time. Only the columns a resolution reports are read.
const resolveQuery = `SELECT k.i, d.title, d.withdrawn_at IS NOT NULL, d.status, d.status_message, d.replacement, d.publisher
	FROM unnest($1::bytea[]) WITH ORDINALITY AS k(digest, i) JOIN documents AS d ON d.digest = k.digest`

// Resolve answers many digests with one query, in the order asked.
func (s *Store) Resolve(ctx context.Context, ds []protocol.Digest) ([]store.Resolution, error) {
	if err := store.CheckResolveSize(len(ds)); err != nil {
		return nil, err
	}
	batch := store.NewResolveBatch(ds)
	if len(ds) == 0 {
		return batch.Answers(), nil
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	keys := make([][]byte, batch.Len())
	for i := range keys {
		keys[i] = batch.Probe(i)[:]
	}
	rows, err := s.pool.Query(ctx, resolveQuery, keys)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	if err := batch.ReadRows(rows, 1); err != nil {
		return nil, mapErr(err)
	}
	return batch.Answers(), nil
}
