package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/agora-registry/registry/internal/store"
)

// CreateSession stores a session and deletes the expired ones.
func (s *Store) CreateSession(ctx context.Context, se store.Session) error {
	se.Publishers = store.NonNil(se.Publishers)
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?`, se.CreatedAt.UnixMicro()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id_hash, subject, email, admin, publishers, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, se.IDHash[:], se.Subject, se.Email, se.Admin, jsonText(se.Publishers),
			se.CreatedAt.UnixMicro(), se.ExpiresAt.UnixMicro())
		if isConstraint(err) {
			return store.ErrConflict.With("a session with this id exists already")
		}
		return err
	})
}

// SessionByID returns a session that has not expired at now.
func (s *Store) SessionByID(ctx context.Context, idHash [32]byte, now time.Time) (store.Session, error) {
	var (
		se               store.Session
		id               []byte
		pubs             string
		created, expires int64
	)
	err := s.read.QueryRowContext(ctx, `SELECT id_hash, subject, email, admin, publishers, created_at, expires_at
		FROM sessions WHERE id_hash = ? AND expires_at > ?`, idHash[:], now.UnixMicro()).
		Scan(&id, &se.Subject, &se.Email, &se.Admin, &pubs, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Session{}, store.ErrNotFound.With("no such session")
	}
	if err != nil {
		return store.Session{}, mapErr(err)
	}
	if len(id) != len(se.IDHash) || json.Unmarshal([]byte(pubs), &se.Publishers) != nil {
		return store.Session{}, errors.New("sqlite: corrupt session row")
	}
	se.IDHash = [32]byte(id)
	se.CreatedAt, se.ExpiresAt = fromMicros(created), fromMicros(expires)
	return se, nil
}

// DeleteSession ends a session.
func (s *Store) DeleteSession(ctx context.Context, idHash [32]byte) error {
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id_hash = ?`, idHash[:])
		return err
	})
}
