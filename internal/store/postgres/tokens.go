package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// MaxTokenNameRunes limits a token's name.
const MaxTokenNameRunes = 200

const tokenColumns = `id, name, scopes, secret_hash, created_at, last_used_at, revoked_at, publisher, created_by`

func scanToken(row pgx.Row) (entity.Token, error) {
	var (
		t      entity.Token
		scopes []string
		secret []byte
	)
	if err := row.Scan(&t.ID, &t.Name, &scopes, &secret, &t.CreatedAt, &t.LastUsedAt, &t.RevokedAt, &t.Publisher, &t.CreatedBy); err != nil {
		return entity.Token{}, err
	}
	if len(secret) != len(t.SecretHash) {
		return entity.Token{}, fmt.Errorf("postgres: token %d has a malformed secret hash", t.ID)
	}
	t.SecretHash = [32]byte(secret)
	for _, sc := range scopes {
		t.Scopes = append(t.Scopes, entity.Scope(sc))
	}
	t.CreatedAt = t.CreatedAt.UTC()
	t.LastUsedAt = entity.InUTC(t.LastUsedAt)
	t.RevokedAt = entity.InUTC(t.RevokedAt)
	return t, nil
}

// CreateToken stores a token; a secret hash already in use is ErrConflict.
func (s *Store) CreateToken(ctx context.Context, publisher, name string, scopes []entity.Scope, secretHash [32]byte, createdBy string) (entity.Token, error) {
	publisher, err := entity.PublisherOr(publisher)
	if err != nil {
		return entity.Token{}, err
	}
	if name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > MaxTokenNameRunes {
		return entity.Token{}, store.ErrInvalid.With(fmt.Sprintf("a token name is 1 to %d characters of valid UTF-8", MaxTokenNameRunes))
	}
	if len(scopes) == 0 {
		return entity.Token{}, store.ErrInvalid.With("a token needs at least one scope")
	}
	names := make([]string, len(scopes))
	for i, sc := range scopes {
		if !entity.ValidScope(sc) {
			return entity.Token{}, store.ErrInvalid.With(fmt.Sprintf("unknown token scope %q: use read, publish or admin", sc))
		}
		names[i] = string(sc)
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	t, err := scanToken(s.pool.QueryRow(ctx, `INSERT INTO api_tokens (name, scopes, secret_hash, publisher, created_by) VALUES ($1, $2, $3, $4, $5)
		RETURNING `+tokenColumns, name, names, secretHash[:], publisher, createdBy))
	if errors.Is(mapErr(err), store.ErrConflict) {
		return entity.Token{}, store.ErrConflict.With("a token with this secret already exists")
	}
	return t, mapErr(err)
}

// TokenBySecret finds an unrevoked token.
func (s *Store) TokenBySecret(ctx context.Context, secretHash [32]byte) (entity.Token, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	t, err := scanToken(s.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens
		WHERE secret_hash = $1 AND revoked_at IS NULL`, secretHash[:]))
	if errors.Is(err, pgx.ErrNoRows) {
		return entity.Token{}, store.ErrTokenUnknown
	}
	return t, mapErr(err)
}

// ListTokens lists every token, revoked ones too, oldest first.
func (s *Store) ListTokens(ctx context.Context) ([]entity.Token, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT `+tokenColumns+` FROM api_tokens ORDER BY id`)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, scanToken)
}

// RevokeToken revokes a token; revoking twice keeps the first time.
func (s *Store) RevokeToken(ctx context.Context, id int64) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	tag, err := s.pool.Exec(ctx, `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1`, id)
	if err != nil {
		return mapErr(err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound.With(fmt.Sprintf("no API token with id %d", id))
	}
	return nil
}

// TouchToken records when a token was last used.
func (s *Store) TouchToken(ctx context.Context, id int64, at time.Time) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	tag, err := s.pool.Exec(ctx, `UPDATE api_tokens SET last_used_at = $2 WHERE id = $1`, id, at)
	if err != nil {
		return mapErr(err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound.With(fmt.Sprintf("no API token with id %d", id))
	}
	return nil
}
