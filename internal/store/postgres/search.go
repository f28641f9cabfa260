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

// Relevance is a tier, as in the SQLite engine, not ts_rank: the tier
// depends only on the row and the query, so keyset pages hold. Tiers 3 to
// 1 are read from the (few) rows with a query word in head and tier 0 in
// created_at order up to one page, so a common word costs a page of work
// rather than ranking every match:
//
//	3  a query word in the title and one in the description or tags
//	2  in the title only
//	1  in the description or tags only
//	0  in the body only
//
// Within a tier the order is newest first, then digest descending.
const tierExpr = `(` + titleLexemes + ` @@ %[1]s)::int * 2 + (` + metaLexemes + ` @@ %[1]s)::int`

// titleLexemes and metaLexemes are head's A (title) and B (description
// and tags) parts, spelled exactly as in their indexes
// (documents_title_lexemes_idx, documents_meta_lexemes_idx).
const (
	titleLexemes = `ts_filter(head, '{a}')`
	metaLexemes  = `ts_filter(head, '{b}')`
)

// searchSQL assembles one parameterised search statement. User text only
// ever reaches the database as parameters (the words of store.Terms); the
// statement's shape depends only on how many words there are.
type searchSQL struct {
	args  []any
	where []string
	// match are the conditions on the out-of-line lexemes (search).
	match []string
}

func (b *searchSQL) arg(v any) string {
	b.args = append(b.args, v)
	return fmt.Sprintf("$%d", len(b.args))
}

// tsQueries are the full-text queries of a search, as SQL over parameters:
// all matches every term (AND), any any of them (OR). Each term goes
// through plainto_tsquery, so no operator reaches the query parser.
//
// Each query is a scalar subquery, computed once per statement. Written
// inline, plainto_tsquery($n) is folded into a constant only in a plan
// made for the parameters' values; pgx prepares its statements, and the
// generic plan PostgreSQL switches to after five runs parses and stems
// the words again for every row it checks (docs/benchmarks/postgres-search.md).
func (b *searchSQL) tsQueries(terms []string) (all, any string) {
	return b.allQuery(terms), b.anyQuery(terms)
}

// anyQuery is tsQueries' any alone.
func (b *searchSQL) anyQuery(terms []string) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = "plainto_tsquery(" + textSearchConfig + ", " + b.arg(t) + "::text)"
	}
	return "(SELECT " + strings.Join(parts, " || ") + ")"
}

// allQuery is tsQueries' all alone.
func (b *searchSQL) allQuery(terms []string) string {
	return "(SELECT plainto_tsquery(" + textSearchConfig + ", " + b.arg(strings.Join(terms, " ")) + "::text))"
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
	terms := store.Terms(q.Text)

	ctx, cancel := s.op(ctx)
	defer cancel()
	var page store.Page
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if len(terms) > 0 {
			// The planner does not count decompressing the out-of-line
			// lexemes, so it may pick a sequential scan that reads every
			// row's; matches come from an index.
			if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
				return err
			}
		}
		if q.Sort == store.SortRelevance {
			page, err = searchRelevance(ctx, tx, q, terms, cur, hasCursor, curDigest)
			return err
		}
		b := &searchSQL{where: []string{"withdrawn_at IS NULL"}}
		if len(terms) > 0 {
			b.match = append(b.match, "search @@ "+b.allQuery(terms))
		}
		b.filterTags(q.Tags)
		extra, order := "", newestOrder
		if q.Sort == store.SortName {
			if hasCursor {
				b.where = append(b.where, "("+nameKey+", digest) > ("+b.arg(cur.Name)+"::text, "+b.arg(curDigest)+"::bytea)")
			}
			extra, order = ", "+nameKey, nameKey+", digest"
		} else if hasCursor {
			b.afterNewestCursor(cur, curDigest)
		}
		// One row more than the page tells whether there is a next page.
		rows, err := listRows(ctx, tx, q.Sort, b, extra, order, q.Limit+1, false)
		if err == nil {
			page = makePage(q, rows)
		}
		return err
	})
	return page, mapErr(err)
}

