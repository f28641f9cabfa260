package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// MaxWithdrawReasonRunes limits the reason stored with a withdrawal.
const MaxWithdrawReasonRunes = 1000

var errBadReason = store.ErrInvalid.With(fmt.Sprintf(
	"the withdrawal reason must be valid UTF-8 of at most %d characters", MaxWithdrawReasonRunes))

// Put stores a document idempotently. ON CONFLICT DO NOTHING waits for a
// concurrent insert of the same digest to commit, so of many concurrent
// Puts exactly one inserts (created=true); the others read its row.
func (s *Store) Put(ctx context.Context, nd store.NewDocument) (store.Entry, bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	values, err := insertValues(nd)
	if err != nil {
		return store.Entry{}, false, err
	}
	var (
		created   time.Time
		withdrawn *time.Time
	)
	err = s.pool.QueryRow(ctx, `INSERT INTO documents (`+insertColumns+`) VALUES (`+insertParams+`)
		ON CONFLICT (digest) DO NOTHING
		RETURNING created_at, withdrawn_at`, values...).Scan(&created, &withdrawn)
	switch {
	case err == nil:
		return entryFromInsert(nd, created, withdrawn), true, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return store.Entry{}, false, mapErr(err)
	}
	e, err := s.get(ctx, nd.Document.Sums.SHA1, false)
	if err != nil {
		return store.Entry{}, false, err
	}
	return e, false, nil
}

// putManyStaging holds one PutMany batch inside its transaction; it is
// per-session and emptied at commit.
const putManyStaging = `CREATE TEMP TABLE IF NOT EXISTS put_many_staging (
	ord int NOT NULL, digest bytea NOT NULL, sha256 bytea NOT NULL, content bytea NOT NULL, size int NOT NULL,
	title text NOT NULL, description text NOT NULL, multiround bool NOT NULL, tags text[] NOT NULL,
	version text NOT NULL, supersedes bytea, authors text[] NOT NULL, license text NOT NULL,
	front_matter bool NOT NULL, lints jsonb NOT NULL, origin text NOT NULL,
	created_at timestamptz, withdrawn_at timestamptz, withdraw_reason text NOT NULL,
	meta_text text NOT NULL, body_text text NOT NULL
) ON COMMIT DELETE ROWS`

// stagedValues reads put_many_staging (s) in insertColumns order; h.head
// is the row's headVector, computed once.
var stagedValues = `digest, sha256, content, size, title, description, multiround, tags, version, supersedes,
	authors, license, front_matter, lints, origin, coalesce(created_at, now()), withdrawn_at, withdraw_reason,
	h.head, h.head || ` + bodyVector("s.body_text") + `
	FROM put_many_staging s CROSS JOIN LATERAL (SELECT ` + headVector("s.title", "s.meta_text") + ` AS head) h`

// PutMany stores a batch in one transaction: COPY into a staging table,
// then one INSERT … ON CONFLICT DO NOTHING. Rows go in digest order, so
// concurrent batches that overlap take their row locks in the same order
// and cannot deadlock; among duplicates in one batch the first is created.
func (s *Store) PutMany(ctx context.Context, docs []store.NewDocument) ([]bool, error) {
	created := make([]bool, len(docs))
	if len(docs) == 0 {
		return created, nil
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows := make([][]any, len(docs))
	for i, nd := range docs {
		values, err := insertValues(nd)
		if err != nil {
			return nil, fmt.Errorf("document %d of the batch: %w", i, err)
		}
		rows[i] = append([]any{i}, values...)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, putManyStaging); err != nil {
			return err
		}
		columns := []string{"ord", "digest", "sha256", "content", "size", "title", "description", "multiround", "tags",
			"version", "supersedes", "authors", "license", "front_matter", "lints", "origin",
			"created_at", "withdrawn_at", "withdraw_reason", "meta_text", "body_text"}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"put_many_staging"}, columns, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		inserted, err := tx.Query(ctx, `INSERT INTO documents (`+insertColumns+`)
			SELECT `+stagedValues+` ORDER BY s.digest, s.ord
			ON CONFLICT (digest) DO NOTHING
			RETURNING digest`)
		if err != nil {
			return err
		}
		firstIndex := make(map[protocol.Digest]int, len(docs))
		for i := len(docs) - 1; i >= 0; i-- {
			firstIndex[docs[i].Document.Sums.SHA1] = i
		}
		var digest []byte
		_, err = pgx.ForEachRow(inserted, []any{&digest}, func() error {
			if i, ok := firstIndex[protocol.Digest(digest)]; ok && len(digest) == protocol.DigestSize {
				created[i] = true
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, mapErr(err)
	}
	n := 0
	for _, c := range created {
		if c {
			n++
		}
	}
	s.maybeAnalyze(ctx, n)
	return created, nil
}

// Withdraw tombstones an entry. A second withdrawal keeps the first's time
// and reason.
func (s *Store) Withdraw(ctx context.Context, d protocol.Digest, reason string) error {
	if !utf8.ValidString(reason) || utf8.RuneCountInString(reason) > MaxWithdrawReasonRunes {
		return errBadReason
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	tag, err := s.pool.Exec(ctx, `UPDATE documents
		SET withdrawn_at = coalesce(withdrawn_at, now()),
		    withdraw_reason = CASE WHEN withdrawn_at IS NULL THEN $2 ELSE withdraw_reason END
		WHERE digest = $1`, d[:], reason)
	if err != nil {
		return mapErr(err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}
