package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// The listing's statements are constant text with the open ends as
// infinite bounds, so pgx's statement cache (the pool's default query
// mode) parses and plans each once per connection. Both walk
// documents_newest_idx, (created_at, digest), forward.
const (
	listSQL = `SELECT digest, title, description, created_at FROM documents
		WHERE withdrawn_at IS NULL AND (created_at, digest) > ($1, $2) AND (created_at, digest) <= ($3, $4)
		ORDER BY created_at, digest LIMIT $5`
	listEndSQL = `SELECT created_at, digest FROM documents
		WHERE withdrawn_at IS NULL AND (created_at, digest) > ($1, $2)
		ORDER BY created_at, digest OFFSET $3 LIMIT 2`
	listedCountSQL = `SELECT coalesce(sum(listed), 0)::bigint FROM document_counts`
)

var (
	beforeAll = pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
	afterAll  = pgtype.Timestamptz{InfinityModifier: pgtype.Infinity, Valid: true}
	// lastDigest sorts after every 20-byte digest.
	lastDigest = make([]byte, 21)
)

func init() {
	for i := range lastDigest {
		lastDigest[i] = 0xff
	}
}

// bound is a position as statement arguments; nil is the open end.
func bound(p *store.ListPosition, open pgtype.Timestamptz, openDigest []byte) (pgtype.Timestamptz, []byte) {
	if p == nil {
		return open, openDigest
	}
	return pgtype.Timestamptz{Time: p.CreatedAt, Valid: true}, p.Digest[:]
}

// List calls fn for each listed entry of r, oldest first.
func (s *Store) List(ctx context.Context, r store.ListRange, fn func(store.Listed) error) error {
	if err := r.Check(); err != nil {
		return err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	afterTime, afterDigest := bound(r.After, beforeAll, nil)
	throughTime, throughDigest := bound(r.Through, afterAll, lastDigest)
	rows, _ := s.pool.Query(ctx, listSQL, afterTime, afterDigest, throughTime, throughDigest, r.Limit)
	var (
		l      store.Listed
		digest []byte
	)
	return each(rows, []any{&digest, &l.Title, &l.Description, &l.CreatedAt}, func() error {
		l.Digest = protocol.Digest(digest)
		l.CreatedAt = l.CreatedAt.UTC()
		return fn(l)
	})
}

// ListEnd finds the end of a page of n. From the start, the listed count
// (a sum of a few counter rows) answers most calls without a walk.
func (s *Store) ListEnd(ctx context.Context, after *store.ListPosition, n int) (*store.ListPosition, error) {
	if err := store.CheckListEnd(n); err != nil {
		return nil, err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	if after == nil {
		var listed int64
		if err := s.pool.QueryRow(ctx, listedCountSQL).Scan(&listed); err != nil {
			return nil, mapErr(err)
		}
		if listed <= int64(n) {
			return nil, nil
		}
	}
	afterTime, afterDigest := bound(after, beforeAll, nil)
	rows, _ := s.pool.Query(ctx, listEndSQL, afterTime, afterDigest, n-1)
	found, err := collect(rows, func(r pgx.Row) (p store.ListPosition, err error) {
		var digest []byte
		if err = r.Scan(&p.CreatedAt, &digest); err == nil {
			p.CreatedAt, p.Digest = p.CreatedAt.UTC(), protocol.Digest(digest)
		}
		return p, err
	})
	if err != nil {
		return nil, err
	}
	if len(found) < 2 {
		return nil, nil // the n-th is the last, or there are fewer
	}
	return &found[0], nil
}
