package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// IntegrateLog runs one integration in a write transaction: the one write
// connection (and BEGIN IMMEDIATE across processes) makes it the only one.
func (s *Store) IntegrateLog(ctx context.Context, limit int, fn store.Integrator) (store.LogHead, int, error) {
	if limit < 1 || limit > store.MaxLogBatch {
		return store.LogHead{}, 0, store.ErrInvalid.With(fmt.Sprintf("an integration takes 1 to %d events", store.MaxLogBatch))
	}
	var (
		out   store.LogHead
		taken int
	)
	errNothing := errors.New("nothing to write")
	err := s.inWriteTx(ctx, func(tx *sql.Tx) error {
		head, err := readHead(ctx, tx)
		if err != nil {
			return err
		}
		seqs, pending, err := readPending(ctx, tx, limit)
		if err != nil {
			return err
		}
		batch, ok, err := fn(head, pending, tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
			return readHashes(ctx, tx, indexes)
		}))
		if err != nil {
			return err
		}
		if !ok {
			out = head
			return errNothing
		}
		if err := store.CheckBatch(head, pending, batch); err != nil {
			return err
		}
		out, taken = batch.Head, len(pending)
		return writeBatch(ctx, tx, head, seqs, batch)
	})
	if errors.Is(err, errNothing) {
		return out, 0, nil
	}
	if err != nil {
		return store.LogHead{}, 0, err
	}
	return out, taken, nil
}

// rowQuerier is a *sql.DB or a *sql.Tx.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func readHead(ctx context.Context, q rowQuerier) (store.LogHead, error) {
	var (
		h    store.LogHead
		root []byte
	)
	if err := q.QueryRowContext(ctx, `SELECT size, root, checkpoint FROM log_head`).Scan(&h.Size, &root, &h.Checkpoint); err != nil {
		return store.LogHead{}, mapErr(err)
	}
	copy(h.Root[:], root)
	return h, nil
}

func readPending(ctx context.Context, tx *sql.Tx, limit int) ([]int64, []store.LogEvent, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, event, hex, sha256, size, at, status, reason,
		publisher, publisher_display_name, publisher_domain, replaced_by
		FROM log_pending ORDER BY seq LIMIT ?`, limit)
	var (
		seqs    []int64
		events  []store.LogEvent
		seq, at int64
		hex     string
		sha256  []byte
		ev      store.LogEvent
	)
	err = each(rows, err, []any{&seq, &ev.Event, &hex, &sha256, &ev.Size, &at, &ev.Status, &ev.Reason,
		&ev.Publisher, &ev.PublisherDisplayName, &ev.PublisherDomain, &ev.ReplacedBy}, func() error {
		var err error
		ev.Digest, err = protocol.ParseDigest(hex)
		copy(ev.SHA256[:], sha256)
		ev.At = time.UnixMicro(at).UTC()
		seqs, events = append(seqs, seq), append(events, ev)
		return err
	})
	return seqs, events, err
}

func readHashes(ctx context.Context, q rowQuerier, indexes []int64) ([]tlog.Hash, error) {
	ids := make([]any, len(indexes))
	for i, x := range indexes {
		ids[i] = x
	}
	rows, err := q.QueryContext(ctx, `SELECT id, hash FROM log_hashes WHERE id IN (SELECT value FROM json_each(?))`, jsonText(ids))
	found := make(map[int64]tlog.Hash, len(indexes))
	var (
		id int64
		h  []byte
	)
	if err := each(rows, err, []any{&id, &h}, func() error {
		found[id] = tlog.Hash(h)
		return nil
	}); err != nil {
		return nil, err
	}
	return store.OrderHashes(indexes, found)
}

func writeBatch(ctx context.Context, tx *sql.Tx, head store.LogHead, seqs []int64, b store.LogBatch) error {
	// One prepared statement per table for the batch, not one parse per row.
	rec, err := tx.PrepareContext(ctx, `INSERT INTO log_records (idx, hex, event, text) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer rec.Close()
	for _, r := range b.Records {
		if _, err := rec.ExecContext(ctx, r.Index, r.Digest.Hex(), r.Event, r.Text); err != nil {
			return err
		}
	}
	hash, err := tx.PrepareContext(ctx, `INSERT INTO log_hashes (id, hash) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer hash.Close()
	first := tlog.StoredHashCount(head.Size)
	for i, h := range b.Hashes {
		if _, err := hash.ExecContext(ctx, first+int64(i), h[:]); err != nil {
			return err
		}
	}
	if len(seqs) > 0 {
		ids := make([]any, len(seqs))
		for i, x := range seqs {
			ids[i] = x
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM log_pending WHERE seq IN (SELECT value FROM json_each(?))`, jsonText(ids)); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE log_head SET size = ?, root = ?, checkpoint = ?`, b.Head.Size, b.Head.Root[:], b.Head.Checkpoint)
	return err
}

// LogHead returns the latest head.
func (s *Store) LogHead(ctx context.Context) (store.LogHead, error) {
	return readHead(ctx, s.read)
}

// LogHashes reads stored hashes.
func (s *Store) LogHashes(ctx context.Context, indexes []int64) ([]tlog.Hash, error) {
	if err := store.CheckHashIndexes(indexes); err != nil {
		return nil, err
	}
	return readHashes(ctx, s.read, indexes)
}

// LogRecords returns records from index from on.
func (s *Store) LogRecords(ctx context.Context, from int64, n int) ([]store.LogRecord, error) {
	if err := store.CheckRecordRange(from, n); err != nil {
		return nil, err
	}
	return queryAll(ctx, s.read, func(sc scanner) (r store.LogRecord, err error) {
		var hex string
		if err = sc.Scan(&r.Index, &hex, &r.Event, &r.Text); err == nil {
			r.Digest, err = protocol.ParseDigest(hex)
		}
		return r, err
	}, `SELECT idx, hex, event, text FROM log_records WHERE idx >= ? ORDER BY idx LIMIT ?`, from, n)
}

// LogLookup returns the index of a document's first record.
func (s *Store) LogLookup(ctx context.Context, d protocol.Digest) (int64, error) {
	// One statement, so one snapshot (as in the PostgreSQL store).
	var (
		idx     sql.NullInt64
		pending bool
	)
	if err := s.read.QueryRowContext(ctx, `SELECT (SELECT idx FROM log_records WHERE hex = ?1 ORDER BY idx LIMIT 1),
		EXISTS (SELECT 1 FROM log_pending WHERE hex = ?1)`, d.Hex()).Scan(&idx, &pending); err != nil {
		return 0, mapErr(err)
	}
	switch {
	case idx.Valid:
		return idx.Int64, nil
	case pending:
		return 0, store.ErrLogPending
	}
	return 0, store.ErrNotFound
}

// LogSigningKey returns the stored signing key, storing a generated one
// when there is none.
func (s *Store) LogSigningKey(ctx context.Context, generate func() (string, error)) (string, error) {
	var skey string
	err := s.inWriteTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT skey FROM log_key`).Scan(&skey)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if skey, err = generate(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO log_key (one, skey, created_at) VALUES (1, ?, ?)`, skey, time.Now().UnixMicro())
		return err
	})
	return skey, err
}
