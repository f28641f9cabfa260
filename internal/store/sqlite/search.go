package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/agora-registry/registry/internal/store"
)

// maxTagCounts caps one Tags call.
const maxTagCounts = 1000

// Relevance is a tier, not bm25: bm25 depends on statistics of the whole
// index, so every insert would reorder existing rows and keyset pages would
// skip or repeat them. The tier depends on the row alone:
//
//	title holds a query word          +4
//	description or tags hold one      +2
//
// and the score is tier*tierUnit + the row id, so within a tier later
// publishes come first and no two rows tie. A title match outranks a
// description/tag match, which outranks a body-only match, and the whole
// ranking is computed from the full-text index without reading documents.
const tierUnit = 1 << 48

// walkThreshold decides how a filtered newest/name listing runs: with few
// candidates (matches of the words or tags) they are looked up and sorted;
// with many, the sort index is walked and stops after one page.
var walkThreshold = 2000

// quote makes a word an FTS5 string: no operator, column filter or prefix
// syntax typed by a user reaches FTS5.
func quote(word string) string { return `"` + strings.ReplaceAll(word, `"`, `""`) + `"` }

// ftsMatch builds the MATCH expression for all words (AND), or for any word
// (OR) within the given columns.
func ftsMatch(terms []string, any bool, columns string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = quote(t)
	}
	if !any {
		return strings.Join(quoted, " ")
	}
	return "{" + columns + "} : (" + strings.Join(quoted, " OR ") + ")"
}

// Search lists listed entries by query with keyset pagination.
func (s *Store) Search(ctx context.Context, q store.Query) (store.Page, error) {
	q, err := q.Normalize()
	if err != nil {
		return store.Page{}, err
	}
	cur, hasCursor, err := q.DecodeCursor()
	if err != nil {
		return store.Page{}, err
	}
	terms := store.Terms(q.Text)

	var (
		query string
		args  []any
	)
	if q.Sort == store.SortRelevance {
		query, args = relevanceQuery(q, terms, cur, hasCursor)
	} else {
		walk := false
		if len(terms) > 0 || len(q.Tags) > 0 {
			if walk, err = s.manyCandidates(ctx, terms, q.Tags); err != nil {
				return store.Page{}, err
			}
		}
		query, args = listQuery(q, terms, cur, hasCursor, walk)
	}
	args = append(args, q.Limit+1)

	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return store.Page{}, mapErr(err)
	}
	defer rows.Close()
	var (
		page store.Page
		keys []any
	)
	for rows.Next() {
		var key any
		e, err := scanEntry(rows, &key)
		if err != nil {
			return store.Page{}, mapErr(err)
		}
		page.Entries = append(page.Entries, e)
		keys = append(keys, key)
	}
	if err := rows.Err(); err != nil {
		return store.Page{}, mapErr(err)
	}
	if len(page.Entries) > q.Limit {
		page.Entries = page.Entries[:q.Limit]
		last := page.Entries[q.Limit-1]
		c := store.Cursor{Hex: last.Digest.Hex()}
		switch q.Sort {
		case store.SortName:
			c.Name, _ = keys[q.Limit-1].(string)
		case store.SortRelevance:
			score, _ := keys[q.Limit-1].(int64)
			c.Rank = float64(score)
		default:
			c.Time = last.CreatedAt.UnixMicro()
		}
		page.NextCursor = q.EncodeCursor(c)
	}
	return page, nil
}

// relevanceQuery ranks matches inside the full-text index, then reads the
// documents of one page only. The index holds listed documents only.
func relevanceQuery(q store.Query, terms []string, cur store.Cursor, hasCursor bool) (string, []any) {
	args := []any{ftsMatch(terms, true, "title"), ftsMatch(terms, true, "description tags"), ftsMatch(terms, false, "")}
	where := ""
	for _, tag := range q.Tags {
		where += " AND rowid IN (SELECT doc_id FROM document_tags WHERE tag = ?)"
		args = append(args, tag)
	}
	if hasCursor {
		where += " AND score < ?"
		args = append(args, int64(cur.Rank))
	}
	args = append(args, q.Limit+1)
	return fmt.Sprintf(`SELECT %s, r.score FROM (
			SELECT rowid AS id,
				(CASE WHEN rowid IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?) THEN 4 ELSE 0 END
				+ CASE WHEN rowid IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?) THEN 2 ELSE 0 END)
				* %d + rowid AS score
			FROM documents_fts WHERE documents_fts MATCH ? %s
			ORDER BY score DESC LIMIT ?
		) r JOIN documents d ON d.id = r.id WHERE d.withdrawn_at IS NULL ORDER BY r.score DESC`, entryColumns, tierUnit, where), args
}

