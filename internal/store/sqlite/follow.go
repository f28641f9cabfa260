package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// FollowState returns an upstream's state.
func (s *Store) FollowState(ctx context.Context, upstream string) (store.FollowState, error) {
	st := store.FollowState{Upstream: upstream}
	err := s.read.QueryRowContext(ctx, `SELECT applied, verifier_key, checkpoint, forked, evidence FROM follow_state WHERE upstream = ?`, upstream).
		Scan(&st.Applied, &st.VerifierKey, &st.Checkpoint, &st.Forked, &st.Evidence)
	if errors.Is(err, sql.ErrNoRows) {
		return store.FollowState{}, store.ErrNotFound
	}
	return st, mapErr(err)
}

// SaveFollowState stores an upstream's state.
func (s *Store) SaveFollowState(ctx context.Context, st store.FollowState) error {
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO follow_state (upstream, applied, verifier_key, checkpoint, forked, evidence, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (upstream) DO UPDATE SET applied = excluded.applied, verifier_key = excluded.verifier_key,
			checkpoint = excluded.checkpoint, forked = excluded.forked, evidence = excluded.evidence, updated_at = excluded.updated_at`,
			st.Upstream, st.Applied, st.VerifierKey, st.Checkpoint, st.Forked, st.Evidence, time.Now().UnixMicro())
		return err
	})
}

// SaveFollowDocs stores what upstreams' logs say of documents.
func (s *Store) SaveFollowDocs(ctx context.Context, fds []store.FollowDoc) error {
	if len(fds) == 0 {
		return nil
	}
	return s.inWriteTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO follow_docs (hex, upstream, idx, status, message, replacement, publisher,
			publisher_display_name, publisher_domain, quarantine) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (hex, upstream) DO UPDATE SET idx = excluded.idx, status = excluded.status, message = excluded.message,
			replacement = excluded.replacement, publisher = excluded.publisher, publisher_display_name = excluded.publisher_display_name,
			publisher_domain = excluded.publisher_domain, quarantine = excluded.quarantine`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, fd := range fds {
			var repl any
			if fd.Replacement != nil {
				repl = fd.Replacement.Hex()
			}
			if _, err := stmt.ExecContext(ctx, fd.Digest.Hex(), fd.Upstream, fd.Index, string(fd.Status), fd.Message, repl, fd.Publisher,
				fd.PublisherDisplayName, fd.PublisherDomain, fd.Quarantine); err != nil {
				return err
			}
		}
		return nil
	})
}

const followDocColumns = `hex, upstream, idx, status, message, replacement, publisher, publisher_display_name, publisher_domain, quarantine`

func scanFollowDocs(rows *sql.Rows) ([]store.FollowDoc, error) {
	return collect(rows, func(sc scanner) (fd store.FollowDoc, err error) {
		var (
			hex    string
			status string
			repl   sql.NullString
		)
		if err := sc.Scan(&hex, &fd.Upstream, &fd.Index, &status, &fd.Message, &repl, &fd.Publisher,
			&fd.PublisherDisplayName, &fd.PublisherDomain, &fd.Quarantine); err != nil {
			return fd, err
		}
		fd.Status = entity.Status(status)
		if fd.Digest, err = protocol.ParseDigest(hex); err != nil || !repl.Valid {
			return fd, err
		}
		r, err := protocol.ParseDigest(repl.String)
		fd.Replacement = &r
		return fd, err
	})
}

// FollowDocs lists what every upstream's log says of each of ds.
func (s *Store) FollowDocs(ctx context.Context, ds []protocol.Digest) ([]store.FollowDoc, error) {
	if err := store.CheckResolveSize(len(ds)); err != nil || len(ds) == 0 {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+followDocColumns+` FROM follow_docs
		WHERE hex IN (SELECT value FROM json_each(?)) ORDER BY hex, upstream`, hexJSON(ds))
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
	var total int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM follow_docs WHERE upstream = ? AND quarantine <> ''`, upstream).Scan(&total); err != nil {
		return nil, 0, mapErr(err)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+followDocColumns+` FROM follow_docs WHERE upstream = ? AND quarantine <> ''
		ORDER BY idx DESC LIMIT ?`, upstream, limit)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	out, err := scanFollowDocs(rows)
	return out, total, mapErr(err)
}

// FollowPublisherSeen reports whether the upstream attested publisher.
func (s *Store) FollowPublisherSeen(ctx context.Context, upstream, publisher string) (bool, error) {
	var one int
	err := s.read.QueryRowContext(ctx, `SELECT 1 FROM follow_docs WHERE upstream = ? AND publisher = ? LIMIT 1`, upstream, publisher).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, mapErr(err)
}

// FollowWithdrawn lists documents the upstream withdrew that are served here.
func (s *Store) FollowWithdrawn(ctx context.Context, upstream string, limit int) ([]protocol.Digest, error) {
	if limit < 1 || limit > store.MaxFollowQuarantine {
		return nil, store.ErrInvalid.With("a listing of withdrawals takes 1 to 1000 rows")
	}
	return queryAll(ctx, s.read, func(sc scanner) (protocol.Digest, error) {
		var hex string
		if err := sc.Scan(&hex); err != nil {
			return protocol.Digest{}, err
		}
		return protocol.ParseDigest(hex)
	}, `SELECT f.hex FROM follow_docs f JOIN documents d ON d.hex = f.hex
		WHERE f.upstream = ? AND f.status = 'withdrawn' AND f.quarantine = '' AND d.withdrawn_at IS NULL ORDER BY f.idx LIMIT ?`, upstream, limit)
}