// afterNewestCursor keeps the rows after the cursor in newest-first order.
func (b *searchSQL) afterNewestCursor(cur store.Cursor, curDigest []byte) {
	b.where = append(b.where, "(created_at, digest) < ("+b.arg(time.UnixMicro(cur.Time))+"::timestamptz, "+b.arg(curDigest)+"::bytea)")
}

func (b *searchSQL) filterTags(tags []string) {
	if len(tags) > 0 {
		b.where = append(b.where, "tags @> "+b.arg(tags)+"::text[]")
	}
}

// searchRelevance reads the tiers in order, resuming after the cursor:
// tiers 3 to 1, whose candidates are the rows with a query word in head
// (searchHeadTiers), then, while the page is not full, tier 0 in
// created_at index order.
func searchRelevance(ctx context.Context, tx pgx.Tx, q store.Query, terms []string, cur store.Cursor, hasCursor bool, curDigest []byte) (store.Page, error) {
	want := q.Limit + 1
	curTier := 4
	if hasCursor {
		curTier = int(cur.Rank)
		if float64(curTier) != cur.Rank || curTier < 0 || curTier > 3 {
			return store.Page{}, store.ErrInvalidCursor
		}
	}
	var (
		rows       []searchRow
		fewMatches bool
	)
	if curTier > 0 {
		got, few, err := searchHeadTiers(ctx, tx, q, terms, cur, hasCursor, curTier, curDigest, want)
		if err != nil {
			return store.Page{}, err
		}
		rows, fewMatches = got, few
	}
	if len(rows) < want {
		b := &searchSQL{where: []string{"withdrawn_at IS NULL"}}
		all, any := b.tsQueries(terms)
		b.where = append(b.where, "NOT (head @@ "+any+")")
		b.match = append(b.match, "search @@ "+all)
		b.filterTags(q.Tags)
		if hasCursor && curTier == 0 {
			b.afterNewestCursor(cur, curDigest)
		}
		got, err := listRows(ctx, tx, q.Sort, b, ", 0", newestOrder, want-len(rows), fewMatches)
		if err != nil {
			return store.Page{}, err
		}
		rows = append(rows, got...)
	}
	return makePage(q, rows), nil
}

// newestOrder is the newest sort, served by documents_newest_idx.
const newestOrder = "created_at DESC, digest DESC"

// walkWindow is how many rows of a sort index a filtered listing walks
// before it gives up on the walk and reads all matches from the GIN index.
// Checking a row against its out-of-line lexemes costs a decompression
// the planner does not count, so the planner walks far too long for
// uncommon words; a word in one document of 25 fills a page of 20 within
// the window.
const walkWindow = 500

// listRows reads up to want rows of documents in order. Without match
// conditions the sort index serves it. With them, it first walks the sort
// index for walkWindow rows (cheap when the words are common); when that
// does not fill the page, the matches come from the GIN index, sorted.
// fewMatches (known to be at most headProbe) skips the walk.
func listRows(ctx context.Context, tx pgx.Tx, sort store.Sort, b *searchSQL, extra, order string, want int, fewMatches bool) ([]searchRow, error) {
	where := strings.Join(b.where, " AND ")
	if len(b.match) == 0 {
		return querySearch(ctx, tx, sort, fmt.Sprintf(`SELECT %s%s FROM documents WHERE %s ORDER BY %s LIMIT %d`,
			entryColumns, extra, where, order, want), b.args)
	}
	match := strings.Join(b.match, " AND ")
	if !fewMatches {
		// The window's LIMIT keeps the match conditions out of the walk,
		// so they are checked on at most walkWindow rows.
		rows, err := querySearch(ctx, tx, sort, fmt.Sprintf(`SELECT %s%s FROM (
		SELECT %s, search FROM documents WHERE %s ORDER BY %s LIMIT %d) AS walked
		WHERE %s ORDER BY %s LIMIT %d`,
			entryColumns, extra, entryColumns, where, order, walkWindow, match, order, want), b.args)
		if err != nil || len(rows) == want {
			return rows, err
		}
	}
	if err := indexScans(ctx, tx, false); err != nil {
		return nil, err
	}
	return querySearch(ctx, tx, sort, fmt.Sprintf(`SELECT %s%s FROM documents WHERE %s AND %s ORDER BY %s LIMIT %d`,
		entryColumns, extra, where, match, order, want), b.args)
}

