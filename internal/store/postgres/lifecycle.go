package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// SetStatus applies a status change and records it, in one transaction.
func (s *Store) SetStatus(ctx context.Context, d protocol.Digest, c store.StatusChange) (entity.Entry, error) {
	if err := c.Check(); err != nil {
		return entity.Entry{}, err
	}
	if c.Status == entity.StatusWithdrawn && utf8RunesOver(c.Message, MaxWithdrawReasonRunes) {
		return entity.Entry{}, errBadReason
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	var replacement []byte
	if c.Replacement != nil {
		replacement = c.Replacement[:]
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var withdrawn *time.Time
		err := tx.QueryRow(ctx, `SELECT withdrawn_at FROM documents WHERE digest = $1 FOR UPDATE`, d[:]).Scan(&withdrawn)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return store.ErrNotFound
		case err != nil:
			return err
		case withdrawn != nil && c.Status == entity.StatusWithdrawn:
			return nil // the first withdrawal stands
		case withdrawn != nil:
			return store.ErrWithdrawn
		}
		switch c.Status {
		case entity.StatusWithdrawn:
			_, err = tx.Exec(ctx, `UPDATE documents SET withdrawn_at = now(), withdraw_reason = $2 WHERE digest = $1`, d[:], c.Message)
			if err == nil {
				err = restoreSuperseded(ctx, tx, d)
			}
		case entity.StatusActive:
			_, err = tx.Exec(ctx, `UPDATE documents SET status = 'active', status_message = '', replacement = NULL, status_at = now(),
				demoted = demoted & ~2 WHERE digest = $1`, d[:])
		default:
			_, err = tx.Exec(ctx, `UPDATE documents SET status = $2, status_message = $3, replacement = $4, status_at = now(),
				demoted = demoted | 2 WHERE digest = $1`, d[:], string(c.Status), c.Message, replacement)
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO document_history (digest, actor, status, message, replacement) VALUES ($1, $2, $3, $4, $5)`,
			d[:], c.Actor, string(c.Status), c.Message, replacement)
		if err != nil || c.Log == nil {
			return err
		}
		// now() is the transaction's time: the history's and status_at's.
		_, err = tx.Exec(ctx, `INSERT INTO log_pending (event, digest, sha256, size, at, status, reason,
				publisher, publisher_display_name, publisher_domain, replaced_by)
			SELECT $2, d.digest, d.sha256, d.size, now(), $3, $4, d.publisher, coalesce(p.display_name, ''), coalesce(p.verified_domain, ''), $5
			FROM documents d LEFT JOIN publishers p ON p.name = d.publisher WHERE d.digest = $1`,
			d[:], c.Log.Event, c.Log.Status, c.Log.Reason, c.Log.ReplacedBy)
		return err
	})
	if err != nil {
		return entity.Entry{}, mapErr(err)
	}
	if c.Status == entity.StatusWithdrawn {
		s.wrote()
	}
	e, err := s.get(ctx, d, false)
	if errors.Is(err, store.ErrWithdrawn) {
		return e, nil
	}
	return e, err
}

// History lists a document's newest store.MaxHistory changes, oldest first.
func (s *Store) History(ctx context.Context, d protocol.Digest) ([]entity.HistoryEvent, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, `SELECT at, actor, status, message, replacement FROM
		(SELECT id, at, actor, status, message, replacement FROM document_history WHERE digest = $1 ORDER BY id DESC LIMIT $2) AS h
		ORDER BY id`, d[:], store.MaxHistory)
	out, err := pgx.AppendRows([]entity.HistoryEvent{}, rows, func(row pgx.CollectableRow) (ev entity.HistoryEvent, err error) {
		var (
			status      string
			replacement []byte
		)
		err = row.Scan(&ev.At, &ev.Actor, &status, &ev.Message, &replacement)
		ev.At, ev.Status = ev.At.UTC(), entity.Status(status)
		if err == nil && replacement != nil {
			var r protocol.Digest
			r, err = store.StoredDigest(replacement)
			ev.Replacement = &r
		}
		return ev, err
	})
	return out, mapErr(err)
}

// lineageSQL walks supersedes up and down from $1 through documents of its
// publisher only; each walk is read lazily and cut at $2 rows, so a lineage
// costs at most a few hundred index probes however it branches.
const lineageSQL = `WITH RECURSIVE
	me AS (SELECT digest, publisher, supersedes FROM documents WHERE digest = $1),
	up(digest, supersedes, n) AS (
		SELECT digest, supersedes, 0 FROM me
		UNION
		SELECT d.digest, d.supersedes, up.n + 1 FROM documents d JOIN up ON d.digest = up.supersedes
			WHERE d.publisher = (SELECT publisher FROM me) AND up.n < $2),
	down(digest, n) AS (
		SELECT digest, 0 FROM me
		UNION
		SELECT d.digest, down.n + 1 FROM documents d JOIN down ON d.supersedes = down.digest
			WHERE d.publisher = (SELECT publisher FROM me) AND d.withdrawn_at IS NULL AND down.n < $2)
	SELECT ` + entryColumns + ` FROM documents
	WHERE digest IN ((SELECT digest FROM up LIMIT $2) UNION (SELECT digest FROM down LIMIT $2)) AND withdrawn_at IS NULL
	ORDER BY created_at, digest LIMIT $2`

// Lineage lists d's lineage within its publisher, oldest first.
func (s *Store) Lineage(ctx context.Context, d protocol.Digest) ([]entity.Entry, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	return s.queryEntries(ctx, lineageSQL, d[:], store.MaxLineage)
}

// catalogWindowSQL reads a window of positions newest first. keep is the
// latest-only test: no listed successor by the same publisher
// (documents_supersedes_own_idx).
const catalogWindowSQL = `SELECT created_at, digest,
		CASE WHEN $1 THEN NOT EXISTS (SELECT 1 FROM documents s
			WHERE s.supersedes = d.digest AND s.publisher = d.publisher AND s.withdrawn_at IS NULL) ELSE true END
	FROM documents d
	WHERE withdrawn_at IS NULL AND ($2 = '' OR publisher = $2) AND (created_at, digest) < ($3, $4)
	ORDER BY created_at DESC, digest DESC LIMIT $5`

// Catalog pages through listed entries newest first, by publisher and/or
// lineage heads.
func (s *Store) Catalog(ctx context.Context, q store.CatalogQuery) (store.Page, error) {
	q, err := q.Normalize()
	if err != nil {
		return store.Page{}, err
	}
	after, err := q.After()
	if err != nil {
		return store.Page{}, err
	}
	before, beforeDigest := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), make([]byte, protocol.DigestSize+1)
	if after != nil {
		before, beforeDigest = after.CreatedAt, after.Digest[:]
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, catalogWindowSQL, q.LatestOnly, q.Publisher, before, beforeDigest, q.Window())
	window, err := collect(rows, func(row pgx.Row) (r store.CatalogRow, err error) {
		var digest []byte
		if err = row.Scan(&r.CreatedAt, &digest, &r.Keep); err == nil {
			r.Digest, err = store.StoredDigest(digest)
		}
		return r, err
	})
	if err != nil {
		return store.Page{}, err
	}
	digests, next := q.Pick(window)
	page := store.Page{NextCursor: next, Entries: []entity.Entry{}}
	if len(digests) == 0 {
		return page, nil
	}
	page.Entries, err = s.queryEntries(ctx, `SELECT `+entryColumns+` FROM documents
		WHERE digest = ANY($1::bytea[]) ORDER BY created_at DESC, digest DESC`, digestKeys(digests))
	return page, err
}

// restoreSuperseded: a withdrawn version no longer demotes the one it
// supersedes (bit 1 of demoted), unless another listed version of the same
// publisher does; bit 2 (deprecated) is SetStatus's.
func restoreSuperseded(ctx context.Context, tx pgx.Tx, withdrawn protocol.Digest) error {
	_, err := tx.Exec(ctx, `UPDATE documents p SET demoted = p.demoted & ~1
		FROM documents w
		WHERE w.digest = $1 AND p.digest = w.supersedes AND p.demoted & 1 <> 0 AND NOT EXISTS (
			SELECT FROM documents n WHERE n.supersedes = p.digest AND n.publisher = p.publisher
			AND n.withdrawn_at IS NULL)`, withdrawn[:])
	return err
}

// RestoreLifecycle sets a never-changed document's status and history as
// an archive recorded them.
func (s *Store) RestoreLifecycle(ctx context.Context, d protocol.Digest, lc entity.Lifecycle, history []entity.HistoryEvent) (bool, error) {
	if err := store.CheckRestore(d, lc, history); err != nil {
		return false, err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	bytesOf := func(r *protocol.Digest) []byte {
		if r == nil {
			return nil
		}
		return r[:]
	}
	restored := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var changed bool
		err := tx.QueryRow(ctx, `SELECT status_at IS NOT NULL OR EXISTS (SELECT 1 FROM document_history WHERE digest = $1)
			FROM documents WHERE digest = $1 FOR UPDATE`, d[:]).Scan(&changed)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return store.ErrNotFound
		case err != nil || changed:
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE documents SET status = $2, status_message = $3, replacement = $4, status_at = $5,
			demoted = CASE WHEN $2 = 'deprecated' THEN demoted | 2 ELSE demoted & ~2 END WHERE digest = $1`,
			d[:], string(lc.Status), lc.Message, bytesOf(lc.Replacement), lc.ChangedAt); err != nil {
			return err
		}
		for _, ev := range history {
			if _, err := tx.Exec(ctx, `INSERT INTO document_history (digest, at, actor, status, message, replacement) VALUES ($1, $2, $3, $4, $5, $6)`,
				d[:], ev.At, ev.Actor, string(ev.Status), ev.Message, bytesOf(ev.Replacement)); err != nil {
				return err
			}
		}
		restored = true
		return nil
	})
	if err != nil {
		return false, mapErr(err)
	}
	return restored, nil
}
