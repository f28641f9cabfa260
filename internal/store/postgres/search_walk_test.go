package postgres

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// TestSearchWalksLargeTiers pages through relevance searches over a
// corpus larger than the conformance suite's: dense and sparse tiers, words
// in no head, several words, tag filters, cursors at every tier boundary
// and rows inserted between pages. Every page of every query is compared
// with the order computed here from the documents themselves: tier (a word
// in title and description or tags, title, description or tags, body),
// then natural name, then digest, both ascending.
func TestSearchWalksLargeTiers(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })

	c := &walkCorpus{s: s}
	c.seed(t, walkCorpusSize)
	c.checkSizes(t)

	for _, q := range walkQueries {
		t.Run(queryName(q), func(t *testing.T) {
			want := c.expected(q)
			for _, limit := range []int{walkSmallPage, 0} {
				q.Limit = limit
				c.pageThrough(t, q, want)
			}
		})
	}

	// Cursors at every tier boundary and at regular steps, each resuming
	// one page: a page may start anywhere, not only where paging from the
	// first page happens to cut.
	t.Run("ResumeAnywhere", func(t *testing.T) {
		for _, q := range walkQueries {
			q.Limit = walkSmallPage
			c.resumeAnywhere(t, q, c.expected(q))
		}
	})

	// A word in one document's body is read from the full-text index and
	// sorted; a word in most documents is found by walking the newest
	// index (ordered's choice, from the planner's estimate).
	t.Run("FewMatchesSortedManyWalked", func(t *testing.T) {
		for _, tc := range []struct {
			word   string
			sorted bool
		}{{"1234", true}, {"walrus", false}} {
			b := newBuilder()
			b.and("search @@ " + b.plain(tc.word))
			sql, err := s.ordered(ctx, b, true, "", newestOrder, walkSmallPage+1)
			if err != nil {
				t.Fatal(err)
			}
			if sorted := strings.HasPrefix(sql, "WITH matches AS MATERIALIZED"); sorted != tc.sorted {
				t.Errorf("%s: sorted %v, want %v: %s", tc.word, sorted, tc.sorted, sql)
			}
		}
	})

	// A cursor in a tier no row of the query is in (a document of that
	// tier was withdrawn, say): the page continues with the ranks below.
	t.Run("CursorInEmptyTier", func(t *testing.T) {
		for _, tc := range []struct {
			text string
			tier int
		}{{"narwhal", 1}, {"narwhal", 3}, {"quokka", 3}, {"quokka", 2}} {
			q := store.Query{Text: tc.text, Limit: walkSmallPage}
			want := c.expected(q)
			// Any position: the first result's name and digest.
			key := walkKey{tier: tc.tier, name: want[0].name, digest: want[0].digest}
			c.checkResume(t, q, key, want)
		}
	})

	// Rows added between two pages: the rows that were there at the start
	// appear exactly once, and every page is what the cursor selects from
	// the rows there at the time it is read.
	t.Run("InsertsBetweenPages", func(t *testing.T) {
		for i, tc := range []struct {
			text  string
			limit int
			after int // pages read before the insert
		}{{"walrus", walkSmallPage, 3}, {"walrus badger", 0, 2}, {"quokka", walkSmallPage, 40}, {"walrus", 0, 60}} {
			c.pageThroughWithInsert(t, store.Query{Text: tc.text, Limit: tc.limit}, tc.after, fmt.Sprintf("late%d", i))
		}
	})
}

const (
	// walkCorpusSize documents are seeded: "walrus" is in 80% of the
	// titles (about 2,500 head candidates), and "ibex" is in the titles of
	// the oldest documents and a few new ones.
	walkCorpusSize = 3200
	// ibexOld is how many of the oldest documents have "ibex" in the title.
	ibexOld = 1050
	// walkSmallPage is the small page size; the default is the other.
	walkSmallPage = 7
)

