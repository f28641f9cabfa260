package postgres

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// entryColumns are the columns scanEntry reads, in order; content is never
// among them (contentColumn is appended when it is wanted).
const entryColumns = `digest, sha256, size, title, description, multiround, tags, version, supersedes,
	authors, license, front_matter, lints, origin, created_at, withdrawn_at, withdraw_reason, publisher,
	status, status_message, replacement, status_at, demoted`

const contentColumn = `, content`

// collect reads every row with scan and closes rows; the query's own
// error, which pgx defers to rows, included.
func collect[T any](rows pgx.Rows, scan func(pgx.Row) (T, error)) ([]T, error) {
	out, err := pgx.AppendRows([]T(nil), rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
	return out, mapErr(err)
}

// each reads every row into dest, calling fn after each, and closes rows.
// The database's errors (the query's too) are mapped; fn's are returned as
// they are.
func each(rows pgx.Rows, dest []any, fn func() error) error {
	var fnErr error
	_, err := pgx.ForEachRow(rows, dest, func() error { fnErr = fn(); return fnErr })
	if fnErr != nil {
		return fnErr
	}
	return mapErr(err)
}

// scanEntry reads entryColumns (and, with withContent, content) from a row.
// extra receives further selected columns after those.
func scanEntry(row pgx.Row, withContent bool, extra ...any) (entity.Entry, error) {
	var (
		e          entity.Entry
		digest     []byte
		sha        []byte
		supersedes []byte
		lints      []byte
		withdrawn  *time.Time
		status     string
		replaced   []byte
		demoted    int16
		m          = &e.Metadata
		lc         = &e.Lifecycle
	)
	dest := []any{&digest, &sha, &e.Size, &m.Title, &m.Description, &m.Multiround, &m.Tags, &m.Version, &supersedes,
		&m.Authors, &m.License, &m.FrontMatter, &lints, &e.Origin, &e.CreatedAt, &withdrawn, &e.WithdrawReason, &e.Publisher,
		&status, &lc.Message, &replaced, &lc.ChangedAt, &demoted}
	if withContent {
		dest = append(dest, &e.Content)
	}
	dest = append(dest, extra...)
	if err := row.Scan(dest...); err != nil {
		return entity.Entry{}, err
	}
	if len(digest) != protocol.DigestSize || len(sha) != len(e.SHA256) {
		return entity.Entry{}, fmt.Errorf("postgres: stored row has a malformed digest (%d/%d bytes)", len(digest), len(sha))
	}
	e.Digest = protocol.Digest(digest)
	e.Demoted = entity.Demotion(demoted)
	e.SHA256 = [32]byte(sha)
	if supersedes != nil {
		if len(supersedes) != protocol.DigestSize {
			return entity.Entry{}, fmt.Errorf("postgres: stored row %s has a malformed supersedes digest", e.Digest)
		}
		d := protocol.Digest(supersedes)
		m.Supersedes = &d
	}
	if len(lints) > 0 {
		if err := json.Unmarshal(lints, &e.Lints); err != nil {
			return entity.Entry{}, fmt.Errorf("postgres: stored lints of %s: %w", e.Digest, err)
		}
	}
	if len(e.Lints) == 0 {
		e.Lints = nil
	}
	e.CreatedAt = e.CreatedAt.UTC()
	if withdrawn != nil {
		w := withdrawn.UTC()
		e.WithdrawnAt = &w
	}
	lc.Status = entity.Status(status)
	if replaced != nil {
		if len(replaced) != protocol.DigestSize {
			return entity.Entry{}, fmt.Errorf("postgres: stored row %s has a malformed replacement digest", e.Digest)
		}
		r := protocol.Digest(replaced)
		lc.Replacement = &r
	}
	if lc.ChangedAt != nil {
		at := lc.ChangedAt.UTC()
		lc.ChangedAt = &at
	}
	return e, nil
}

// insertColumns are the columns an insert writes.
const insertColumns = `digest, sha256, content, size, title, description, multiround, tags, version, supersedes,
	authors, license, front_matter, lints, origin, created_at, withdrawn_at, withdraw_reason,
	head, search, publisher`

// insertParams are the values of insertColumns from insertValues, selected
// from a subquery h that holds the head vector (headVector of $5 and $19);
// a zero creation time is now. $19 is the description and tags as one
// text, $20 the body's distinct words, $21 the publisher.
var insertParams = `$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, coalesce($16, now()), $17, $18,
	h.head, ` + searchVector("h.head", "$20") + `, $21`

func insertValues(nd store.NewDocument) ([]any, error) {
	d := nd.Document
	m := d.Metadata
	if d.Sums.SHA1.IsZero() || len(d.Content) == 0 {
		return nil, store.ErrInvalid.With("postgres: the document was not prepared (no digest or no content)")
	}
	var supersedes []byte
	if m.Supersedes != nil {
		supersedes = m.Supersedes[:]
	}
	if !utf8.ValidString(nd.WithdrawReason) || utf8.RuneCountInString(nd.WithdrawReason) > MaxWithdrawReasonRunes {
		return nil, errBadReason
	}
	var createdAt, withdrawnAt *time.Time
	if !nd.CreatedAt.IsZero() {
		createdAt = &nd.CreatedAt
	}
	if nd.WithdrawnAt != nil {
		withdrawnAt = nd.WithdrawnAt
	}
	lintJSON, err := json.Marshal(store.NonNil(d.Lints))
	if err != nil {
		return nil, fmt.Errorf("postgres: encoding lints: %w", err)
	}
	publisher, err := entity.PublisherOr(nd.Publisher)
	if err != nil {
		return nil, err
	}
	tags := mergeTags(m.Tags, nd.ExtraTags)
	return []any{
		d.Sums.SHA1[:], d.Sums.SHA256[:], d.Content, len(d.Content), m.Title, m.Description, m.Multiround,
		tags, m.Version, supersedes, store.NonNil(m.Authors), m.License, m.FrontMatter,
		string(lintJSON), nd.Origin, createdAt, withdrawnAt, nd.WithdrawReason,
		metaText(m.Description, tags), distinctWords(bodyText(d.Content)), publisher,
	}, nil
}

// mergeTags is the front matter's tags followed by the extra tags, without
// duplicates, within protocol.MaxTags.
func mergeTags(front, extra []string) []string {
	return store.NonNil(protocol.NormaliseTags(append(append([]string{}, front...), extra...)))
}
