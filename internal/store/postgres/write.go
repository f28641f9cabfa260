package postgres

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// MaxWithdrawReasonRunes limits the reason stored with a withdrawal.
const MaxWithdrawReasonRunes = 1000

var errBadReason = store.ErrInvalid.With(fmt.Sprintf(
	"the withdrawal reason must be valid UTF-8 of at most %d characters", MaxWithdrawReasonRunes))

// putSQL inserts a document or, when its digest is stored already, reads
// the stored entry: one round trip either way. Its last column says which.
var putSQL = `WITH inserted AS (
		INSERT INTO documents (` + insertColumns + `)
		SELECT ` + insertParams + ` FROM (SELECT ` + headVector("$5", "$19") + ` AS head) AS h
		ON CONFLICT (digest) DO NOTHING
		RETURNING ` + entryColumns + `),
	matched AS (
		INSERT INTO document_match (digest, doc)
		SELECT digest, ` + matchVector("title", "tags", "description", "$22", "$23") + ` FROM inserted WHERE withdrawn_at IS NULL)
	SELECT ` + entryColumns + `, true FROM inserted
	UNION ALL
	SELECT ` + entryColumns + `, false FROM documents WHERE digest = $1 AND NOT EXISTS (SELECT FROM inserted)`

// Put stores a document idempotently. ON CONFLICT DO NOTHING waits for a
// concurrent insert of the same digest to commit, so of many concurrent
// Puts exactly one inserts (created=true); the others read its row.
func (s *Store) Put(ctx context.Context, nd store.NewDocument) (entity.Entry, bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	values, err := insertValues(nd)
	if err != nil {
		return entity.Entry{}, false, err
	}
	queries, headings := store.MatchText(nd.Document)
	values = append(values, queries, headings)
	var created bool
	e, err := scanEntry(s.pool.QueryRow(ctx, putSQL, values...), false, &created)
	switch {
	case err == nil:
		if created {
			s.wrote()
			s.analyzeSoon()
		}
		return e, created, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return entity.Entry{}, false, mapErr(err)
	}
	// Neither inserted nor seen: a concurrent Put of the same document
	// committed after this statement's snapshot was taken. Read it now.
	e, err = s.get(ctx, nd.Document.Sums.SHA1, false)
	if err != nil {
		return entity.Entry{}, false, err
	}
	return e, false, nil
}

// Withdraw tombstones an entry. A second withdrawal keeps the first's time
// and reason.
func (s *Store) Withdraw(ctx context.Context, d protocol.Digest, reason string) error {
	if !utf8.ValidString(reason) || utf8.RuneCountInString(reason) > MaxWithdrawReasonRunes {
		return errBadReason
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	// A withdrawn version no longer demotes the one it supersedes, unless
	// another listed version of the same publisher does (the subquery sees
	// the withdrawn row as it was, hence the digest test).
	var found int
	err := s.pool.QueryRow(ctx, `WITH withdrawn AS (
			UPDATE documents
			SET withdrawn_at = coalesce(withdrawn_at, now()),
			    withdraw_reason = CASE WHEN withdrawn_at IS NULL THEN $2 ELSE withdraw_reason END
			WHERE digest = $1
			RETURNING supersedes
		), restored AS (
			UPDATE documents p SET demoted = p.demoted & ~1
			FROM withdrawn w
			WHERE p.digest = w.supersedes AND p.demoted & 1 <> 0 AND NOT EXISTS (
				SELECT FROM documents n WHERE n.supersedes = p.digest AND n.publisher = p.publisher
				AND n.withdrawn_at IS NULL AND n.digest <> $1)
		)
		SELECT count(*) FROM withdrawn`, d[:], reason).Scan(&found)
	if err != nil {
		return mapErr(err)
	}
	if found == 0 {
		return store.ErrNotFound
	}
	s.wrote()
	return nil
}
