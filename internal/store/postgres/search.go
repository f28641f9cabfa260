package postgres

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Search, in one reading: a query's words become a store.Match (the last
// word also matches the indexed words it is a prefix of); a newest or
// name listing is one statement in its index's order; a relevance page
// reads three phases in turn until the page is full:
//
//	rank 33..4 live, a query word in head: 3 title and description or
//	           tags, 2 title, 1 description or tags (from head, inline),
//	           times RankBase plus the adoption level (store.AdoptionLevel)
//	rank 0     live, body only
//	rank -1    demoted (superseded, deprecated)
//
// Within a rank the order is natural name (natural_key, as the name sort:
// "v9" before "v10"), then digest, so the key (rank, name, digest) depends
// only on the row and the query and keyset pages hold while rows are
// added. Which index serves a statement is the planner's choice, from
// statistics kept fine enough for rare words (migration 000006); nothing
// here steers it.

// nameKey is the name sort's key (store.NaturalKey), spelled as in
// documents_natural_name_idx.
const nameKey = `(natural_key(title) COLLATE "C")`

// newestOrder is the newest sort, served by documents_newest_idx.
const newestOrder = "created_at DESC, digest DESC"

// Relevance ranks (store.Cursor.Rank): a head match's is blended with
// adoption (headPhase), from RankBase to rankTop.
const (
	rankTop     = 3 * (store.RankBase + store.MaxAdoptionLevel)
	rankBody    = 0
	rankDemoted = -1
)

// headRank is a live row's rank from its title's (A) and description's and
// tags' (B) lexemes; %[1]s is the query of any word.
const headRank = `(ts_filter(head, '{a}') @@ %[1]s)::int * 2 + (ts_filter(head, '{b}') @@ %[1]s)::int`

// sqlBuilder assembles one parameterised statement. User text reaches the
// database only as parameters (the words of a store.Match); the statement's
// shape depends only on how many words there are.
type sqlBuilder struct {
	args  []any
	where []string
}

func newBuilder() *sqlBuilder { return &sqlBuilder{where: []string{"withdrawn_at IS NULL"}} }

func (b *sqlBuilder) arg(v any) string {
	b.args = append(b.args, v)
	return fmt.Sprintf("$%d", len(b.args))
}

func (b *sqlBuilder) and(cond string) { b.where = append(b.where, cond) }

// plain is one word's query. plainto_tsquery keeps operators a user types
// away from the query parser.
func (b *sqlBuilder) plain(word string) string {
	return "plainto_tsquery(" + textSearchConfig + ", " + b.arg(word) + "::text)"
}

// all is the query of the whole match (one word of every group) and any
// that of any of its words.
func (b *sqlBuilder) all(m store.Match) string {
	groups := make([]string, len(m.Groups))
	for i, g := range m.Groups {
		alts := make([]string, len(g))
		for j, w := range g {
			alts[j] = b.plain(w)
		}
		groups[i] = "(" + strings.Join(alts, " || ") + ")"
	}
	return "(" + strings.Join(groups, " && ") + ")"
}

