package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// Search, in one reading: a query's words become a store.Match (the last
// word also matches the indexed words it is a prefix of). A relevance page
// reads the tiers below in turn, each from the full-text index in row id
// order, a page of rows and the rest of the last one's window (tierRows),
// so a common word costs a page of work and a window rather than a sort
// of every match. A newest or name listing is one statement: by a tag
// alone it walks that tag's rows in newest order (document_tags_newest);
// with words or a name sort the matches are looked up and sorted. Nothing
// here steers SQLite's planner.
//
// Relevance is a tier, not bm25: bm25 depends on statistics of the whole
// index, so every insert would reorder existing rows and keyset pages
// would skip or repeat them. The tier depends on the row and the query
// alone. A head match's key is its text rank (3 title and description or
// tags, 2 title, 1 description or tags) times store.RankBase plus its
// adoption level (boost, migration 0027), a body match's 1 and a demoted
// match's 0. Equal keys are in windows of 1,024 consecutive publications,
// newest first, and within a window in natural name order (title_key,
// store.NaturalKey: "v9" before "v10"), then digest. The tier reads
// take the unadopted rows; the adopted ones (documents_boosted, few) are
// read and ranked apart and merged in.

// maxTagCounts caps one Tags call.
const maxTagCounts = 1000

// relevanceTiers are the tiers from best to worst. expr is a full-text
// expression over all (every group), title (a word in the title) and meta
// (a word in description or tags), asked of documents_fts; with one group,
// head (when set) is asked of documents_meta_fts instead, which holds only
// titles, descriptions and tags, so a word frequent in bodies but in no
// title does not walk its whole doclist to find nothing (migration 0004).
// rank is the text rank of a head tier, 0 for the body tier, -1 for the
// demoted rows (store.Demotion).
var relevanceTiers = []struct {
	rank int64
	expr string
	head string
}{
	{3, "(%[1]s) AND (%[2]s) AND (%[3]s)", "(%[2]s) AND (%[3]s)"},
	{2, "(%[1]s) AND ((%[2]s) NOT (%[3]s))", "(%[2]s) NOT (%[3]s)"},
	{1, "(%[1]s) AND ((%[3]s) NOT (%[2]s))", "(%[3]s) NOT (%[2]s)"},
	{0, "((%[1]s) NOT (%[2]s)) NOT (%[3]s)", ""},
	{-1, "%[1]s", ""},
}

// tierKey is the key of a row of text rank rank and adoption level boost.
func tierKey(rank, boost int64) int64 {
	switch {
	case rank > 0:
		return rank * (store.RankBase + boost)
	case rank == 0:
		return 1
	}
	return 0
}

// quote makes a word an FTS5 string: no operator, column filter or prefix
// syntax typed by a user reaches FTS5.
func quote(word string) string { return `"` + strings.ReplaceAll(word, `"`, `""`) + `"` }

// ftsAll is the FTS5 expression of a whole match: one word of every group.
func ftsAll(m store.Match) string {
	groups := make([]string, len(m.Groups))
	for i, g := range m.Groups {
		groups[i] = ftsOr(g)
	}
	return strings.Join(groups, " AND ")
}

// ftsAnyIn is the FTS5 expression of any word of the match within columns.
func ftsAnyIn(m store.Match, columns string) string { return "{" + columns + "} : " + ftsOr(m.Words()) }

func ftsOr(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = quote(w)
	}
	return "(" + strings.Join(quoted, " OR ") + ")"
}

// tagChecks are the conditions that the row with id column holds every
// tag, each a primary-key probe.
func tagChecks(column string, tags []string) (string, []any) {
	var sql string
	var args []any
	for _, t := range tags {
		sql += " AND EXISTS (SELECT 1 FROM document_tags WHERE doc_id = " + column + " AND tag = ?)"
		args = append(args, t)
	}
	return sql, args
}

// filterChecks are tagChecks of tags and, when the query has them, the
// condition that the row with id column has its publisher and status: one
// primary-key probe more.
func filterChecks(column string, tags []string, q store.Query) (string, []any) {
	sql, args := tagChecks(column, tags)
	conds, condArgs := rowFilters(q, "")
	if len(conds) > 0 {
		sql += " AND EXISTS (SELECT 1 FROM documents WHERE id = " + column + " AND " + strings.Join(conds, " AND ") + ")"
		args = append(args, condArgs...)
	}
	return sql, args
}

