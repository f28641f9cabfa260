package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// logLockKey is the advisory lock that makes one integration at a time
// across every process on the database ("agoraLOG").
const logLockKey int64 = 0x61676f72614c4f47

// IntegrateLog runs one integration under the log's advisory lock.
func (s *Store) IntegrateLog(ctx context.Context, limit int, fn store.Integrator) (store.LogHead, int, error) {
	if limit < 1 || limit > store.MaxLogBatch {
		return store.LogHead{}, 0, store.ErrInvalid.With(fmt.Sprintf("an integration takes 1 to %d events", store.MaxLogBatch))
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return store.LogHead{}, 0, mapErr(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it is a no-op
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, logLockKey); err != nil {
		return store.LogHead{}, 0, mapErr(err)
	}
	head, err := readHead(ctx, tx)
	if err != nil {
		return store.LogHead{}, 0, err
	}
	seqs, pending, err := readPending(ctx, tx, limit)
	if err != nil {
		return store.LogHead{}, 0, err
	}
	batch, ok, err := fn(head, pending, txHashReader(ctx, tx))
	if err != nil || !ok {
		return head, 0, err
	}
	if err := store.CheckBatch(head, pending, batch); err != nil {
		return store.LogHead{}, 0, err
	}
	if err := writeBatch(ctx, tx, head, seqs, batch); err != nil {
		return store.LogHead{}, 0, err
	}
	if err := tx.Commit(ctx); err != nil {
		return store.LogHead{}, 0, mapErr(err)
	}
	return batch.Head, len(pending), nil
}

func readHead(ctx context.Context, q pgx.Tx) (store.LogHead, error) {
	var (
		h    store.LogHead
		root []byte
	)
	if err := q.QueryRow(ctx, `SELECT size, root, checkpoint FROM log_head`).Scan(&h.Size, &root, &h.Checkpoint); err != nil {
		return store.LogHead{}, mapErr(err)
	}
	copy(h.Root[:], root)
	return h, nil
}

func readPending(ctx context.Context, tx pgx.Tx, limit int) ([]int64, []store.LogEvent, error) {
	rows, _ := tx.Query(ctx, `SELECT seq, event, digest, sha256, size, at, status, reason,
		publisher, publisher_display_name, publisher_domain, replaced_by
		FROM log_pending ORDER BY seq LIMIT $1`, limit)
	var (
		seqs           []int64
		events         []store.LogEvent
		seq            int64
		ev             store.LogEvent
		digest, sha256 []byte
	)
	err := each(rows, []any{&seq, &ev.Event, &digest, &sha256, &ev.Size, &ev.At, &ev.Status, &ev.Reason,
		&ev.Publisher, &ev.PublisherDisplayName, &ev.PublisherDomain, &ev.ReplacedBy}, func() error {
		copy(ev.Digest[:], digest)
		copy(ev.SHA256[:], sha256)
		ev.At = ev.At.UTC()
		seqs, events = append(seqs, seq), append(events, ev)
		return nil
	})
	return seqs, events, err
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func readHashes(ctx context.Context, q querier, indexes []int64) ([]tlog.Hash, error) {
	rows, _ := q.Query(ctx, `SELECT id, hash FROM log_hashes WHERE id = ANY($1)`, indexes)
	found := make(map[int64]tlog.Hash, len(indexes))
	var (
		id int64
		h  []byte
	)
	if err := each(rows, []any{&id, &h}, func() error { found[id] = tlog.Hash(h); return nil }); err != nil {
		return nil, err
	}
	return store.OrderHashes(indexes, found)
}

func txHashReader(ctx context.Context, tx pgx.Tx) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) { return readHashes(ctx, tx, indexes) })
}