func (b *sqlBuilder) any(m store.Match) string {
	words := m.Words()
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = b.plain(w)
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// planned is the query mode of every statement with words or tags:
// planned for its parameters each time, so their statistics choose the
// plan (a rare word or tag from a GIN index, a common one by walking the
// sort index) and plainto_tsquery is folded into a constant. A cached
// generic plan knows neither (docs/benchmarks/postgres-search.md). A plain
// listing keeps the pool's cached plan.
const planned = pgx.QueryExecModeExec

// modeFor is the query mode of a statement filtering on m and q's filters.
func modeFor(m store.Match, q store.Query) pgx.QueryExecMode {
	if len(m.Groups) > 0 || q.Filtered() {
		return planned
	}
	return pgx.QueryExecModeCacheStatement
}

// filters keeps the rows of q's tags, publisher (documents_publisher_idx)
// and status (a deprecated row is in documents_inactive_idx).
func (b *sqlBuilder) filters(q store.Query) {
	if len(q.Tags) > 0 {
		b.and("tags @> " + b.arg(q.Tags) + "::text[]")
	}
	if q.Publisher != "" {
		b.and("publisher = " + b.arg(q.Publisher) + "::text")
	}
	if q.Status != "" {
		b.and("status = " + b.arg(string(q.Status)) + "::text")
	}
}

// afterNewest keeps the rows after the cursor in newest order.
func (b *sqlBuilder) afterNewest(c store.Cursor, digest []byte) {
	b.and("(created_at, digest) < (" + b.arg(time.UnixMicro(c.Time)) + "::timestamptz, " + b.arg(digest) + "::bytea)")
}

// lexemes is the array of the distinct lexemes words stem to, as the
// statement's parameters.
func (b *sqlBuilder) lexemes(words []string) string {
	spelled := make([]string, len(words))
	for i, w := range words {
		spelled[i] = b.arg(w) + "::text"
	}
	return "tsvector_to_array(to_tsvector(" + textSearchConfig + ", " + strings.Join(spelled, " || ' ' || ") + "))"
}

func (b *sqlBuilder) whereSQL() string { return strings.Join(b.where, " AND ") }

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
	ctx, cancel := s.op(ctx)
	defer cancel()
	m, err := store.Expand(ctx, store.Terms(q.Text), s.words)
	if err != nil {
		return store.Page{}, mapErr(err)
	}
	var rows []searchRow
	if q.Sort == store.SortRelevance {
		rows, err = s.searchRelevance(ctx, q, m, cur, hasCursor, curDigest)
	} else {
		rows, err = s.searchListing(ctx, q, m, cur, hasCursor, curDigest)
	}
	if err != nil {
		return store.Page{}, mapErr(err)
	}
	return makePage(q, rows), nil
}

// searchListing reads a newest or name page: one statement in the sort
// index's order, one row more than the page to tell whether another
// follows.
func (s *Store) searchListing(ctx context.Context, q store.Query, m store.Match, cur store.Cursor, hasCursor bool, curDigest []byte) ([]searchRow, error) {
	b := newBuilder()
	if len(m.Groups) > 0 {
		b.and("search @@ " + b.all(m))
	}
	b.filters(q)
	extra, order := "", newestOrder
	if q.Sort == store.SortName {
		if hasCursor {
			b.and("(" + nameKey + ", digest) > (" + b.arg(cur.Name) + "::text, " + b.arg(curDigest) + "::bytea)")
		}
		extra, order = ", "+nameKey, nameKey+", digest"
	} else if hasCursor {
		b.afterNewest(cur, curDigest)
	}
	sql, err := s.ordered(ctx, b, len(m.Groups) > 0, extra, order, q.Limit+1)
	if err != nil {
		return nil, err
	}
	return s.querySearch(ctx, modeFor(m, q), sql, b.args, rankBody, false, q.Sort == store.SortName)
}

// searchRelevance reads the phases of a relevance page from the cursor's
// rank on, until the page (and one row more) is full.
func (s *Store) searchRelevance(ctx context.Context, q store.Query, m store.Match, cur store.Cursor, hasCursor bool, curDigest []byte) ([]searchRow, error) {
	rank := rankTop
	var from *position // the cursor's: rows after it are read
	if hasCursor {
		rank = int(cur.Rank)
		if float64(rank) != cur.Rank || rank < rankDemoted || rank > rankTop {
			return nil, store.ErrInvalidCursor
		}
		from = &position{rank: rank, name: cur.Name, digest: curDigest}
	}
	want := q.Limit + 1
	var rows []searchRow
	for _, phase := range []struct {
		lowest int // the lowest rank the phase reads
		read   func(limit int) ([]searchRow, error)
	}{
		{1, func(limit int) ([]searchRow, error) {
			return s.headPhase(ctx, q, m, from, limit)
		}},
		{rankBody, func(limit int) ([]searchRow, error) {
			b := newBuilder()
			b.filters(q)
			b.and("demoted = 0")
			b.and("search @@ " + b.all(m))
			b.and("NOT head @@ " + b.any(m))
			return s.namePhase(ctx, b, rankBody, from, limit)
		}},
		{rankDemoted, func(limit int) ([]searchRow, error) {
			b := newBuilder()
			b.filters(q)
			b.and("demoted <> 0")
			b.and("search @@ " + b.all(m))
			return s.namePhase(ctx, b, rankDemoted, from, limit)
		}},
	} {
		if phase.lowest > rank || len(rows) == want {
			continue
		}
		got, err := phase.read(want - len(rows))
		if err != nil {
			return nil, err
		}
		rows = append(rows, got...)
	}
	return rows, nil
}

