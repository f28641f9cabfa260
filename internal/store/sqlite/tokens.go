package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// Token limits.
const maxTokenNameRunes = 200

const tokenColumns = `id, name, scopes, secret_hash, created_at, last_used_at, revoked_at, publisher, created_by`

func scanToken(sc scanner) (entity.Token, error) {
	var (
		t                entity.Token
		scopes           string
		secret           []byte
		created          int64
		lastUsed, revoke sql.NullInt64
	)
	if err := sc.Scan(&t.ID, &t.Name, &scopes, &secret, &created, &lastUsed, &revoke, &t.Publisher, &t.CreatedBy); err != nil {
		return entity.Token{}, err
	}
	if err := json.Unmarshal([]byte(scopes), &t.Scopes); err != nil || len(secret) != len(t.SecretHash) {
		return entity.Token{}, fmt.Errorf("corrupt token row %d", t.ID)
	}
	copy(t.SecretHash[:], secret)
	t.CreatedAt = fromMicros(created)
	if lastUsed.Valid {
		at := fromMicros(lastUsed.Int64)
		t.LastUsedAt = &at
	}
	if revoke.Valid {
		at := fromMicros(revoke.Int64)
		t.RevokedAt = &at
	}
	return t, nil
}

// CreateToken stores a new token. A secret hash already stored is
// ErrConflict.
func (s *Store) CreateToken(ctx context.Context, publisher, name string, scopes []entity.Scope, secretHash [32]byte, createdBy string) (entity.Token, error) {
	publisher, err := entity.PublisherOr(publisher)
	if err != nil {
		return entity.Token{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > maxTokenNameRunes {
		return entity.Token{}, store.ErrInvalid.With(fmt.Sprintf("a token name is 1 to %d characters", maxTokenNameRunes))
	}
	if len(scopes) == 0 {
		return entity.Token{}, store.ErrInvalid.With("a token needs at least one scope")
	}
	for _, sc := range scopes {
		if !entity.ValidScope(sc) {
			return entity.Token{}, store.ErrInvalid.With(fmt.Sprintf("unknown token scope %q", sc))
		}
	}
	var t entity.Token
	err = s.inWriteTx(ctx, func(tx *sql.Tx) error {
		row := tx.QueryRowContext(ctx, `INSERT INTO api_tokens (name, scopes, secret_hash, created_at, publisher, created_by) VALUES (?, ?, ?, ?, ?, ?)
			RETURNING `+tokenColumns, name, jsonText(scopes), secretHash[:], time.Now().UnixMicro(), publisher, createdBy)
		var err error
		t, err = scanToken(row)
		if isConstraint(err) {
			return store.ErrConflict.With("a token with this secret exists already")
		}
		return err
	})
	return t, err
}

// TokenBySecret finds an unrevoked token by its secret's hash.
func (s *Store) TokenBySecret(ctx context.Context, secretHash [32]byte) (entity.Token, error) {
	t, err := scanToken(s.read.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM api_tokens
		WHERE secret_hash = ? AND revoked_at IS NULL`, secretHash[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return entity.Token{}, store.ErrTokenUnknown
	}
	return t, mapErr(err)
}

// ListTokens lists every token, revoked ones too, oldest first.
func (s *Store) ListTokens(ctx context.Context) ([]entity.Token, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+tokenColumns+` FROM api_tokens ORDER BY id`)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, scanToken)
}

// RevokeToken revokes a token; revoking twice keeps the first time.
func (s *Store) RevokeToken(ctx context.Context, id int64) error {
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`,
			time.Now().UnixMicro(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound.With(fmt.Sprintf("no API token with id %d", id))
		}
		return nil
	})
}

// TouchToken records when a token was last used.
func (s *Store) TouchToken(ctx context.Context, id int64, at time.Time) error {
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_tokens SET last_used_at = ? WHERE id = ?`, at.UnixMicro(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound.With(fmt.Sprintf("no API token with id %d", id))
		}
		return nil
	})
}