// headProbe bounds how many candidates are read and sorted whole: up to
// this many, sorting them costs less than a walk in newest order that
// checks out-of-line lexemes, whose decompression the planner does not
// count; with more, a walk that stops after a page costs less.
const headProbe = 1000

// tierWindow is how many rows of documents_newest_idx one tier's walk
// reads. A walk row costs its heap tuple and the tier of its inline head;
// only rows of the wanted tier have their out-of-line lexemes checked.
// A tier holding one document in 100 fills a page of 20 within it.
const tierWindow = 2000

// searchHeadTiers reads tiers 3 to 1 from the cursor on, and reports
// whether the matches of every term are known to be few (at most
// headProbe), so that tier 0 may sort them rather than walk.
//
// The tiers' candidates are the rows with a query word in head, counted
// first from head's GIN index (at most headProbe+1 of them):
//   - none: the head tiers are empty;
//   - few, or with several terms few matches of every term: they are read
//     and sorted by tier;
//   - more (a word common in titles or tags): the cursor's tier is walked
//     in newest order, which stops after a page (when the walk finds
//     nothing and the tier cannot hold a row, the first tier below that
//     can is walked instead). When the walk does not fill the page (a
//     sparse tier, or the end of one), the page comes from all the
//     matches, sorted.
func searchHeadTiers(ctx context.Context, tx pgx.Tx, q store.Query, terms []string, cur store.Cursor, hasCursor bool,
	curTier int, curDigest []byte, want int) (rows []searchRow, fewMatches bool, err error) {
	b := &searchSQL{where: []string{"withdrawn_at IS NULL"}}
	b.where = append(b.where, "head @@ "+b.anyQuery(terms))
	b.filterTags(q.Tags)
	heads, err := countUpTo(ctx, tx, b, headProbe+1)
	if err != nil || heads == 0 {
		return nil, false, err
	}
	driver := fromHead
	if len(terms) > 1 {
		b := &searchSQL{where: []string{"withdrawn_at IS NULL"}}
		b.where = append(b.where, "search @@ "+b.allQuery(terms))
		b.filterTags(q.Tags)
		matches, err := countUpTo(ctx, tx, b, headProbe+1)
		if err != nil || matches == 0 {
			return nil, true, err
		}
		if fewMatches = matches <= headProbe; fewMatches || heads > headProbe {
			driver = fromMatches
		}
	}
	if heads > headProbe && !fewMatches {
		tier := min(curTier, 3)
		rows, err := walkTier(ctx, tx, q, terms, tier, hasCursor && tier == curTier, cur, curDigest, want)
		if err != nil || len(rows) == want {
			return rows, false, err
		}
		if len(rows) == 0 {
			// An empty walk may be an impossible tier: walk the first
			// possible one instead.
			next, err := firstTier(ctx, tx, terms, tier)
			if err != nil || next == 0 {
				return nil, false, err
			}
			if next < tier {
				// next is below the cursor's tier: it is walked from its top.
				rows, err := walkTier(ctx, tx, q, terms, next, false, cur, curDigest, want)
				if err != nil || len(rows) == want {
					return rows, false, err
				}
			}
		}
	}
	rows, err = sortHeadTiers(ctx, tx, q, terms, driver, cur, hasCursor, curTier, curDigest, want)
	return rows, fewMatches, err
}

