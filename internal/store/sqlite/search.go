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

// defaultWalkThreshold decides how a filtered newest/name listing runs:
// with few candidates (matches of the words or tags) they are looked up and
// sorted; with many, the sort index is walked and stops after one page.
const defaultWalkThreshold = 2000

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

	if q.Sort == store.SortRelevance {
		return s.searchRelevance(ctx, q, terms, cur, hasCursor)
	}
	walk := false
	if len(terms) > 0 || len(q.Tags) > 0 {
		if walk, err = s.manyCandidates(ctx, terms, q.Tags); err != nil {
			return store.Page{}, err
		}
	}
	query, args := listQuery(q, terms, cur, hasCursor, walk)

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
		default:
			c.Time = last.CreatedAt.UnixMicro()
		}
		page.NextCursor = q.EncodeCursor(c)
	}
	return page, nil
}

// relevanceTiers are the tiers from best to worst, each as a full-text
// expression over all (every word), title (a word in the title) and meta (a
// word in description or tags), asked of documents_fts. A one-word query
// asks the head tiers of documents_meta_fts instead (oneWord), which holds
// only the title, description and tags: asked of documents_fts, a word
// frequent in bodies but in no title walked its whole doclist there to
// find nothing (migration 0004). With more words, FTS5 intersects their
// doclists within the one expression, which bounds that walk, far cheaper
// than checking each meta candidate for every word
// (docs/benchmarks/sqlite-common-word-search.md).
var relevanceTiers = []struct {
	tier    int64
	expr    string
	oneWord string // over title and meta in documents_meta_fts; "" for the body tier
}{
	{6, "(%[1]s) AND (%[2]s) AND (%[3]s)", "(%[2]s) AND (%[3]s)"},
	{4, "(%[1]s) AND ((%[2]s) NOT (%[3]s))", "(%[2]s) NOT (%[3]s)"},
	{2, "(%[1]s) AND ((%[3]s) NOT (%[2]s))", "(%[3]s) NOT (%[2]s)"},
	{0, "((%[1]s) NOT (%[2]s)) NOT (%[3]s)", ""},
}

// searchRelevance pages through matches tier by tier. Within a tier FTS5
// walks its index in rowid order and stops after one page, so a common word
// costs one page of work rather than a sort of every match.
func (s *Store) searchRelevance(ctx context.Context, q store.Query, terms []string, cur store.Cursor, hasCursor bool) (store.Page, error) {
	all, title, meta := ftsMatch(terms, false, ""), ftsMatch(terms, true, "title"), ftsMatch(terms, true, "description tags")
	curTier, curRow := int64(1<<62), int64(0)
	if hasCursor {
		score := int64(cur.Rank)
		curTier, curRow = score/tierUnit, score%tierUnit
	}
	tagFilter := ""
	var tagArgs []any
	for _, tag := range q.Tags {
		tagFilter += " AND +rowid IN (SELECT doc_id FROM document_tags WHERE tag = ?)"
		tagArgs = append(tagArgs, tag)
	}
	var ids, scores []int64
	for _, t := range relevanceTiers {
		want := q.Limit + 1 - len(ids)
		if want <= 0 {
			break
		}
		if t.tier > curTier {
			continue
		}
		table, expr := "documents_fts", t.expr
		if len(terms) == 1 && t.oneWord != "" {
			table, expr = "documents_meta_fts", t.oneWord
		}
		args := append([]any{fmt.Sprintf(expr, all, title, meta)}, tagArgs...)
		rowFilter := ""
		if t.tier == curTier {
			rowFilter = " AND rowid < ?"
			args = append(args, curRow)
		}
		args = append(args, want)
		rows, err := s.read.QueryContext(ctx, `SELECT rowid FROM `+table+` WHERE `+table+` MATCH ?`+tagFilter+rowFilter+
			` ORDER BY rowid DESC LIMIT ?`, args...)
		if err != nil {
			return store.Page{}, mapErr(err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return store.Page{}, mapErr(err)
			}
			ids = append(ids, id)
			scores = append(scores, t.tier*tierUnit+id)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return store.Page{}, mapErr(err)
		}
	}
	entries, err := s.entriesByID(ctx, ids)
	if err != nil {
		return store.Page{}, err
	}
	var (
		page      store.Page
		lastScore int64
	)
	for i, id := range ids {
		e, ok := entries[id]
		if !ok || e.Withdrawn() {
			continue // withdrawn since the index was read
		}
		if len(page.Entries) == q.Limit {
			page.NextCursor = q.EncodeCursor(store.Cursor{Rank: float64(lastScore), Hex: page.Entries[len(page.Entries)-1].Digest.Hex()})
			break
		}
		page.Entries = append(page.Entries, e)
		lastScore = scores[i]
	}
	return page, nil
}

// entriesByID reads entries by row id.
func (s *Store) entriesByID(ctx context.Context, ids []int64) (map[int64]store.Entry, error) {
	out := make(map[int64]store.Entry, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+entryColumns+`, d.id FROM documents d
		WHERE d.id IN (SELECT value FROM json_each(?))`, jsonText(ids))
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		e, err := scanEntry(rows, &id)
		if err != nil {
			return nil, mapErr(err)
		}
		out[id] = e
	}
	return out, mapErr(rows.Err())
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
// s.walkThreshold rows.
func (s *Store) manyCandidates(ctx context.Context, terms, tags []string) (bool, error) {
	count := func(query string, arg any) (int, error) {
		var n int
		err := s.read.QueryRowContext(ctx, query, arg).Scan(&n)
		return n, mapErr(err)
	}
	for _, tag := range tags {
		n, err := count(`SELECT coalesce((SELECT n FROM tag_counts WHERE tag = ?), 0)`, tag)
		if err != nil || n <= s.walkThreshold {
			return false, err
		}
	}
	if len(terms) > 0 {
		n, err := count(`SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?`, ftsMatch(terms, false, ""))
		if err != nil || n <= s.walkThreshold {
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
	rows, err := s.read.QueryContext(ctx, `SELECT tag, n FROM tag_counts WHERE n > 0 ORDER BY n DESC, tag LIMIT ?`, limit)
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
	err := s.read.QueryRowContext(ctx, `SELECT listed, withdrawn, (SELECT count(*) FROM tag_counts WHERE n > 0)
		FROM document_counts`).Scan(&st.Documents, &st.Withdrawn, &st.Tags)
	return st, mapErr(err)
}