// position is a row's place in relevance order: rank descending, then
// natural name (natural_key) and digest ascending.
type position struct {
	rank   int
	name   string
	digest []byte
}

func comparePositions(a, b position) int {
	if a.rank != b.rank {
		return b.rank - a.rank
	}
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	return bytes.Compare(a.digest, b.digest)
}

// headPhase selects the live rows with a query word in head, ranked from
// head (3 title and description or tags, 2 title, 1 description or tags)
// times store.RankBase plus the row's adoption level (boost), equal ranks
// by natural name. With several query words the rank depends on which
// words a head holds, so the head's matches are ranked and sorted
// (sortedHead). When the query's words come to one lexeme (one word, its
// prefix expansions stemming alike), an unadopted row's rank is that of
// the lexeme alone, and search_head (migration 000033) holds those rows in
// page order, each tier by name: the page reads as many rows as it lists,
// plus the withdrawn, demoted and adopted ones it skips. The adopted rows
// (boost > 0, their own small index, migration 000027) are ranked and
// sorted beside them. Whether the words are one lexeme is decided in the
// statements, folded into a constant when each is planned for its words, so
// only the statements that can hold rows read any. With a tag, publisher
// or status filter the sort stays: its bitmap of head matches and tags is
// cheap for a rare tag, where the ordered walk would read every head match
// and skip most.
func (s *Store) headPhase(ctx context.Context, q store.Query, m store.Match, from *position, limit int) ([]searchRow, error) {
	if len(m.Groups) != 1 || q.Filtered() {
		return s.sortedHead(ctx, q, m, "", from, limit)
	}
	b := newBuilder()
	b.filters(q)
	base := b.whereSQL() // withdrawn_at: a column of documents alone
	lexemes := b.lexemes(m.Groups[0])
	var tiers []string
	for tier := 3; tier >= 1; tier-- {
		rank := tier * store.RankBase
		after := "true"
		switch {
		case from != nil && rank > from.rank:
			continue
		case from != nil && rank == from.rank:
			after = "(h.name, h.doc) > (" + b.arg(from.name) + "::text, " + b.arg(from.digest) + "::bytea)"
		}
		tiers = append(tiers, fmt.Sprintf(`(SELECT %s, %d AS rank, h.name AS name_key FROM search_head h JOIN documents ON digest = h.doc
			WHERE h.lexeme = (%s)[1] AND h.tier = %d AND %s AND %s AND demoted = 0 AND boost = 0 ORDER BY h.name, h.doc LIMIT %d)`,
			entryColumns, rank, lexemes, tier, after, base, limit))
	}
	var rows []searchRow
	if len(tiers) > 0 {
		sql := `SELECT * FROM (` + strings.Join(tiers, " UNION ALL ") + `) AS head WHERE cardinality(` + lexemes + `) = 1 ORDER BY rank DESC, name_key, digest LIMIT ` + fmt.Sprint(limit)
		got, err := s.querySearch(ctx, planned, sql, b.args, 0, true, true)
		if err != nil {
			return nil, err
		}
		rows = got
	}
	// The rows search_head does not hold in page order: every head match
	// when the words are several lexemes, else the adopted ones. One
	// statement; planned for its words, the OR folds to one of the two.
	got, err := s.sortedHead(ctx, q, m, "(cardinality(%[1]s) <> 1 OR boost > 0)", from, limit)
	if err != nil {
		return nil, err
	}
	rows = append(rows, got...)
	slices.SortFunc(rows, func(a, b searchRow) int { return comparePositions(a.position(), b.position()) })
	return rows[:min(len(rows), limit)], nil
}

// blendedRank is a live head match's rank: headRank times RankBase plus
// its adoption level.
const blendedRank = `(` + headRank + `) * (%[2]d + boost)`

