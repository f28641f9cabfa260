package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agora-registry/registry/internal/store"
)

// FollowState returns an upstream's state.
func (s *Store) FollowState(ctx context.Context, upstream string) (store.FollowState, error) {
	st := store.FollowState{Upstream: upstream}
	err := s.read.QueryRowContext(ctx, `SELECT applied, verifier_key, checkpoint, forked FROM follow_state WHERE upstream = ?`, upstream).
		Scan(&st.Applied, &st.VerifierKey, &st.Checkpoint, &st.Forked)
	if errors.Is(err, sql.ErrNoRows) {
		return store.FollowState{}, store.ErrNotFound
	}
	return st, mapErr(err)
}

// SaveFollowState stores an upstream's state.
func (s *Store) SaveFollowState(ctx context.Context, st store.FollowState) error {
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO follow_state (upstream, applied, verifier_key, checkpoint, forked, updated_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (upstream) DO UPDATE SET applied = excluded.applied, verifier_key = excluded.verifier_key,
			checkpoint = excluded.checkpoint, forked = excluded.forked, updated_at = excluded.updated_at`,
			st.Upstream, st.Applied, st.VerifierKey, st.Checkpoint, st.Forked, time.Now().UnixMicro())
		return err
	})
}
