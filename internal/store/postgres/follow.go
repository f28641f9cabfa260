package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// FollowState returns an upstream's state.
func (s *Store) FollowState(ctx context.Context, upstream string) (store.FollowState, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	st := store.FollowState{Upstream: upstream}
	err := s.pool.QueryRow(ctx, `SELECT applied, verifier_key, checkpoint, forked, evidence FROM follow_state WHERE upstream = $1`, upstream).
		Scan(&st.Applied, &st.VerifierKey, &st.Checkpoint, &st.Forked, &st.Evidence)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.FollowState{}, store.ErrNotFound
	}
	return st, mapErr(err)
}

// SaveFollowState stores an upstream's state.
func (s *Store) SaveFollowState(ctx context.Context, st store.FollowState) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	_, err := s.pool.Exec(ctx, `INSERT INTO follow_state (upstream, applied, verifier_key, checkpoint, forked, evidence) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (upstream) DO UPDATE SET applied = $2, verifier_key = $3, checkpoint = $4, forked = $5, evidence = $6, updated_at = now()`,
		st.Upstream, st.Applied, st.VerifierKey, st.Checkpoint, st.Forked, st.Evidence)
	return mapErr(err)
}

// SaveFollowDocs stores what upstreams' logs say of documents.
func (s *Store) SaveFollowDocs(ctx context.Context, fds []store.FollowDoc) error {
	if len(fds) == 0 {
		return nil
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	return mapErr(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var b pgx.Batch
		for _, fd := range fds {
			var repl []byte
			if fd.Replacement != nil {
				repl = fd.Replacement[:]
			}
			b.Queue(`INSERT INTO follow_docs (digest, upstream, idx, status, message, replacement, publisher,
				publisher_display_name, publisher_domain, quarantine) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
				ON CONFLICT (digest, upstream) DO UPDATE SET idx = $3, status = $4, message = $5, replacement = $6, publisher = $7,
				publisher_display_name = $8, publisher_domain = $9, quarantine = $10`,
				fd.Digest[:], fd.Upstream, fd.Index, string(fd.Status), fd.Message, repl, fd.Publisher,
				fd.PublisherDisplayName, fd.PublisherDomain, fd.Quarantine)
		}
		return tx.SendBatch(ctx, &b).Close()
	}))
}

const followDocColumns = `digest, upstream, idx, status, message, replacement, publisher, publisher_display_name, publisher_domain, quarantine`

func scanFollowDocs(rows pgx.Rows) ([]store.FollowDoc, error) {
	return pgx.AppendRows([]store.FollowDoc(nil), rows, func(row pgx.CollectableRow) (fd store.FollowDoc, err error) {
		var (
			digest, repl []byte
			status       string
		)
		err = row.Scan(&digest, &fd.Upstream, &fd.Index, &status, &fd.Message, &repl, &fd.Publisher,
			&fd.PublisherDisplayName, &fd.PublisherDomain, &fd.Quarantine)
		copy(fd.Digest[:], digest)
		fd.Status = entity.Status(status)
		if repl != nil {
			var r protocol.Digest
			copy(r[:], repl)
			fd.Replacement = &r
		}
		return fd, err
	})
}

// FollowDocs lists what every upstream's log says of each of ds.
func (s *Store) FollowDocs(ctx context.Context, ds []protocol.Digest) ([]store.FollowDoc, error) {
	if err := store.CheckResolveSize(len(ds)); err != nil || len(ds) == 0 {
		return nil, err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT `+followDocColumns+` FROM follow_docs WHERE digest = ANY($1) ORDER BY digest, upstream`, digestKeys(ds))
	if err != nil {
		return nil, mapErr(err)
	}
	out, err := scanFollowDocs(rows)
	return out, mapErr(err)
}

// FollowQuarantine lists an upstream's quarantined documents.
func (s *Store) FollowQuarantine(ctx context.Context, upstream string, limit int) ([]store.FollowDoc, int, error) {
	if limit < 1 || limit > store.MaxFollowQuarantine {
		return nil, 0, store.ErrInvalid.With("a quarantine listing takes 1 to 1000 rows")
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM follow_docs WHERE upstream = $1 AND quarantine <> ''`, upstream).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+followDocColumns+` FROM follow_docs WHERE upstream = $1 AND quarantine <> ''
		ORDER BY idx DESC LIMIT $2`, upstream, limit)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	out, err := scanFollowDocs(rows)
	return out, total, mapErr(err)
}

// FollowPublisherSeen reports whether the upstream attested publisher.
func (s *Store) FollowPublisherSeen(ctx context.Context, upstream, publisher string) (bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var seen bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM follow_docs WHERE upstream = $1 AND publisher = $2)`, upstream, publisher).Scan(&seen)
	return seen, mapErr(err)
}

// FollowWithdrawn lists documents the upstream withdrew that are served here.
func (s *Store) FollowWithdrawn(ctx context.Context, upstream string, limit int) ([]protocol.Digest, error) {
	if limit < 1 || limit > store.MaxFollowQuarantine {
		return nil, store.ErrInvalid.With("a listing of withdrawals takes 1 to 1000 rows")
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, `SELECT f.digest FROM follow_docs f JOIN documents d ON d.digest = f.digest
		WHERE f.upstream = $1 AND f.status = 'withdrawn' AND f.quarantine = '' AND d.withdrawn_at IS NULL ORDER BY f.idx LIMIT $2`, upstream, limit)
	return collect(rows, func(r pgx.Row) (d protocol.Digest, err error) {
		var b []byte
		err = r.Scan(&b)
		copy(d[:], b)
		return d, err
	})
}