// sortedHead ranks and sorts the live rows with a query word in head and
// q's filters. With one group, a word in head is a match; with more, every
// group must match somewhere (search). only, when set, further restricts
// the rows; %[1]s in it is the query's lexemes.
func (s *Store) sortedHead(ctx context.Context, q store.Query, m store.Match, only string, from *position, limit int) ([]searchRow, error) {
	b := newBuilder()
	b.filters(q)
	anyWord := b.any(m)
	b.and("demoted = 0")
	b.and("head @@ " + anyWord)
	if len(m.Groups) > 1 {
		b.and("search @@ " + b.all(m))
	}
	if only != "" {
		b.and(fmt.Sprintf(only, b.lexemes(m.Groups[0])))
	}
	return s.sortedByName(ctx, `SELECT digest, lower(title), `+fmt.Sprintf(blendedRank, anyWord, store.RankBase)+` FROM documents WHERE `+b.whereSQL(), b.args, from, limit)
}

// namePhase selects b's full-text matches, all of rank, in natural name
// order, after the cursor when it points into this phase. There are two
// ways, and namePhase takes the one that reads fewer rows by the
// planner's estimate of the matches, as ordered does: read every match and
// sort them (sortedByName), or walk the name index
// (documents_natural_name_idx) testing each row. Matches bunched in name
// order (a tag on the titles that start with one word) would make an open
// walk read most of the index, so the walk stops after four times the
// rows the estimate expects and the rest is read and sorted.
func (s *Store) namePhase(ctx context.Context, b *sqlBuilder, rank int, from *position, limit int) ([]searchRow, error) {
	if from != nil && from.rank != rank {
		from = nil
	}
	where, args := b.whereSQL(), b.args
	sorted := func(from *position) ([]searchRow, error) {
		return s.sortedByName(ctx, fmt.Sprintf(`SELECT digest, lower(title), %d FROM documents WHERE %s`, rank, where), args, from, limit)
	}
	matches, err := s.estimate(ctx, `FROM documents WHERE `+where, args)
	if err != nil {
		return nil, err
	}
	rows := float64(s.analyze.rows())
	if matches*matches < rows*float64(limit) {
		return sorted(from)
	}
	walk := int(min(4*float64(limit)*rows/max(matches, 1), rows)) + limit
	// walked is the walk in name order, its cursor's arguments numbered
	// after n others.
	var cursorArgs []any
	walked := func(n int) string {
		after := ""
		if from != nil {
			after = fmt.Sprintf("WHERE (%s, digest) > ($%d::text, $%d::bytea) ", nameKey, n+1, n+2)
		}
		return fmt.Sprintf(`SELECT digest AS walked, %[1]s AS name_key FROM documents %[2]sORDER BY %[1]s, digest LIMIT %[3]d`, nameKey, after, walk)
	}
	if from != nil {
		cursorArgs = []any{from.name, from.digest}
	}
	// Each walked row is tested in turn until the page is full: the join
	// keeps the walk's order, so no sort reads them all.
	out, err := s.querySearch(ctx, planned, fmt.Sprintf(`SELECT %s, w.name_key FROM (%s) AS w JOIN documents ON digest = w.walked WHERE %s ORDER BY w.name_key, w.walked LIMIT %d`,
		entryColumns, walked(len(args)), where, limit), append(slices.Clone(args), cursorArgs...), rank, false, true)
	if err != nil || len(out) == limit {
		return out, err
	}
	// Fewer than a page: past the walk's last row, if it stopped short of
	// the end, the rest is read and sorted.
	var last position
	err = s.pool.QueryRow(ctx, fmt.Sprintf(`SELECT walked, name_key FROM (%s) AS w ORDER BY name_key, walked OFFSET %d LIMIT 1`, walked(0), walk-1),
		append([]any{planned}, cursorArgs...)...).Scan(&last.digest, &last.name)
	if errors.Is(err, pgx.ErrNoRows) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	last.rank = rank
	rest, err := sorted(&last)
	if err != nil {
		return nil, err
	}
	return append(out, rest[:min(len(rest), limit-len(out))]...), nil
}

