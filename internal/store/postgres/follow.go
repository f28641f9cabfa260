package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/store"
)

// FollowState returns an upstream's state.
func (s *Store) FollowState(ctx context.Context, upstream string) (store.FollowState, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	st := store.FollowState{Upstream: upstream}
	err := s.pool.QueryRow(ctx, `SELECT applied, verifier_key, checkpoint, forked FROM follow_state WHERE upstream = $1`, upstream).
		Scan(&st.Applied, &st.VerifierKey, &st.Checkpoint, &st.Forked)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.FollowState{}, store.ErrNotFound
	}
	return st, mapErr(err)
}

// SaveFollowState stores an upstream's state.
func (s *Store) SaveFollowState(ctx context.Context, st store.FollowState) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	_, err := s.pool.Exec(ctx, `INSERT INTO follow_state (upstream, applied, verifier_key, checkpoint, forked) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (upstream) DO UPDATE SET applied = $2, verifier_key = $3, checkpoint = $4, forked = $5, updated_at = now()`,
		st.Upstream, st.Applied, st.VerifierKey, st.Checkpoint, st.Forked)
	return mapErr(err)
}