func writeBatch(ctx context.Context, tx pgx.Tx, head store.LogHead, seqs []int64, b store.LogBatch) error {
	if len(b.Records) > 0 {
		idx := make([]int64, len(b.Records))
		digests := make([][]byte, len(b.Records))
		events := make([]string, len(b.Records))
		texts := make([][]byte, len(b.Records))
		for i, r := range b.Records {
			idx[i], digests[i], events[i], texts[i] = r.Index, r.Digest[:], r.Event, r.Text
		}
		if _, err := tx.Exec(ctx, `INSERT INTO log_records (idx, digest, event, text)
			SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::text[], $4::bytea[])`, idx, digests, events, texts); err != nil {
			return mapErr(err)
		}
	}
	if len(b.Hashes) > 0 {
		first := tlog.StoredHashCount(head.Size)
		ids := make([]int64, len(b.Hashes))
		hashes := make([][]byte, len(b.Hashes))
		for i := range b.Hashes {
			ids[i], hashes[i] = first+int64(i), b.Hashes[i][:]
		}
		if _, err := tx.Exec(ctx, `INSERT INTO log_hashes (id, hash) SELECT * FROM unnest($1::bigint[], $2::bytea[])`, ids, hashes); err != nil {
			return mapErr(err)
		}
	}
	if len(seqs) > 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM log_pending WHERE seq = ANY($1)`, seqs); err != nil {
			return mapErr(err)
		}
	}
	_, err := tx.Exec(ctx, `UPDATE log_head SET size = $1, root = $2, checkpoint = $3`, b.Head.Size, b.Head.Root[:], b.Head.Checkpoint)
	return mapErr(err)
}

// LogHead returns the latest head.
func (s *Store) LogHead(ctx context.Context) (store.LogHead, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var (
		h    store.LogHead
		root []byte
	)
	if err := s.pool.QueryRow(ctx, `SELECT size, root, checkpoint FROM log_head`).Scan(&h.Size, &root, &h.Checkpoint); err != nil {
		return store.LogHead{}, mapErr(err)
	}
	copy(h.Root[:], root)
	return h, nil
}

// LogHashes reads stored hashes.
func (s *Store) LogHashes(ctx context.Context, indexes []int64) ([]tlog.Hash, error) {
	if err := store.CheckHashIndexes(indexes); err != nil {
		return nil, err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	return readHashes(ctx, s.pool, indexes)
}

// LogRecords returns records from index from on.
func (s *Store) LogRecords(ctx context.Context, from int64, n int) ([]store.LogRecord, error) {
	if err := store.CheckRecordRange(from, n); err != nil {
		return nil, err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, `SELECT idx, digest, event, text FROM log_records WHERE idx >= $1 ORDER BY idx LIMIT $2`, from, n)
	return collect(rows, func(row pgx.Row) (r store.LogRecord, err error) {
		var digest []byte
		err = row.Scan(&r.Index, &digest, &r.Event, &r.Text)
		copy(r.Digest[:], digest)
		return r, err
	})
}

// LogLookup returns the index of a document's first record.
func (s *Store) LogLookup(ctx context.Context, d protocol.Digest) (int64, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	// One statement, so one snapshot: with two, an integration committing
	// between them would move the record out of log_pending after the
	// first missed it in log_records, and a logged document would read as
	// not logged.
	var (
		idx     *int64
		pending bool
	)
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT idx FROM log_records WHERE digest = $1 ORDER BY idx LIMIT 1),
		EXISTS (SELECT FROM log_pending WHERE digest = $1)`, d[:]).Scan(&idx, &pending); err != nil {
		return 0, mapErr(err)
	}
	switch {
	case idx != nil:
		return *idx, nil
	case pending:
		return 0, store.ErrLogPending
	}
	return 0, store.ErrNotFound
}

// LogSigningKey returns the stored signing key, storing a generated one
// when there is none.
func (s *Store) LogSigningKey(ctx context.Context, generate func() (string, error)) (string, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var skey string
	err := s.pool.QueryRow(ctx, `SELECT skey FROM log_key`).Scan(&skey)
	if err == nil {
		return skey, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", mapErr(err)
	}
	gen, err := generate()
	if err != nil {
		return "", err
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO log_key (skey) VALUES ($1) ON CONFLICT DO NOTHING`, gen); err != nil {
		return "", mapErr(err)
	}
	err = s.pool.QueryRow(ctx, `SELECT skey FROM log_key`).Scan(&skey)
	return skey, mapErr(err)
}