// rowFilters are the query's publisher and status conditions on documents
// (prefix: its alias and a dot, or "").
func rowFilters(q store.Query, prefix string) ([]string, []any) {
	var conds []string
	var args []any
	if q.Publisher != "" {
		conds = append(conds, prefix+"publisher = ?")
		args = append(args, q.Publisher)
	}
	if q.Status != "" {
		conds = append(conds, prefix+"status = ?")
		args = append(args, string(q.Status))
	}
	return conds, args
}

// listFilters are rowFilters for a statement that reads documents d in an
// index's order. A deprecated row is always demoted
// (store.DemotedDeprecated): the few demoted rows (documents_demoted) are
// read and sorted rather than the newest index walked to its end.
func listFilters(q store.Query) ([]string, []any) {
	conds, args := rowFilters(q, "d.")
	if q.Status == entity.StatusDeprecated {
		conds = append(conds, "d.id IN (SELECT id FROM documents WHERE demoted <> 0)")
	}
	return conds, args
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
	m, err := store.Expand(ctx, store.Terms(q.Text), s.words)
	if err != nil {
		return store.Page{}, mapErr(err)
	}
	if q.Sort == store.SortRelevance {
		return s.searchRelevance(ctx, q, m, cur, hasCursor)
	}
	query, args := listQuery(q, m, cur, hasCursor)
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

// searchRelevance pages through matches tier by tier from the cursor's.
func (s *Store) searchRelevance(ctx context.Context, q store.Query, m store.Match, cur store.Cursor, hasCursor bool) (store.Page, error) {
	all, title, meta := ftsAll(m), ftsAnyIn(m, "title"), ftsAnyIn(m, "description tags")
	var from *ranked // the cursor's row: rows after it are read
	if hasCursor {
		key := int64(cur.Rank)
		// The cursor names a row and its title key: one that does not (a
		// tampered cursor) is refused rather than read.
		var (
			id   int64
			name string
		)
		err := s.read.QueryRowContext(ctx, `SELECT id, title_key FROM documents WHERE hex = ?`, cur.Hex).Scan(&id, &name)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (name != cur.Name || float64(key) != cur.Rank || key < 0 || key > tierKey(3, store.MaxAdoptionLevel))) {
			return store.Page{}, store.ErrInvalidCursor
		}
		if err != nil {
			return store.Page{}, mapErr(err)
		}
		from = &ranked{id: id, key: key, name: cur.Name, hex: cur.Hex}
	}
	var rows []ranked
	// The adopted head matches, every one (their keys are not the tiers'),
	// from the adopted rows' own index (migration 0027): the cost is that
	// of the adopted matches.
	adopted, err := s.adopted(ctx, q, m, title, meta)
	if err != nil {
		return store.Page{}, err
	}
	for _, a := range adopted {
		if from == nil || from.before(a) {
			rows = append(rows, a)
		}
	}
	want, walked := q.Limit+1, 0
	for _, t := range relevanceTiers {
		key := tierKey(t.rank, 0)
		if (from != nil && key > from.key) || walked >= want {
			continue
		}
		table, expr := "documents_fts", t.expr
		if len(m.Groups) == 1 && t.head != "" {
			table, expr = "documents_meta_fts", t.head
		}
		skip := "d.demoted = 0"
		switch {
		case t.rank < 0:
			skip = "d.demoted <> 0"
		case t.rank > 0:
			skip += " AND d.boost = 0"
		}
		var after *ranked
		if from != nil && key == from.key {
			after = from
		}
		got, err := s.tierRows(ctx, tier{table, fmt.Sprintf(expr, all, title, meta), skip, key}, q, after, want-walked)
		if err != nil {
			return store.Page{}, err
		}
		rows = append(rows, got...)
		walked += len(got)
	}
	slices.SortFunc(rows, compareRanked)
	rows = rows[:min(len(rows), want)]
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	entries, err := s.entriesByID(ctx, ids)
	if err != nil {
		return store.Page{}, err
	}
	var (
		page store.Page
		last ranked
	)
	for _, r := range rows {
		e, ok := entries[r.id]
		if !ok || e.Withdrawn() {
			continue // withdrawn since the index was read
		}
		if len(page.Entries) == q.Limit {
			page.NextCursor = q.EncodeCursor(store.Cursor{Rank: float64(last.key), Name: last.name, Hex: last.hex})
			break
		}
		page.Entries = append(page.Entries, e)
		last = r
	}
	return page, nil
}