// firstTier is the highest tier, from tier down, that may hold a row: a
// row is in tier 3 or 2 only with a query word in its title, and in tier 3
// or 1 only with one in its description or tags. The title's and the
// description's and tags' lexemes each have a GIN index (migration 3), so
// a word that is common in tags but in no title ("json"), or in every
// title but no description ("protocol"), skips the tiers it cannot be in
// instead of walking them in vain. 0: none.
func firstTier(ctx context.Context, tx pgx.Tx, terms []string, tier int) (int, error) {
	// A plain index scan of another index finds a first row soonest by the
	// planner's guess, and reads every row when no row matches.
	if err := indexScans(ctx, tx, false); err != nil {
		return 0, err
	}
	defer indexScans(ctx, tx, true)
	b := &searchSQL{}
	any := b.anyQuery(terms)
	var inTitle, inMeta bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM documents WHERE `+titleLexemes+` @@ `+any+`),
		EXISTS (SELECT 1 FROM documents WHERE `+metaLexemes+` @@ `+any+`)`, b.args...).Scan(&inTitle, &inMeta)
	for ; tier > 0; tier-- {
		if (tier&2 == 0 || inTitle) && (tier&1 == 0 || inMeta) {
			break
		}
	}
	return tier, err
}

// countUpTo counts the rows of documents that b's conditions select, up to
// limit.
func countUpTo(ctx context.Context, tx pgx.Tx, b *searchSQL, limit int) (int, error) {
	var n int
	err := tx.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM documents WHERE %s LIMIT %d) AS probe",
		strings.Join(b.where, " AND "), limit), b.args...).Scan(&n)
	return n, err
}

// walkTier reads up to want rows of one tier in newest order, from the
// cursor when fromCursor, within tierWindow rows of documents_newest_idx.
// The window's LIMIT keeps every condition out of the index walk; the CASE
// checks the out-of-line lexemes (several terms) only on rows of the tier.
// With one term, a match in head is a match (head's lexemes are in search
// too).
func walkTier(ctx context.Context, tx pgx.Tx, q store.Query, terms []string, tier int, fromCursor bool,
	cur store.Cursor, curDigest []byte, want int) ([]searchRow, error) {
	b := &searchSQL{where: []string{"withdrawn_at IS NULL"}}
	any := b.anyQuery(terms)
	match := "true"
	if len(terms) > 1 {
		match = "search @@ " + b.allQuery(terms)
	}
	if fromCursor {
		b.afterNewestCursor(cur, curDigest)
	}
	window := strings.Join(b.where, " AND ")
	b.where = nil
	b.filterTags(q.Tags)
	conds := append(b.where, "CASE WHEN "+fmt.Sprintf(tierExpr, any)+" = "+b.arg(tier)+"::int THEN "+match+" END")
	return querySearch(ctx, tx, q.Sort, fmt.Sprintf(`SELECT %s, %d AS tier FROM (
		SELECT %s, head, search FROM documents WHERE %s ORDER BY %s LIMIT %d) AS walked
		WHERE %s ORDER BY %s LIMIT %d`,
		entryColumns, tier, entryColumns, window, newestOrder, tierWindow, strings.Join(conds, " AND "), newestOrder, want), b.args)
}

// candidateDriver says which GIN index reads the head tiers' candidates
// when they are sorted whole.
type candidateDriver int

const (
	// fromHead reads head's matches of any term. With one term, a match in
	// head is a match (head's lexemes are in search too); with more, each
	// one after the cursor has its out-of-line lexemes checked.
	fromHead candidateDriver = iota
	// fromMatches reads search's matches of every term, each checked
	// against its inline head (several terms only).
	fromMatches
)

// sortHeadTiers reads tiers 3 to 1 from the cursor on by sorting every
// candidate. Fences (OFFSET 0) keep the planner to the driver's order: it
// does not count the decompression of the out-of-line lexemes.
func sortHeadTiers(ctx context.Context, tx pgx.Tx, q store.Query, terms []string, driver candidateDriver, cur store.Cursor, hasCursor bool,
	curTier int, curDigest []byte, want int) ([]searchRow, error) {
	b := &searchSQL{where: []string{"withdrawn_at IS NULL"}}
	any := b.anyQuery(terms)
	b.filterTags(q.Tags)
	after := "true"
	if hasCursor {
		after = "(tier, created_at, digest) < (" + b.arg(curTier) + "::int, " + b.arg(time.UnixMicro(cur.Time)) +
			"::timestamptz, " + b.arg(curDigest) + "::bytea)"
	}
	tiered := func(from string) string {
		return "(SELECT " + entryColumns + ", search, " + fmt.Sprintf(tierExpr, any) + " AS tier FROM " + from + " OFFSET 0) AS hits"
	}
	headMatches := func() string {
		return tiered("documents WHERE " + strings.Join(append(b.where, "head @@ "+any), " AND "))
	}
	var from, where string
	switch {
	case len(terms) == 1:
		from, where = headMatches(), after
	case driver == fromHead:
		from, where = headMatches(), "CASE WHEN "+after+" THEN search @@ "+b.allQuery(terms)+" END"
	default:
		matches := "(SELECT " + entryColumns + ", head, search FROM documents WHERE " +
			strings.Join(append(b.where, "search @@ "+b.allQuery(terms)), " AND ") + " OFFSET 0) AS matches WHERE head @@ " + any
		from, where = tiered(matches), after
	}
	if len(terms) > 1 {
		if err := indexScans(ctx, tx, false); err != nil {
			return nil, err
		}
		defer indexScans(ctx, tx, true)
	}
	return querySearch(ctx, tx, q.Sort, `SELECT `+entryColumns+`, tier FROM `+from+` WHERE `+where+
		fmt.Sprintf(` ORDER BY tier DESC, created_at DESC, digest DESC LIMIT %d`, want), b.args)
}

// indexScans allows or forbids plain index scans for the rest of the
// transaction, so that a statement reads its GIN index (bitmap scans only)
// rather than walk a sort index and check each row.
func indexScans(ctx context.Context, tx pgx.Tx, on bool) error {
	sql := "SET LOCAL enable_indexscan = off"
	if on {
		sql = "SET LOCAL enable_indexscan = on"
	}
	_, err := tx.Exec(ctx, sql)
	return err
}

// searchRow is one result and the cursor that points after it.
type searchRow struct {
	entry  store.Entry
	cursor store.Cursor
}

// makePage cuts rows (at most one more than the page) into a page.
func makePage(q store.Query, rows []searchRow) store.Page {
	page := store.Page{Entries: make([]store.Entry, 0, min(len(rows), q.Limit))}
	for i, r := range rows {
		if i == q.Limit {
			page.NextCursor = q.EncodeCursor(rows[i-1].cursor)
			break
		}
		page.Entries = append(page.Entries, r.entry)
	}
	return page
}

func querySearch(ctx context.Context, tx pgx.Tx, sort store.Sort, sql string, args []any) ([]searchRow, error) {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []searchRow
	for rows.Next() {
		r, err := scanSearchRow(rows, sort)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// scanSearchRow reads one result and the cursor that points after it.
func scanSearchRow(rows pgx.Rows, sort store.Sort) (searchRow, error) {
	var (
		e    store.Entry
		err  error
		c    store.Cursor
		tier int32
	)
	switch sort {
	case store.SortName:
		e, err = scanEntry(rows, false, &c.Name)
	case store.SortRelevance:
		e, err = scanEntry(rows, false, &tier)
		c.Rank = float64(tier)
	default:
		e, err = scanEntry(rows, false)
	}
	c.Time = e.CreatedAt.UnixMicro()
	c.Hex = e.Digest.Hex()
	return searchRow{e, c}, err
}