// walkQueries are the searches checked, each with the shape it is for.
var walkQueries = []store.Query{
	// Dense tiers 3 and 2, a sparse tier 1 at both ends of time, body
	// matches.
	{Text: "walrus"},
	// In titles only: tier 3 is empty.
	{Text: "narwhal"},
	// In descriptions and tags only: tiers 3 and 2 are empty.
	{Text: "quokka"},
	// In few titles and many bodies.
	{Text: "badger"},
	// In no head at all: the body only.
	{Text: "ocelot"},
	// Many heads and many matches of both.
	{Text: "walrus badger"},
	// Many heads, few matches of both.
	{Text: "walrus ocelot"},
	// Few heads, many matches of both.
	{Text: "badger lemur"},
	// Heads, but no document holds both.
	{Text: "ocelot badger"},
	// Many heads and many matches, two title words.
	{Text: "narwhal walrus"},
	// In the titles of the oldest documents and a few new ones.
	{Text: "ibex"},
	// A dense word with a tag filter.
	{Text: "walrus", Tags: []string{"zoo"}},
	// A tag-only word with a tag filter (fewer heads).
	{Text: "quokka", Tags: []string{"zoo"}},
}

func queryName(q store.Query) string {
	name := strings.ReplaceAll(q.Text, " ", "_")
	if len(q.Tags) > 0 {
		name += "+" + strings.Join(q.Tags, "+")
	}
	return name
}

// walkDoc is one stored document and the words of its parts, from which
// the test computes every query's results without the store.
type walkDoc struct {
	title, desc, body []string
	tags              []string
	withdrawn         bool
	nd                store.NewDocument
	digest            protocol.Digest
	created           time.Time // as stored
}

// walkKey is a row's position in relevance order.
type walkKey struct {
	tier   int
	name   string // store.NaturalKey of the title
	digest protocol.Digest
}

// before reports whether k comes before o in relevance order (tier
// descending, then name and digest ascending).
func (k walkKey) before(o walkKey) bool {
	if k.tier != o.tier {
		return k.tier > o.tier
	}
	if k.name != o.name {
		return k.name < o.name
	}
	return bytes.Compare(k.digest[:], o.digest[:]) < 0
}

type walkCorpus struct {
	s    *Store
	docs []*walkDoc
}

// walkBase is the seeded documents' creation time: in the past, so rows
// added later with the default time (now()) are the newest.
var walkBase = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// makeDoc builds document i of a batch. Its words decide its tier for each
// query word; the comments give each word's share of the documents.
func makeDoc(i, n int, batch string) *walkDoc {
	d := &walkDoc{
		title: []string{"entry", batch, fmt.Sprint(i)},
		desc:  []string{"note"},
		body:  []string{"text", "number", fmt.Sprint(i), "of", batch},
		tags:  []string{"misc"},
	}
	r := i % 10
	// walrus: title and description (tier 3) 40%, title (tier 2) 40%,
	// description (tier 1) only within 60 documents of either end of time
	// (a wide gap between), else body (tier 0).
	switch {
	case r <= 3:
		d.title = append(d.title, "walrus")
		d.desc = append(d.desc, "walrus")
	case r <= 7:
		d.title = append(d.title, "walrus")
	case r == 8 && (i < 60 || i >= n-60):
		d.desc = append(d.desc, "walrus")
	case r == 8:
		d.body = append(d.body, "walrus")
	}
	// narwhal: titles of odd documents (tier 2), bodies of every sixth.
	if i%2 == 1 {
		d.title = append(d.title, "narwhal")
	} else if i%6 == 0 {
		d.body = append(d.body, "narwhal")
	}
	// quokka: never in a title; a tag (a third) or the description (a
	// seventh), else in some bodies.
	inMeta := false
	if i%3 == 2 {
		d.tags = append(d.tags, "quokka")
		inMeta = true
	}
	if i%7 == 3 {
		d.desc = append(d.desc, "quokka")
		inMeta = true
	}
	if !inMeta && i%11 == 5 {
		d.body = append(d.body, "quokka")
	}
	// badger: few titles (i%20 == 7, all odd), half the bodies (even).
	if i%20 == 7 {
		d.title = append(d.title, "badger")
	} else if i%2 == 0 {
		d.body = append(d.body, "badger")
	}
	// ocelot: bodies only (i%4 == 1: never with badger).
	if i%4 == 1 {
		d.body = append(d.body, "ocelot")
	}
	// lemur: few titles, most bodies.
	if i%50 == 3 {
		d.title = append(d.title, "lemur")
	} else if i%7 != 0 {
		d.body = append(d.body, "lemur")
	}
	// ibex: titles of the oldest documents and of one in 400.
	if i < ibexOld || i%400 == 399 {
		d.title = append(d.title, "ibex")
	}
	if i%2 == 0 {
		d.tags = append(d.tags, "zoo")
	}
	d.withdrawn = i%97 == 13
	return d
}