// ranked is a match in relevance order: its key (tierKey) descending,
// then its window (window) descending, then its title key
// (store.NaturalKey) and digest ascending.
type ranked struct {
	id, key   int64
	name, hex string
}

// windowBits sizes the windows equal keys are ordered by name in: 1,024
// consecutive row ids, that is publications. A window's matches are read whole (one
// full-text range read, at most that many rows), so a page costs its rows
// plus at most two windows' matches however common the word; ordering a
// key's every match by name would read and sort all of them (40 ms for a
// word in a quarter of 100,000 documents).
const windowBits = 10

// window is the window of row id id; newer windows come first.
func window(id int64) int64 { return id >> windowBits }

func compareRanked(a, b ranked) int {
	if c := cmp.Compare(b.key, a.key); c != 0 {
		return c
	}
	if c := cmp.Compare(window(b.id), window(a.id)); c != 0 {
		return c
	}
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	return strings.Compare(a.hex, b.hex)
}

// before is whether r comes before o.
func (r *ranked) before(o ranked) bool { return compareRanked(*r, o) < 0 }

// tier is one relevance tier of a query: its full-text expression over
// table, the condition on documents its rows meet, and their key.
type tier struct {
	table, expr, rows string
	key               int64
}

// tierRows reads the first limit rows of a tier in page order, after
// after's when it is in the tier: the rest of after's window, then the
// newest matches below it in row id order (the full-text index's own, a
// page of rows) and the rest of the last one's window, sorted.
func (s *Store) tierRows(ctx context.Context, t tier, q store.Query, after *ranked, limit int) ([]ranked, error) {
	checks, checkArgs := filterChecks("d.id", q.Tags, q)
	conds := "d.withdrawn_at IS NULL AND " + t.rows + checks
	// matches reads the tier's rows with ids in [lo, hi), with extra
	// conditions; order and limit, when set, end the statement.
	matches := func(lo, hi int64, extra string, extraArgs []any, tail string, tailArgs ...any) ([]ranked, error) {
		query := `SELECT d.id, d.title_key, d.hex FROM ` + t.table + ` JOIN documents d ON d.id = ` + t.table + `.rowid WHERE ` +
			t.table + ` MATCH ? AND ` + t.table + `.rowid >= ? AND ` + t.table + `.rowid < ? AND ` + conds + extra + tail
		args := append(append(append([]any{t.expr, lo, hi}, checkArgs...), extraArgs...), tailArgs...)
		rows, err := s.read.QueryContext(ctx, query, args...)
		if err != nil {
			return nil, mapErr(err)
		}
		defer rows.Close()
		var out []ranked
		for rows.Next() {
			r := ranked{key: t.key}
			if err := rows.Scan(&r.id, &r.name, &r.hex); err != nil {
				return nil, mapErr(err)
			}
			out = append(out, r)
		}
		return out, mapErr(rows.Err())
	}
	var out []ranked
	hi := int64(math.MaxInt64)
	if after != nil {
		lo := window(after.id) << windowBits
		got, err := matches(lo, lo+1<<windowBits, " AND (d.title_key, d.hex) > (?, ?)", []any{after.name, after.hex}, "")
		if err != nil {
			return nil, err
		}
		slices.SortFunc(got, compareRanked)
		if out = got[:min(len(got), limit)]; len(out) == limit {
			return out, nil
		}
		hi = lo
	}
	newest, err := matches(0, hi, "", nil, ` ORDER BY `+t.table+`.rowid DESC LIMIT ?`, limit-len(out))
	if err != nil || len(newest) == 0 {
		return out, err
	}
	lo := window(newest[len(newest)-1].id) << windowBits
	rest, err := matches(lo, newest[len(newest)-1].id, "", nil, "")
	if err != nil {
		return nil, err
	}
	got := append(newest, rest...)
	slices.SortFunc(got, compareRanked)
	return append(out, got[:min(len(got), limit-len(out))]...), nil
}