// sortedByName reads the rows of a statement of digest, lower(title) and
// rank, keeps those after from, sorts them by rank and natural name
// (store.NaturalKeyOfLower: PostgreSQL's natural_key, computed here at a
// fraction of its cost) and reads the entries of the first limit.
func (s *Store) sortedByName(ctx context.Context, sql string, args []any, from *position, limit int) ([]searchRow, error) {
	rows, err := s.pool.Query(ctx, sql, append([]any{planned}, args...)...)
	if err != nil {
		return nil, err
	}
	var found []position
	for rows.Next() {
		var (
			p     position
			lower string
			rank  int32
		)
		if err := rows.Scan(&p.digest, &lower, &rank); err != nil {
			rows.Close()
			return nil, err
		}
		p.rank, p.name = int(rank), store.NaturalKeyOfLower(lower)
		if from == nil || comparePositions(*from, p) < 0 {
			found = append(found, p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(found, comparePositions)
	found = found[:min(len(found), limit)]
	if len(found) == 0 {
		return nil, nil
	}
	digests := make([][]byte, len(found))
	for i, p := range found {
		digests[i] = p.digest
	}
	entries, err := s.pool.Query(ctx, `SELECT `+entryColumns+` FROM documents WHERE digest = ANY($1)`, digests)
	if err != nil {
		return nil, err
	}
	defer entries.Close()
	byDigest := make(map[protocol.Digest]entity.Entry, len(found))
	for entries.Next() {
		e, err := scanEntry(entries, false)
		if err != nil {
			return nil, err
		}
		byDigest[e.Digest] = e
	}
	if err := entries.Err(); err != nil {
		return nil, err
	}
	out := make([]searchRow, 0, len(found))
	for _, p := range found {
		e, ok := byDigest[protocol.Digest(p.digest)]
		if !ok {
			continue
		}
		out = append(out, searchRow{e, store.Cursor{Rank: float64(p.rank), Name: p.name, Time: e.CreatedAt.UnixMicro(), Hex: e.Digest.Hex()}})
	}
	return out, nil
}

// ordered is the statement reading b's rows in order, limit of them, with
// extra columns after entryColumns. With words there are two ways, and
// ordered takes the one that reads fewer rows by the planner's estimate of
// the matches: walk the order's index until limit rows matched (about
// rows×limit/matches rows, each tested), or read every match from the
// full-text index and sort them. A row costs either way about the same
// (5 µs at 1,000,000 documents, docs/benchmarks/postgres-search.md, "Rare
// words at a million"), but the planner, left alone, walks for a rare word
// too: 21,000 rows for a word in one document in a thousand.
func (s *Store) ordered(ctx context.Context, b *sqlBuilder, words bool, extra, order string, limit int) (string, error) {
	where := b.whereSQL()
	if words {
		matches, err := s.estimate(ctx, `FROM documents WHERE `+where, b.args)
		if err != nil {
			return "", err
		}
		if matches*matches < float64(s.analyze.rows())*float64(limit) {
			return fmt.Sprintf(`WITH matches AS MATERIALIZED (SELECT %s FROM documents WHERE %s) SELECT *%s FROM matches ORDER BY %s LIMIT %d`,
				entryColumns, where, extra, order, limit), nil
		}
	}
	return fmt.Sprintf(`SELECT %s%s FROM documents WHERE %s ORDER BY %s LIMIT %d`, entryColumns, extra, where, order, limit), nil
}

// estimate is the planner's estimate of the rows of a FROM … WHERE clause.
func (s *Store) estimate(ctx context.Context, from string, args []any) (float64, error) {
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		}
	}
	if err := s.pool.QueryRow(ctx, `EXPLAIN (FORMAT JSON) SELECT 1 `+from, append([]any{planned}, args...)...).Scan(&plan); err != nil {
		return 0, err
	}
	if len(plan) != 1 {
		return 0, fmt.Errorf("postgres: EXPLAIN returned %d plans", len(plan))
	}
	return plan[0].Plan.Rows, nil
}

// searchRow is one result and the cursor that points after it.
type searchRow struct {
	entry  entity.Entry
	cursor store.Cursor
}

// position is the row's place in relevance order.
func (r searchRow) position() position {
	return position{rank: int(r.cursor.Rank), name: r.cursor.Name, digest: r.entry.Digest[:]}
}

// makePage cuts rows (at most one more than the page) into a page.
func makePage(q store.Query, rows []searchRow) store.Page {
	page := store.Page{Entries: make([]entity.Entry, 0, min(len(rows), q.Limit))}
	for i, r := range rows {
		if i == q.Limit {
			page.NextCursor = q.EncodeCursor(rows[i-1].cursor)
			break
		}
		page.Entries = append(page.Entries, r.entry)
	}
	return page
}

// querySearch runs a statement of entryColumns and, when asked, the rank
// and then the name key; rows of a statement without a rank carry rank.
func (s *Store) querySearch(ctx context.Context, mode pgx.QueryExecMode, sql string, args []any, rank int, withRank, withName bool) ([]searchRow, error) {
	rows, err := s.pool.Query(ctx, sql, append([]any{mode}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []searchRow
	for rows.Next() {
		var (
			c     = store.Cursor{Rank: float64(rank)}
			got   int32
			extra []any
		)
		if withRank {
			extra = append(extra, &got)
		}
		if withName {
			extra = append(extra, &c.Name)
		}
		e, err := scanEntry(rows, false, extra...)
		if err != nil {
			return nil, err
		}
		if withRank {
			c.Rank = float64(got)
		}
		c.Time, c.Hex = e.CreatedAt.UnixMicro(), e.Digest.Hex()
		out = append(out, searchRow{e, c})
	}
	return out, rows.Err()
}

// words reads the word list (store.WordList).
func (s *Store) words(ctx context.Context, from, to string, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT word FROM search_words WHERE word >= $1 AND word < $2 ORDER BY word LIMIT $3`, from, to, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Suggest respells a query by the word list.
func (s *Store) Suggest(ctx context.Context, text string) (string, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	out, err := store.Suggest(ctx, text, s.words)
	return out, mapErr(err)
}

// Summarize counts a query's matches and, with facets, their tags. A
// count reads a full-text index's matches one heap row each (figures in
// docs/benchmarks/postgres-search.md, "The planner's own choice"), so a
// large result set is estimated from the planner's statistics instead (one
// EXPLAIN), and its tags are those of the first store.SummaryRows matches
// read. Without words or tags the counters answer exactly.
func (s *Store) Summarize(ctx context.Context, q store.Query, facets bool) (store.Summary, error) {
	q, err := q.Normalize()
	if err != nil {
		return store.Summary{}, err
	}
	terms := store.Terms(q.Text)
	if len(terms) == 0 && !q.Filtered() {
		return s.summarizeAll(ctx, facets)
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	m, err := store.Expand(ctx, terms, s.words)
	if err != nil {
		return store.Summary{}, mapErr(err)
	}
	b := newBuilder()
	if len(m.Groups) > 0 {
		b.and("search @@ " + b.all(m))
	}
	b.filters(q)
	matches := `FROM documents WHERE ` + b.whereSQL()
	rows, err := s.estimate(ctx, matches, b.args)
	if err != nil {
		return store.Summary{}, mapErr(err)
	}
	estimate := int(rows)
	if estimate > store.MaxCountRows && !facets {
		return store.Summary{Total: estimate, Estimated: true}, nil
	}
	tagged, err := s.pool.Query(ctx, fmt.Sprintf(`SELECT tags %s LIMIT %d`, matches, store.SummaryRows(facets)+1), append([]any{planned}, b.args...)...)
	if err != nil {
		return store.Summary{}, mapErr(err)
	}
	tagRows, err := pgx.CollectRows(tagged, pgx.RowTo[[]string])
	if err != nil {
		return store.Summary{}, mapErr(err)
	}
	sum := store.Summarized(tagRows, q.Tags, facets)
	if sum.Estimated {
		sum.Total = max(estimate, sum.Total)
	}
	return sum, nil
}

// summarizeAll answers for the whole listing from the counters.
func (s *Store) summarizeAll(ctx context.Context, facets bool) (store.Summary, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var listed int
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(listed), 0)::bigint FROM document_counts`).Scan(&listed); err != nil || !facets {
		return store.Summary{Total: listed}, mapErr(err)
	}
	tags, err := s.Tags(ctx, store.MaxFacets)
	return store.Summary{Total: listed, Tags: tags, TagsOf: listed}, err
}
