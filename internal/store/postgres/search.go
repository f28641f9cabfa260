package postgres

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/store"
)

// nameKey is the name sort's key. It must be spelled exactly as in the
// documents_name_idx index for the index to serve the sort; "C" orders the
// lower-cased titles by code point, the same on every server.
const nameKey = `(lower(title) COLLATE "C")`

// Rank weights: a query word in the title counts 1, in the description
// or tags 0.4, in the body alone 0. A rank depends only on the row and the
// query, so every page of one query computes the same ranks and keyset
// pagination holds.
const (
	titleWeight = "1.0"
	metaWeight  = "0.4"
)

// searchSQL assembles one parameterised search statement. User text only
// ever reaches the database as parameters (the words of store.Terms); the
// statement's shape depends only on how many words there are.
type searchSQL struct {
	args  []any
	where []string
}

func (b *searchSQL) arg(v any) string {
	b.args = append(b.args, v)
	return fmt.Sprintf("$%d", len(b.args))
}

// Search lists a page of listed entries.
func (s *Store) Search(ctx context.Context, q store.Query) (store.Page, error) {
	q, err := q.Normalize()
	if err != nil {
		return store.Page{}, err
	}
	cur, hasCursor, err := q.DecodeCursor()
	if err != nil {
		return store.Page{}, err
	}
	var curDigest []byte
	if hasCursor {
		if curDigest, err = hex.DecodeString(cur.Hex); err != nil {
			return store.Page{}, store.ErrInvalidCursor
		}
	}

	b := &searchSQL{where: []string{"withdrawn_at IS NULL"}}
	words := queryWords(store.Terms(q.Text))
	if len(words) > 0 {
		b.where = append(b.where, "words @> "+b.arg(words)+"::text[]")
	}
	if len(q.Tags) > 0 {
		b.where = append(b.where, "tags @> "+b.arg(q.Tags)+"::text[]")
	}

	var sql string
	switch q.Sort {
	case store.SortNewest:
		if hasCursor {
			b.where = append(b.where, "(created_at, digest) < ("+b.arg(time.UnixMicro(cur.Time))+"::timestamptz, "+b.arg(curDigest)+"::bytea)")
		}
		sql = `SELECT ` + entryColumns + ` FROM documents WHERE ` + strings.Join(b.where, " AND ") +
			` ORDER BY created_at DESC, digest DESC`
	case store.SortName:
		if hasCursor {
			b.where = append(b.where, "("+nameKey+", digest) > ("+b.arg(cur.Name)+"::text, "+b.arg(curDigest)+"::bytea)")
		}
		sql = `SELECT ` + entryColumns + `, ` + nameKey + ` FROM documents WHERE ` + strings.Join(b.where, " AND ") +
			` ORDER BY ` + nameKey + `, digest`
	case store.SortRelevance:
		var parts []string
		for _, w := range words {
			p := b.arg([]string{w}) + "::text[]"
			parts = append(parts, "(title_words @> "+p+")::int * "+titleWeight+" + (meta_words @> "+p+")::int * "+metaWeight)
		}
		rank := "(" + strings.Join(parts, " + ") + ")::float8"
		inner := `SELECT ` + entryColumns + `, ` + rank + ` AS rank FROM documents WHERE ` + strings.Join(b.where, " AND ")
		outer := "true"
		if hasCursor {
			r := b.arg(cur.Rank) + "::float8"
			outer = "(rank < " + r + " OR (rank = " + r + " AND digest > " + b.arg(curDigest) + "::bytea))"
		}
		sql = `SELECT * FROM (` + inner + `) AS hits WHERE ` + outer + ` ORDER BY rank DESC, digest`
	default:
		return store.Page{}, store.ErrInvalid.With(fmt.Sprintf("unknown sort %q", q.Sort))
	}
	// One row more than the page tells whether there is a next page.
	sql += " LIMIT " + b.arg(q.Limit+1)

	ctx, cancel := s.op(ctx)
	defer cancel()
	var page store.Page
	if len(words) == 0 {
		page, err = runSearch(ctx, s.pool, q, sql, b.args)
	} else {
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			// The planner does not count the cost of reading the out-of-line
			// word arrays, so for common words it picks a sequential scan
			// that decompresses every row's words. Matches must come from
			// the GIN index.
			if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off"); err != nil {
				return err
			}
			page, err = runSearch(ctx, tx, q, sql, b.args)
			return err
		})
	}
	return page, mapErr(err)
}

// querier is what runSearch needs from a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func runSearch(ctx context.Context, db querier, q store.Query, sql string, args []any) (store.Page, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return store.Page{}, mapErr(err)
	}
	defer rows.Close()
	page := store.Page{Entries: make([]store.Entry, 0, q.Limit)}
	var last store.Cursor
	for rows.Next() {
		if len(page.Entries) == q.Limit {
			page.NextCursor = q.EncodeCursor(last)
			break
		}
		e, c, err := scanSearchRow(rows, q.Sort)
		if err != nil {
			return store.Page{}, mapErr(err)
		}
		page.Entries = append(page.Entries, e)
		last = c
	}
	if err := rows.Err(); err != nil {
		return store.Page{}, mapErr(err)
	}
	return page, nil
}

// scanSearchRow reads one result and the cursor that points after it.
func scanSearchRow(rows pgx.Rows, sort store.Sort) (store.Entry, store.Cursor, error) {
	var (
		e   store.Entry
		err error
		c   store.Cursor
	)
	switch sort {
	case store.SortName:
		e, err = scanEntry(rows, false, &c.Name)
	case store.SortRelevance:
		e, err = scanEntry(rows, false, &c.Rank)
	default:
		e, err = scanEntry(rows, false)
		c.Time = e.CreatedAt.UnixMicro()
	}
	c.Hex = e.Digest.Hex()
	return e, c, err
}