// adopted reads the live adopted rows with a word of m in the title or
// the description or tags, and q's filters, keyed by their text ranks
// (from documents_adopted_fts) and levels, and their filters from
// documents (every group of m, with several, from documents_fts).
func (s *Store) adopted(ctx context.Context, q store.Query, m store.Match, title, meta string) ([]ranked, error) {
	rank := map[int64]int64{}
	for _, c := range []struct {
		expr string
		rank int64
	}{{title, 2}, {meta, 1}} {
		ids, err := s.rowIDs(ctx, `SELECT rowid FROM documents_adopted_fts WHERE documents_adopted_fts MATCH ?`, c.expr)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			rank[id] += c.rank
		}
	}
	if len(rank) == 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(rank))
	for id := range rank {
		ids = append(ids, id)
	}
	checks, args := filterChecks("d.id", q.Tags, q)
	if len(m.Groups) > 1 {
		checks += " AND EXISTS (SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? AND rowid = d.id)"
		args = append(args, ftsAll(m))
	}
	return queryAll(ctx, s.read, func(sc scanner) (r ranked, err error) {
		var boost int64
		err = sc.Scan(&r.id, &boost, &r.name, &r.hex)
		r.key = tierKey(rank[r.id], boost)
		return r, err
	}, `SELECT d.id, d.boost, d.title_key, d.hex FROM documents d WHERE d.id IN (SELECT value FROM json_each(?))
		AND d.boost <> 0 AND d.demoted = 0 AND d.withdrawn_at IS NULL`+checks, append([]any{jsonText(ids)}, args...)...)
}

// rowIDs runs a query of one integer column.
func (s *Store) rowIDs(ctx context.Context, query string, args ...any) ([]int64, error) {
	return queryAll(ctx, s.read, func(sc scanner) (id int64, err error) {
		err = sc.Scan(&id)
		return id, err
	}, query, args...)
}

