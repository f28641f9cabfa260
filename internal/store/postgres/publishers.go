package postgres

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

const publisherColumns = `name, display_name, verified_domain, verified_at, challenge_domain, challenge, created_at`

func scanPublisher(row pgx.Row) (entity.Publisher, error) {
	var p entity.Publisher
	if err := row.Scan(&p.Name, &p.DisplayName, &p.VerifiedDomain, &p.VerifiedAt, &p.ChallengeDomain, &p.Challenge, &p.CreatedAt); err != nil {
		return entity.Publisher{}, err
	}
	p.VerifiedAt = entity.InUTC(p.VerifiedAt)
	p.CreatedAt = p.CreatedAt.UTC()
	return p, nil
}

// CreatePublisher stores a new account.
func (s *Store) CreatePublisher(ctx context.Context, p entity.Publisher) (entity.Publisher, error) {
	if err := store.CheckNewPublisher(p); err != nil {
		return entity.Publisher{}, err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	out, err := scanPublisher(s.pool.QueryRow(ctx, `INSERT INTO publishers (name, display_name) VALUES ($1, $2)
		ON CONFLICT (name) DO NOTHING RETURNING `+publisherColumns, p.Name, p.DisplayName))
	if errors.Is(err, pgx.ErrNoRows) {
		return entity.Publisher{}, store.ErrPublisherTaken
	}
	return out, mapErr(err)
}

// GetPublisher returns one account.
func (s *Store) GetPublisher(ctx context.Context, name string) (entity.Publisher, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	p, err := scanPublisher(s.pool.QueryRow(ctx, `SELECT `+publisherColumns+` FROM publishers WHERE name = $1`, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return entity.Publisher{}, store.ErrPublisherUnknown
	}
	return p, mapErr(err)
}

// ListPublishers lists accounts by name.
func (s *Store) ListPublishers(ctx context.Context) ([]entity.Publisher, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT `+publisherColumns+` FROM publishers ORDER BY name COLLATE "C" LIMIT $1`, store.MaxPublishers)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, scanPublisher)
}

// SetChallenge records a pending verification.
func (s *Store) SetChallenge(ctx context.Context, name, domain, challenge string) error {
	return s.updatePublisher(ctx, `UPDATE publishers SET challenge_domain = $2, challenge = $3 WHERE name = $1`, name, domain, challenge)
}

// MarkVerified records a verified domain.
func (s *Store) MarkVerified(ctx context.Context, name, domain string, at time.Time) error {
	return s.updatePublisher(ctx, `UPDATE publishers SET verified_domain = $2, verified_at = $3, challenge_domain = '', challenge = '' WHERE name = $1`,
		name, domain, at)
}

func (s *Store) updatePublisher(ctx context.Context, sql string, args ...any) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	tag, err := s.pool.Exec(ctx, sql, args...)
	if err != nil {
		return mapErr(err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrPublisherUnknown
	}
	return nil
}

func utf8RunesOver(s string, n int) bool {
	return !utf8.ValidString(s) || utf8.RuneCountInString(s) > n
}
