package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Limits of this engine's reads.
const (
	// eachBatch is how many entries Each reads per query, so an export
	// never holds one read transaction open for the whole database.
	eachBatch = 256
)

// Get returns one entry; a withdrawn one comes with ErrWithdrawn.
func (s *Store) Get(ctx context.Context, d protocol.Digest, withContent bool) (entity.Entry, error) {
	var (
		e       entity.Entry
		err     error
		content []byte
	)
	if withContent {
		e, err = scanEntry(s.read.QueryRowContext(ctx, `SELECT `+entryColumns+`, c.content
			FROM documents d JOIN contents c ON c.id = d.id WHERE d.hex = ?`, d.Hex()), &content)
		e.Content = content
	} else {
		e, err = scanEntry(s.read.QueryRowContext(ctx, `SELECT `+entryColumns+` FROM documents d WHERE d.hex = ?`, d.Hex()))
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return entity.Entry{}, store.ErrNotFound
	case err != nil:
		return entity.Entry{}, mapErr(err)
	case e.Withdrawn():
		e.Content = nil
		return e, store.ErrWithdrawn
	}
	return e, nil
}

// Content returns the exact stored bytes and the lifecycle.
func (s *Store) Content(ctx context.Context, d protocol.Digest) ([]byte, entity.Lifecycle, error) {
	var (
		withdrawn, changed sql.NullInt64
		content            []byte
		lc                 entity.Lifecycle
		status             string
		replaced           sql.NullString
	)
	err := s.read.QueryRowContext(ctx, `SELECT d.withdrawn_at, c.content, d.status, d.status_message, d.replacement, d.status_at
		FROM documents d JOIN contents c ON c.id = d.id WHERE d.hex = ?`, d.Hex()).Scan(&withdrawn, &content, &status, &lc.Message, &replaced, &changed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, lc, store.ErrNotFound
	case err != nil:
		return nil, lc, mapErr(err)
	case withdrawn.Valid:
		return nil, lc, store.ErrWithdrawn
	}
	lc.Status = entity.Status(status)
	if replaced.Valid {
		r, err := protocol.ParseDigest(replaced.String)
		if err != nil {
			return nil, lc, mapErr(err)
		}
		lc.Replacement = &r
	}
	if changed.Valid {
		at := fromMicros(changed.Int64)
		lc.ChangedAt = &at
	}
	return content, lc, nil
}

// Successors lists listed entries that supersede d: d's publisher's first,
// then others', each oldest first, at most store.MaxSuccessors. Each part
// walks its own index (documents_supersedes_own, documents_supersedes) and
// stops at the cap, so the work does not grow with the number of claims.
func (s *Store) Successors(ctx context.Context, d protocol.Digest) ([]entity.Entry, error) {
	return s.queryEntries(ctx, successorsSQL, d.Hex(), store.MaxSuccessors)
}

// successorsSQL: ?1 the digest, ?2 the cap; own is d's publisher (the empty name when d
// is not stored: no publisher has that name).
const successorsSQL = `WITH own AS (SELECT coalesce((SELECT p.publisher FROM documents p WHERE p.hex = ?1), '') AS name)
	SELECT * FROM (
		SELECT * FROM (SELECT ` + entryColumns + ` FROM documents d
			WHERE d.supersedes = ?1 AND d.withdrawn_at IS NULL AND d.publisher = (SELECT name FROM own)
			ORDER BY d.created_at, d.hex LIMIT ?2)
		UNION ALL
		SELECT * FROM (SELECT ` + entryColumns + ` FROM documents d
			WHERE d.supersedes = ?1 AND d.withdrawn_at IS NULL AND d.publisher <> (SELECT name FROM own)
			ORDER BY d.created_at, d.hex LIMIT ?2))
	ORDER BY publisher = (SELECT name FROM own) DESC, created_at, hex LIMIT ?2`

// queryEntries runs a query of entryColumns.
func (s *Store) queryEntries(ctx context.Context, query string, args ...any) ([]entity.Entry, error) {
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, func(sc scanner) (entity.Entry, error) { return scanEntry(sc) })
}

// Each calls fn for every entry with content in creation order, reading in
// keyset batches.
func (s *Store) Each(ctx context.Context, fn func(entity.Entry) error) error {
	afterTime, afterHex := int64(-1<<63), ""
	for {
		batch, err := s.eachBatch(ctx, afterTime, afterHex)
		if err != nil {
			return err
		}
		for _, e := range batch {
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(batch) < eachBatch {
			return nil
		}
		last := batch[len(batch)-1]
		afterTime, afterHex = last.CreatedAt.UnixMicro(), last.Digest.Hex()
	}
}

func (s *Store) eachBatch(ctx context.Context, afterTime int64, afterHex string) ([]entity.Entry, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+entryColumns+`, c.content FROM documents d JOIN contents c ON c.id = d.id
		WHERE (d.created_at, d.hex) > (?, ?) ORDER BY d.created_at, d.hex LIMIT ?`, afterTime, afterHex, eachBatch)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, func(sc scanner) (entity.Entry, error) {
		var content []byte
		e, err := scanEntry(sc, &content)
		e.Content = content
		return e, err
	})
}
