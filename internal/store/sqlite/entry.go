package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// entryColumns are the columns scanEntry reads, prefixed with the documents
// alias "d".
const entryColumns = `d.hex, d.sha256, d.size, d.title, d.description, d.multiround, d.tags, d.version,
	d.supersedes, d.authors, d.license, d.front_matter, d.lints, d.origin, d.created_at, d.withdrawn_at, d.withdraw_reason,
	d.publisher, d.status, d.status_message, d.replacement, d.status_at, d.demoted`

// scanner is *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// collect reads every row with scan and closes rows.
func collect[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, v)
	}
	return out, mapErr(rows.Err())
}

// queryer is a *sql.DB, a *sql.Conn or a *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryAll runs query and reads every row with scan (collect).
func queryAll[T any](ctx context.Context, q queryer, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	return collect(rows, scan)
}

// each reads every row into dest, calling fn after each, and closes rows.
// The database's errors are mapped; fn's are returned as they are.
func each(rows *sql.Rows, err error, dest []any, fn func() error) error {
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return mapErr(err)
		}
		if err := fn(); err != nil {
			return err
		}
	}
	return mapErr(rows.Err())
}

// scanEntry reads entryColumns, followed by extra destinations.
func scanEntry(sc scanner, extra ...any) (entity.Entry, error) {
	var (
		e                         entity.Entry
		hex, tags, authors, lints string
		sha                       []byte
		supersedes                sql.NullString
		created                   int64
		withdrawn, changed        sql.NullInt64
		status                    string
		replaced                  sql.NullString
	)
	dest := []any{&hex, &sha, &e.Size, &e.Metadata.Title, &e.Metadata.Description, &e.Metadata.Multiround, &tags,
		&e.Metadata.Version, &supersedes, &authors, &e.Metadata.License, &e.Metadata.FrontMatter, &lints, &e.Origin,
		&created, &withdrawn, &e.WithdrawReason, &e.Publisher, &status, &e.Lifecycle.Message, &replaced, &changed, &e.Demoted}
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return entity.Entry{}, err
	}
	d, err := protocol.ParseDigest(hex)
	if err != nil || len(sha) != len(e.SHA256) {
		return entity.Entry{}, fmt.Errorf("corrupt row %q: bad digest", hex)
	}
	e.Digest = d
	copy(e.SHA256[:], sha)
	if supersedes.Valid {
		p, err := protocol.ParseDigest(supersedes.String)
		if err != nil {
			return entity.Entry{}, fmt.Errorf("corrupt row %s: bad supersedes", hex)
		}
		e.Metadata.Supersedes = &p
	}
	if err := json.Unmarshal([]byte(tags), &e.Metadata.Tags); err != nil {
		return entity.Entry{}, fmt.Errorf("corrupt row %s: tags: %w", hex, err)
	}
	e.Metadata.Tags = store.NonNil(e.Metadata.Tags)
	if err := json.Unmarshal([]byte(authors), &e.Metadata.Authors); err != nil {
		return entity.Entry{}, fmt.Errorf("corrupt row %s: authors: %w", hex, err)
	}
	if len(e.Metadata.Authors) == 0 {
		e.Metadata.Authors = nil
	}
	if err := json.Unmarshal([]byte(lints), &e.Lints); err != nil {
		return entity.Entry{}, fmt.Errorf("corrupt row %s: lints: %w", hex, err)
	}
	if len(e.Lints) == 0 {
		e.Lints = nil
	}
	e.CreatedAt = fromMicros(created)
	if withdrawn.Valid {
		t := fromMicros(withdrawn.Int64)
		e.WithdrawnAt = &t
	}
	e.Lifecycle.Status = entity.Status(status)
	if replaced.Valid {
		r, err := protocol.ParseDigest(replaced.String)
		if err != nil {
			return entity.Entry{}, fmt.Errorf("corrupt row %s: bad replacement", hex)
		}
		e.Lifecycle.Replacement = &r
	}
	if changed.Valid {
		t := fromMicros(changed.Int64)
		e.Lifecycle.ChangedAt = &t
	}
	return e, nil
}

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// hexJSON is ds as a JSON array of hex digests (for json_each).
func hexJSON(ds []protocol.Digest) string {
	hexes := make([]string, len(ds))
	for i, d := range ds {
		hexes[i] = d.Hex()
	}
	return jsonText(hexes)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Only string slices and lints are encoded here; they always marshal.
		panic(err)
	}
	return string(b)
}