// prepare makes d's document; created zero means now().
func (c *walkCorpus) prepare(t *testing.T, d *walkDoc, created time.Time) {
	t.Helper()
	content := fmt.Sprintf("---\nname: %s\ndescription: %s\ntags: [%s]\n---\n\n%s\n",
		strings.Join(d.title, " "), strings.Join(d.desc, " "), strings.Join(d.tags, ", "), strings.Join(d.body, " "))
	doc, err := protocol.Prepare([]byte(content), 0)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	d.nd = store.NewDocument{Document: doc, CreatedAt: created}
	if d.withdrawn {
		at := walkBase
		d.nd.WithdrawnAt, d.nd.WithdrawReason = &at, "test"
	}
	d.digest = doc.Sums.SHA1
}

// seed stores n documents: three share each creation time (ties broken by
// digest), and the last 100 are one PutMany with the default time, so they
// all share now().
func (c *walkCorpus) seed(t *testing.T, n int) {
	t.Helper()
	var batch []*walkDoc
	for i := range n {
		d := makeDoc(i, n, "seed")
		created := time.Time{}
		if i < n-100 {
			created = walkBase.Add(time.Duration(i/3) * time.Second)
		}
		c.prepare(t, d, created)
		batch = append(batch, d)
		if len(batch) == 500 || i == n-101 || i == n-1 {
			c.put(t, batch)
			batch = nil
		}
	}
}

// put stores docs in one PutMany and reads back their creation times.
func (c *walkCorpus) put(t *testing.T, docs []*walkDoc) {
	t.Helper()
	ctx := context.Background()
	nds := make([]store.NewDocument, len(docs))
	digests := make([][]byte, len(docs))
	for i, d := range docs {
		nds[i] = d.nd
		digests[i] = d.digest[:]
	}
	created, err := c.s.PutMany(ctx, nds)
	if err != nil {
		t.Fatalf("PutMany: %v", err)
	}
	for i, ok := range created {
		if !ok {
			t.Fatalf("PutMany: document %d was not new", i)
		}
	}
	rows, err := c.s.pool.Query(ctx, "SELECT digest, created_at FROM documents WHERE digest = ANY($1)", digests)
	if err != nil {
		t.Fatal(err)
	}
	times := map[protocol.Digest]time.Time{}
	for rows.Next() {
		var digest []byte
		var at time.Time
		if err := rows.Scan(&digest, &at); err != nil {
			t.Fatal(err)
		}
		times[protocol.Digest(digest)] = at
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		at, ok := times[d.digest]
		if !ok {
			t.Fatalf("document %s is not stored", d.digest.Hex())
		}
		d.created = at
		c.docs = append(c.docs, d)
	}
}

// checkSizes makes sure the corpus's words are their own lexemes.
func (c *walkCorpus) checkSizes(t *testing.T) {
	t.Helper()
	// The words must be their own lexemes, so that matching words here is
	// matching lexemes there.
	for _, word := range []string{"walrus", "narwhal", "quokka", "badger", "ocelot", "lemur", "ibex"} {
		var lexeme string
		if err := c.s.pool.QueryRow(context.Background(), "SELECT plainto_tsquery("+textSearchConfig+", $1)::text", word).Scan(&lexeme); err != nil {
			t.Fatal(err)
		}
		if lexeme != "'"+word+"'" {
			t.Fatalf("%q stems to %s", word, lexeme)
		}
	}
}