// entriesByID reads entries by row id.
func (s *Store) entriesByID(ctx context.Context, ids []int64) (map[int64]entity.Entry, error) {
	out := make(map[int64]entity.Entry, len(ids))
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

// listQuery lists by newest or name, one row more than the page.
func listQuery(q store.Query, m store.Match, cur store.Cursor, hasCursor bool) (string, []any) {
	if q.Sort == store.SortNewest && len(m.Groups) == 0 && len(q.Tags) > 0 && q.Publisher == "" && q.Status == "" {
		return tagListQuery(q, cur, hasCursor)
	}
	where := []string{"d.withdrawn_at IS NULL"}
	var args []any
	if len(m.Groups) > 0 {
		where = append(where, "d.id IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?)")
		args = append(args, ftsAll(m))
	}
	for _, tag := range q.Tags {
		where = append(where, "d.id IN (SELECT doc_id FROM document_tags WHERE tag = ?)")
		args = append(args, tag)
	}
	conds, condArgs := listFilters(q)
	where, args = append(where, conds...), append(args, condArgs...)
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

// tagListQuery lists by tags alone, newest first: the first tag's rows in
// their stored newest-first key's order, each checked for the other tags
// (a withdrawal deletes a document's tag rows).
func tagListQuery(q store.Query, cur store.Cursor, hasCursor bool) (string, []any) {
	others, args := tagChecks("t.doc_id", q.Tags[1:])
	args = append([]any{q.Tags[0]}, args...)
	after := ""
	if hasCursor {
		after = " AND (t.created_at, t.hex) < (?, ?)"
		args = append(args, cur.Time, cur.Hex)
	}
	return `SELECT ` + entryColumns + `, NULL FROM document_tags t JOIN documents d ON d.id = t.doc_id
		WHERE t.tag = ?` + others + after + ` ORDER BY t.created_at DESC, t.hex DESC LIMIT ?`, append(args, q.Limit+1)
}

// words reads the word list (store.WordList).
func (s *Store) words(ctx context.Context, from, to string, limit int) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT word FROM search_words WHERE word >= ? AND word < ? ORDER BY word LIMIT ?`, from, to, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// Suggest respells a query by the word list.
func (s *Store) Suggest(ctx context.Context, text string) (string, error) {
	out, err := store.Suggest(ctx, text, s.words)
	return out, mapErr(err)
}

// Summarize counts a query's matches from the full-text index (words) or
// the first tag's rows, newest first, up to store.SummaryRows; a larger
// set is estimated from how many rows those matches span (matches
// assumed spread evenly over the rows), or for one tag alone read from its
// counter. With facets it reads the tags of those matches. Without words or tags the counters answer.
func (s *Store) Summarize(ctx context.Context, q store.Query, facets bool) (store.Summary, error) {
	q, err := q.Normalize()
	if err != nil {
		return store.Summary{}, err
	}
	terms := store.Terms(q.Text)
	if len(terms) == 0 && !q.Filtered() {
		var listed int
		if err := s.read.QueryRowContext(ctx, `SELECT listed FROM document_counts`).Scan(&listed); err != nil || !facets {
			return store.Summary{Total: listed}, mapErr(err)
		}
		tags, err := s.Tags(ctx, store.MaxFacets)
		return store.Summary{Total: listed, Tags: tags, TagsOf: listed}, err
	}
	m, err := store.Expand(ctx, terms, s.words)
	if err != nil {
		return store.Summary{}, mapErr(err)
	}
	// Withdrawn documents have no full-text or tag rows.
	var matches, id, order string
	var args []any
	switch {
	case len(m.Groups) > 0:
		tags, tagArgs := filterChecks("documents_fts.rowid", q.Tags, q)
		matches, id = `FROM documents_fts WHERE documents_fts MATCH ?`+tags, "documents_fts.rowid"
		args = append([]any{ftsAll(m)}, tagArgs...)
	case len(q.Tags) > 0:
		tags, tagArgs := filterChecks("t.doc_id", q.Tags[1:], q)
		matches, id = `FROM document_tags t WHERE t.tag = ?`+tags, "t.doc_id"
		args = append([]any{q.Tags[0]}, tagArgs...)
	default:
		// Publisher or status alone: their rows newest first, from the
		// publisher's or the newest index.
		conds, condArgs := listFilters(q)
		matches, id, order = `FROM documents d WHERE d.withdrawn_at IS NULL AND `+strings.Join(conds, " AND "), "d.id", "d.created_at DESC, d.hex DESC"
		args = condArgs
	}
	if order == "" {
		order = id + " DESC"
	}
	n := store.SummaryRows(facets)
	ids, err := s.rowIDs(ctx, `SELECT `+id+` `+matches+` ORDER BY `+order+` LIMIT ?`, append(args, n+1)...)
	if err != nil {
		return store.Summary{}, err
	}
	sum := store.Summary{Total: len(ids)}
	if len(ids) > n {
		exact := false
		if sum.Total, exact, err = s.estimate(ctx, q, m, ids[:n]); err != nil {
			return store.Summary{}, err
		}
		ids, sum.Estimated = ids[:n], !exact
	}
	if !facets {
		return sum, nil
	}
	entries, err := s.entriesByID(ctx, ids)
	if err != nil {
		return store.Summary{}, err
	}
	tagRows := make([][]string, 0, len(entries))
	for _, e := range entries {
		tagRows = append(tagRows, e.Metadata.Tags)
	}
	sum.Tags, sum.TagsOf = store.CountTags(tagRows, q.Tags), len(tagRows)
	return sum, nil
}

// estimate is the size of a result set of which newest holds the newest
// row ids, newest first: one tag alone is counted
// exactly, anything else scaled from the share of rows those span.
func (s *Store) estimate(ctx context.Context, q store.Query, m store.Match, newest []int64) (n int, exact bool, err error) {
	if len(m.Groups) == 0 && len(q.Tags) == 1 && q.Publisher == "" && q.Status == "" {
		err := s.read.QueryRowContext(ctx, `SELECT coalesce((SELECT n FROM tag_counts WHERE tag = ?), 0)`, q.Tags[0]).Scan(&n)
		return n, true, mapErr(err)
	}
	var top int64
	if err := s.read.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM documents`).Scan(&top); err != nil {
		return 0, false, mapErr(err)
	}
	span := max(top-newest[len(newest)-1]+1, int64(len(newest)))
	return int(int64(len(newest)) * top / span), false, nil
}

// Tags counts listed entries per tag, most used first, then by name.
func (s *Store) Tags(ctx context.Context, limit int) ([]store.TagCount, error) {
	if limit <= 0 {
		return nil, store.ErrInvalid.With("the tag limit must be positive")
	}
	limit = min(limit, maxTagCounts)
	out, err := queryAll(ctx, s.read, func(sc scanner) (tc store.TagCount, err error) {
		err = sc.Scan(&tc.Tag, &tc.Count)
		return tc, err
	}, `SELECT tag, n FROM tag_counts WHERE n > 0 ORDER BY n DESC, tag LIMIT ?`, limit)
	if out == nil && err == nil {
		out = []store.TagCount{} // an empty list, not null
	}
	return out, err
}

// Stats counts listed and withdrawn entries and distinct listed tags.
func (s *Store) Stats(ctx context.Context) (store.Stats, error) {
	var st store.Stats
	err := s.read.QueryRowContext(ctx, `SELECT listed, withdrawn, (SELECT count(*) FROM tag_counts WHERE n > 0)
		FROM document_counts`).Scan(&st.Documents, &st.Withdrawn, &st.Tags)
	return st, mapErr(err)
}
