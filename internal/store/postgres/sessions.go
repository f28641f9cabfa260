package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/store"
)

// CreateSession stores a session and deletes the expired ones.
func (s *Store) CreateSession(ctx context.Context, se store.Session) error {
	se.Publishers = store.NonNil(se.Publishers)
	ctx, cancel := s.op(ctx)
	defer cancel()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, se.CreatedAt); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO sessions (id_hash, subject, email, admin, publishers, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, se.IDHash[:], se.Subject, se.Email, se.Admin, se.Publishers, se.CreatedAt, se.ExpiresAt)
		return err
	})
	if errors.Is(mapErr(err), store.ErrConflict) {
		return store.ErrConflict.With("a session with this id exists already")
	}
	return mapErr(err)
}

// SessionByID returns a session that has not expired at now.
func (s *Store) SessionByID(ctx context.Context, idHash [32]byte, now time.Time) (store.Session, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var (
		se store.Session
		id []byte
	)
	err := s.pool.QueryRow(ctx, `SELECT id_hash, subject, email, admin, publishers, created_at, expires_at
		FROM sessions WHERE id_hash = $1 AND expires_at > $2`, idHash[:], now).
		Scan(&id, &se.Subject, &se.Email, &se.Admin, &se.Publishers, &se.CreatedAt, &se.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Session{}, store.ErrNotFound.With("no such session")
	}
	if err != nil {
		return store.Session{}, mapErr(err)
	}
	if len(id) != len(se.IDHash) {
		return store.Session{}, fmt.Errorf("postgres: session with a malformed id hash")
	}
	se.IDHash = [32]byte(id)
	se.CreatedAt, se.ExpiresAt = se.CreatedAt.UTC(), se.ExpiresAt.UTC()
	return se, nil
}

// DeleteSession ends a session.
func (s *Store) DeleteSession(ctx context.Context, idHash [32]byte) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	_, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE id_hash = $1`, idHash[:])
	return mapErr(err)
}