// expected is q's result computed from the documents: the listed ones
// with every tag of q and every word somewhere, in relevance order.
func (c *walkCorpus) expected(q store.Query) []walkKey {
	terms := store.Terms(q.Text)
	var out []walkKey
	for _, d := range c.docs {
		if d.withdrawn || !hasAll(d.tags, q.Tags) {
			continue
		}
		matches, inTitle, inMeta := true, false, false
		for _, term := range terms {
			title := slices.Contains(d.title, term)
			meta := slices.Contains(d.desc, term) || slices.Contains(d.tags, term)
			inTitle, inMeta = inTitle || title, inMeta || meta
			matches = matches && (title || meta || slices.Contains(d.body, term))
		}
		if !matches {
			continue
		}
		tier := 0
		if inTitle {
			tier += 2
		}
		if inMeta {
			tier++
		}
		out = append(out, walkKey{tier: tier, name: store.NaturalKey(strings.Join(d.title, " ")), digest: d.digest})
	}
	slices.SortFunc(out, func(a, b walkKey) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	return out
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// after is the part of want after the position key.
func after(want []walkKey, key walkKey) []walkKey {
	for i, k := range want {
		if key.before(k) {
			return want[i:]
		}
	}
	return nil
}

// pageThrough reads every page of q and compares them with want.
func (c *walkCorpus) pageThrough(t *testing.T, q store.Query, want []walkKey) {
	t.Helper()
	var got []protocol.Digest
	for page := 1; ; page++ {
		p := c.search(t, q)
		for _, e := range p.Entries {
			got = append(got, e.Digest)
		}
		if !c.samePrefix(t, q, page, got, want) {
			return
		}
		if p.NextCursor == "" {
			break
		}
		if len(p.Entries) == 0 {
			t.Fatalf("%s limit %d page %d: an empty page with a next cursor", q.Text, q.Limit, page)
		}
		q.Cursor = p.NextCursor
	}
	if len(got) != len(want) {
		t.Errorf("%s %v limit %d: %d results, want %d (missing from %s on)", q.Text, q.Tags, q.Limit, len(got), len(want), c.describe(want[len(got)]))
	}
}

// samePrefix reports whether got is the start of want, and says where it
// is not.
func (c *walkCorpus) samePrefix(t *testing.T, q store.Query, page int, got []protocol.Digest, want []walkKey) bool {
	t.Helper()
	for i, d := range got {
		if i >= len(want) {
			t.Errorf("%q %v limit %d page %d: result %d (%s) is beyond the %d matches", q.Text, q.Tags, q.Limit, page, i, d.Hex(), len(want))
			return false
		}
		if d != want[i].digest {
			t.Errorf("%q %v limit %d page %d: result %d is %s, want %s", q.Text, q.Tags, q.Limit, page, i,
				c.describe(c.keyOf(d, q)), c.describe(want[i]))
			return false
		}
	}
	return true
}

// keyOf is the position of the document with digest d in q's order, or a
// key of tier -1 for a document not in the corpus.
func (c *walkCorpus) keyOf(d protocol.Digest, q store.Query) walkKey {
	for _, k := range c.expected(q) {
		if k.digest == d {
			return k
		}
	}
	return walkKey{tier: -1, digest: d}
}

func (c *walkCorpus) describe(k walkKey) string {
	if k.tier < 0 {
		return k.digest.Hex() + " (not a match of the query)"
	}
	return fmt.Sprintf("%s (tier %d, name %q)", k.digest.Hex(), k.tier, k.name)
}

func (c *walkCorpus) search(t *testing.T, q store.Query) store.Page {
	t.Helper()
	p, err := c.s.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%q %v limit %d): %v", q.Text, q.Tags, q.Limit, err)
	}
	return p
}

