package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// eachChunk is how many rows Each reads per query: export streams the
// whole store without one long-running query or unbounded memory.
const eachChunk = 200

// Get returns one entry; a withdrawn one comes with ErrWithdrawn.
func (s *Store) Get(ctx context.Context, d protocol.Digest, withContent bool) (entity.Entry, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	e, err := s.get(ctx, d, withContent)
	if err != nil {
		return entity.Entry{}, err
	}
	if e.Withdrawn() {
		e.Content = nil
		return e, store.ErrWithdrawn
	}
	return e, nil
}

func (s *Store) get(ctx context.Context, d protocol.Digest, withContent bool) (entity.Entry, error) {
	cols := entryColumns
	if withContent {
		cols += contentColumn
	}
	e, err := scanEntry(s.pool.QueryRow(ctx, `SELECT `+cols+` FROM documents WHERE digest = $1`, d[:]), withContent)
	if errors.Is(err, pgx.ErrNoRows) {
		return entity.Entry{}, store.ErrNotFound
	}
	return e, mapErr(err)
}

// Content is the hot path of raw fetches: one primary-key lookup returning
// only the bytes, the tombstone and the lifecycle.
func (s *Store) Content(ctx context.Context, d protocol.Digest) ([]byte, entity.Lifecycle, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var (
		content   []byte
		withdrawn bool
		lc        entity.Lifecycle
		replaced  []byte
	)
	err := s.pool.QueryRow(ctx, `SELECT content, withdrawn_at IS NOT NULL, status, status_message, replacement, status_at
		FROM documents WHERE digest = $1`, d[:]).Scan(&content, &withdrawn, &lc.Status, &lc.Message, &replaced, &lc.ChangedAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, lc, store.ErrNotFound
	case err != nil:
		return nil, lc, mapErr(err)
	case withdrawn:
		return nil, lc, store.ErrWithdrawn
	}
	if replaced != nil {
		r, err := store.StoredDigest(replaced)
		if err != nil {
			return nil, lc, err
		}
		lc.Replacement = &r
	}
	return content, lc, nil
}

// Successors lists listed entries that supersede d: d's publisher's first,
// then others', each oldest first, at most store.MaxSuccessors. Each part
// walks its own index (documents_supersedes_own_idx, documents_supersedes_idx)
// and stops at the cap, so the work does not grow with the number of claims.
func (s *Store) Successors(ctx context.Context, d protocol.Digest) ([]entity.Entry, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	return s.queryEntries(ctx, successorsSQL, d[:], store.MaxSuccessors)
}

// successorsSQL: $1 the digest, $2 the cap; own is d's publisher (the empty name when
// d is not stored: no publisher has that name).
const successorsSQL = `WITH own AS (SELECT coalesce((SELECT p.publisher FROM documents p WHERE p.digest = $1), '') AS name)
	SELECT * FROM (
		(SELECT ` + entryColumns + ` FROM documents
			WHERE supersedes = $1 AND withdrawn_at IS NULL AND publisher = (SELECT name FROM own)
			ORDER BY created_at, digest LIMIT $2)
		UNION ALL
		(SELECT ` + entryColumns + ` FROM documents
			WHERE supersedes = $1 AND withdrawn_at IS NULL AND publisher <> (SELECT name FROM own)
			ORDER BY created_at, digest LIMIT $2)) AS successors
	ORDER BY publisher = (SELECT name FROM own) DESC, created_at, digest LIMIT $2`

func (s *Store) queryEntries(ctx context.Context, sql string, args ...any) ([]entity.Entry, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, func(r pgx.Row) (entity.Entry, error) { return scanEntry(r, false) })
}

// Each visits every entry with content in creation order (digest order
// among equal times, as on SQLite, so documents_newest_idx serves it), a
// chunk per query, so fn may take its time without holding a query open.
func (s *Store) Each(ctx context.Context, fn func(entity.Entry) error) error {
	var after *entity.Entry // nil: from the start
	for {
		chunk, err := s.eachChunk(ctx, after)
		if err != nil {
			return err
		}
		for _, e := range chunk {
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(chunk) < eachChunk {
			return nil
		}
		after = &chunk[len(chunk)-1]
	}
}

// eachChunk reads the chunk after the entry after (nil: the first chunk).
func (s *Store) eachChunk(ctx context.Context, after *entity.Entry) ([]entity.Entry, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	const sql = `SELECT ` + entryColumns + contentColumn + ` FROM documents %s ORDER BY created_at, digest LIMIT $1`
	var (
		rows pgx.Rows
		err  error
	)
	if after == nil {
		rows, err = s.pool.Query(ctx, fmt.Sprintf(sql, ""), eachChunk)
	} else {
		rows, err = s.pool.Query(ctx, fmt.Sprintf(sql, "WHERE (created_at, digest) > ($2, $3)"), eachChunk, after.CreatedAt, after.Digest[:])
	}
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, func(r pgx.Row) (entity.Entry, error) { return scanEntry(r, true) })
}
