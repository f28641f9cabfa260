package sqlite

import (
	"context"
	"encoding/hex"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// resolveQuery answers a batch by position: json_each gives each asked hex
// its index in the batch (key), and the join probes the unique hex index
// once per asked digest, so duplicates are answered each time and no map
// from digest to answer is needed. Only the three columns a resolution
// reports are read.
const resolveQuery = `SELECT j.key, d.title, d.withdrawn_at IS NOT NULL
	FROM json_each(?) AS j JOIN documents AS d ON d.hex = j.value`

// Resolve looks up to MaxResolve digests in one query.
func (s *Store) Resolve(ctx context.Context, ds []protocol.Digest) ([]store.Resolution, error) {
	if err := store.CheckResolveSize(len(ds)); err != nil {
		return nil, err
	}
	out := store.Unresolved(ds)
	if len(ds) == 0 {
		return out, nil
	}
	rows, err := s.read.QueryContext(ctx, resolveQuery, hexArray(ds))
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
		if err := store.MarkFound(out, pos, title, withdrawn); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	return out, nil
}

// hexArray is the JSON array of the digests' hex forms, written directly
// (hex needs no escaping) instead of building a string per digest for
// json.Marshal. It is bound as text: SQLite would read a blob as JSONB.
func hexArray(ds []protocol.Digest) string {
	buf := make([]byte, 0, len(ds)*(2*protocol.DigestSize+3)+1)
	buf = append(buf, '[')
	for i, d := range ds {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '"')
		buf = hex.AppendEncode(buf, d[:])
		buf = append(buf, '"')
	}
	return string(append(buf, ']'))
}
