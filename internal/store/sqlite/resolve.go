package sqlite

import (
	"context"
	"encoding/hex"
	"strings"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// resolveQuery answers a batch by probe index: json_each gives each sent
// hex its index in the array (key), and the join probes the digest index
// once per element, in array order, so duplicates are answered each time.
// The columns a resolution reports are all in documents_resolve
// (migrations 0003, 0007, 0013), so no probe reads the table. The hint is
// needed: without it SQLite probes the unique key and reads each row
// (TestResolveReadsOnlyTheCoveringIndex).
const resolveQuery = `SELECT j.key, d.title, d.withdrawn_at IS NOT NULL, d.status, d.status_message, d.replacement, d.publisher
	FROM json_each(?) AS j JOIN documents AS d INDEXED BY documents_resolve ON d.hex = j.value`

// Resolve looks up to MaxResolve digests in one query.
func (s *Store) Resolve(ctx context.Context, ds []protocol.Digest) ([]store.Resolution, error) {
	if err := store.CheckResolveSize(len(ds)); err != nil {
		return nil, err
	}
	batch := store.NewResolveBatch(ds)
	if len(ds) == 0 {
		return batch.Answers(), nil
	}
	rows, err := s.read.QueryContext(ctx, resolveQuery, hexArray(batch))
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	if err := batch.ReadRows(rows, 0); err != nil {
		return nil, mapErr(err)
	}
	return batch.Answers(), nil
}

// hexArray is the JSON array of the batch's hex digests in probe order,
// written directly into one string (hex needs no escaping) instead of a
// string per digest for json.Marshal. It is bound as text: SQLite would
// read a blob as JSONB.
func hexArray(b store.ResolveBatch) string {
	var sb strings.Builder
	sb.Grow(b.Len()*(2*protocol.DigestSize+3) + 1)
	var h [2 * protocol.DigestSize]byte
	sb.WriteByte('[')
	for i := range b.Len() {
		if i > 0 {
			sb.WriteByte(',')
		}
		hex.Encode(h[:], b.Probe(i)[:])
		sb.WriteByte('"')
		sb.Write(h[:])
		sb.WriteByte('"')
	}
	sb.WriteByte(']')
	return sb.String()
}
