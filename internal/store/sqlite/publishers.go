package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

const publisherColumns = `name, display_name, verified_domain, verified_at, challenge_domain, challenge, created_at`

func scanPublisher(sc scanner) (entity.Publisher, error) {
	var (
		p        entity.Publisher
		verified sql.NullInt64
		created  int64
	)
	if err := sc.Scan(&p.Name, &p.DisplayName, &p.VerifiedDomain, &verified, &p.ChallengeDomain, &p.Challenge, &created); err != nil {
		return entity.Publisher{}, err
	}
	if verified.Valid {
		at := fromMicros(verified.Int64)
		p.VerifiedAt = &at
	}
	p.CreatedAt = fromMicros(created)
	return p, nil
}

// CreatePublisher stores a new account.
func (s *Store) CreatePublisher(ctx context.Context, p entity.Publisher) (entity.Publisher, error) {
	if err := store.CheckNewPublisher(p); err != nil {
		return entity.Publisher{}, err
	}
	var out entity.Publisher
	err := s.inWriteTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = scanPublisher(tx.QueryRowContext(ctx, `INSERT INTO publishers (name, display_name, created_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO NOTHING RETURNING `+publisherColumns, p.Name, p.DisplayName, time.Now().UnixMicro()))
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrPublisherTaken
		}
		return err
	})
	return out, err
}

// GetPublisher returns one account.
func (s *Store) GetPublisher(ctx context.Context, name string) (entity.Publisher, error) {
	p, err := scanPublisher(s.read.QueryRowContext(ctx, `SELECT `+publisherColumns+` FROM publishers WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return entity.Publisher{}, store.ErrPublisherUnknown
	}
	return p, mapErr(err)
}

// ListPublishers lists accounts by name.
func (s *Store) ListPublishers(ctx context.Context) ([]entity.Publisher, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+publisherColumns+` FROM publishers ORDER BY name LIMIT ?`, store.MaxPublishers)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, scanPublisher)
}

// SetChallenge records a pending verification.
func (s *Store) SetChallenge(ctx context.Context, name, domain, challenge string) error {
	return s.updatePublisher(ctx, `UPDATE publishers SET challenge_domain = ?, challenge = ? WHERE name = ?`, domain, challenge, name)
}

// MarkVerified records a verified domain.
func (s *Store) MarkVerified(ctx context.Context, name, domain string, at time.Time) error {
	return s.updatePublisher(ctx, `UPDATE publishers SET verified_domain = ?, verified_at = ?, challenge_domain = '', challenge = '' WHERE name = ?`,
		domain, at.UnixMicro(), name)
}

func (s *Store) updatePublisher(ctx context.Context, query string, args ...any) error {
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrPublisherUnknown
		}
		return nil
	})
}