// cursorAt is the cursor the store would give after a row at key.
func cursorAt(t *testing.T, q store.Query, key walkKey) string {
	t.Helper()
	n, err := q.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	rank := key.tier
	if rank > 0 { // a head match without adoption ranks tier × RankBase
		rank *= store.RankBase
	}
	return n.EncodeCursor(store.Cursor{Rank: float64(rank), Name: key.name, Hex: key.digest.Hex()})
}

// checkResume reads one page of q from a cursor at key.
func (c *walkCorpus) checkResume(t *testing.T, q store.Query, key walkKey, want []walkKey) {
	t.Helper()
	q.Cursor = cursorAt(t, q, key)
	rest := after(want, key)
	p := c.search(t, q)
	var got []protocol.Digest
	for _, e := range p.Entries {
		got = append(got, e.Digest)
	}
	if !c.samePrefix(t, q, 0, got, rest) {
		t.Errorf("(the page resumed after %s)", c.describe(key))
		return
	}
	if wantLen := min(len(rest), q.Limit); len(got) != wantLen || (p.NextCursor != "") != (len(rest) > q.Limit) {
		t.Errorf("%q %v from %s: %d results and next cursor %t, want %d of %d", q.Text, q.Tags, c.describe(key),
			len(got), p.NextCursor != "", wantLen, len(rest))
	}
}

// resumeAnywhere resumes q after the rows around every tier boundary and
// after every 97th row.
func (c *walkCorpus) resumeAnywhere(t *testing.T, q store.Query, want []walkKey) {
	t.Helper()
	for i, k := range want {
		boundary := false
		for j := max(0, i-2); j <= min(len(want)-1, i+2); j++ {
			boundary = boundary || want[j].tier != k.tier
		}
		if boundary || i%97 == 0 || i == len(want)-1 {
			c.checkResume(t, q, k, want)
		}
	}
}

// pageThroughWithInsert reads q's pages and, after the first pagesBefore,
// stores a batch of new documents: some with the default time (the
// newest), some with the times of existing documents (imports), in every
// tier of the corpus' words.
func (c *walkCorpus) pageThroughWithInsert(t *testing.T, q store.Query, pagesBefore int, batch string) {
	t.Helper()
	start := c.expected(q)
	var got []protocol.Digest
	seenBefore := 0 // results read before the insert
	for page := 1; ; page++ {
		p := c.search(t, q)
		for _, e := range p.Entries {
			got = append(got, e.Digest)
		}
		if p.NextCursor == "" {
			break
		}
		if page == pagesBefore {
			if !c.samePrefix(t, q, page, got, start) {
				return
			}
			seenBefore = len(got)
			c.insertLate(t, batch)
		}
		q.Cursor = p.NextCursor
	}
	if seenBefore == 0 {
		t.Fatalf("%q: fewer than %d pages", q.Text, pagesBefore)
	}
	// What the cursor selects from the rows there after the insert.
	want := append(slices.Clone(start[:seenBefore]), after(c.expected(q), start[seenBefore-1])...)
	if !c.samePrefix(t, q, -1, got, want) {
		return
	}
	if len(got) != len(want) {
		t.Errorf("%q with an insert: %d results, want %d", q.Text, len(got), len(want))
	}
	seen := map[protocol.Digest]int{}
	for _, d := range got {
		seen[d]++
	}
	for _, k := range start {
		if seen[k.digest] != 1 {
			t.Errorf("%q with an insert: %s seen %d times", q.Text, c.describe(k), seen[k.digest])
		}
	}
}

// insertLate stores 60 new documents: the even ones with the default time,
// the odd ones with the time of a seeded document.
func (c *walkCorpus) insertLate(t *testing.T, batch string) {
	t.Helper()
	var docs []*walkDoc
	for i := range 60 {
		d := makeDoc(i*37, walkCorpusSize, batch)
		d.withdrawn = false
		created := time.Time{}
		if i%2 == 1 {
			created = c.docs[(i*131)%walkCorpusSize].created
		}
		c.prepare(t, d, created)
		docs = append(docs, d)
	}
	c.put(t, docs)
}