// listQuery lists by newest or name. walk makes the candidate filters
// checks on rows of the sort index (unary + keeps SQLite from driving the
// query by them) instead of the rows to look up.
func listQuery(q store.Query, terms []string, cur store.Cursor, hasCursor, walk bool) (string, []any) {
	in := "d.id IN"
	if walk {
		in = "+d.id IN"
	}
	where := []string{"d.withdrawn_at IS NULL"}
	var args []any
	if len(terms) > 0 {
		where = append(where, in+" (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?)")
		args = append(args, ftsMatch(terms, false, ""))
	}
	for _, tag := range q.Tags {
		where = append(where, in+" (SELECT doc_id FROM document_tags WHERE tag = ?)")
		args = append(args, tag)
	}
	var query string
	if q.Sort == store.SortName {
		if hasCursor {
			where = append(where, "(d.title_key, d.hex) > (?, ?)")
			args = append(args, cur.Name, cur.Hex)
		}
		query = `SELECT ` + entryColumns + `, d.title_key FROM documents d WHERE ` + strings.Join(where, " AND ") +
			` ORDER BY d.title_key, d.hex LIMIT ?`
	} else {
		if hasCursor {
			where = append(where, "(d.created_at, d.hex) < (?, ?)")
			args = append(args, cur.Time, cur.Hex)
		}
		query = `SELECT ` + entryColumns + `, NULL FROM documents d WHERE ` + strings.Join(where, " AND ") +
			` ORDER BY d.created_at DESC, d.hex DESC LIMIT ?`
	}
	return query, append(args, q.Limit+1)
}

// manyCandidates reports whether every filter matches more than
// walkThreshold rows.
func (s *Store) manyCandidates(ctx context.Context, terms, tags []string) (bool, error) {
	count := func(query string, arg any) (int, error) {
		var n int
		err := s.read.QueryRowContext(ctx, query, arg).Scan(&n)
		return n, mapErr(err)
	}
	for _, tag := range tags {
		n, err := count(`SELECT count(*) FROM document_tags WHERE tag = ?`, tag)
		if err != nil || n <= walkThreshold {
			return false, err
		}
	}
	if len(terms) > 0 {
		n, err := count(`SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?`, ftsMatch(terms, false, ""))
		if err != nil || n <= walkThreshold {
			return false, err
		}
	}
	return true, nil
}

// Tags counts listed entries per tag, most used first, then by name.
func (s *Store) Tags(ctx context.Context, limit int) ([]store.TagCount, error) {
	if limit <= 0 {
		return nil, store.ErrInvalid.With("the tag limit must be positive")
	}
	limit = min(limit, maxTagCounts)
	rows, err := s.read.QueryContext(ctx, `SELECT tag, count(*) AS n FROM document_tags GROUP BY tag
		ORDER BY n DESC, tag LIMIT ?`, limit)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	out := []store.TagCount{}
	for rows.Next() {
		var tc store.TagCount
		if err := rows.Scan(&tc.Tag, &tc.Count); err != nil {
			return nil, mapErr(err)
		}
		out = append(out, tc)
	}
	return out, mapErr(rows.Err())
}

// Stats counts listed and withdrawn entries and distinct listed tags.
func (s *Store) Stats(ctx context.Context) (store.Stats, error) {
	var st store.Stats
	err := s.read.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM documents WHERE withdrawn_at IS NULL),
		(SELECT count(*) FROM documents WHERE withdrawn_at IS NOT NULL),
		(SELECT count(DISTINCT tag) FROM document_tags)`).Scan(&st.Documents, &st.Withdrawn, &st.Tags)
	return st, mapErr(err)
}
