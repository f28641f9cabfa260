package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// metaWords is a small vocabulary, so every tier of every query below holds
// many documents (more than a page) and many documents hold a word in the
// body only.
var metaWords = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}

// TestHeadTiersFromTheMetaIndexKeepTheOrder checks the relevance search,
// whose head tiers are asked of documents_meta_fts, page by page against
// the order the tiers give when every tier is asked of documents_fts alone
// (the plan before migration meta_fts, written out here as the oracle): same
// documents, same order, for one, two and three words, with and without a
// tag, before and after withdrawals.
func TestHeadTiersFromTheMetaIndexKeepTheOrder(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "registry.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	rng := rand.New(rand.NewPCG(7, 11))
	words := func(lo, hi int) []string {
		out := make([]string, lo+rng.IntN(hi-lo+1))
		for i := range out {
			out[i] = metaWords[rng.IntN(len(metaWords))]
		}
		return out
	}
	var docs []store.NewDocument
	for i := range 1500 {
		tags := []string{}
		for _, w := range words(0, 2) {
			tags = append(tags, "t-"+w)
		}
		if rng.IntN(3) == 0 {
			tags = append(tags, "team")
		}
		content := fmt.Sprintf("---\nname: doc %d %s\ndescription: %s\ntags: [%s]\n---\n\n%s\n",
			i, strings.Join(words(0, 2), " "), strings.Join(words(0, 3), " "), strings.Join(tags, ", "), strings.Join(words(3, 12), " "))
		doc, err := protocol.Prepare([]byte(content), 0)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, store.NewDocument{Document: doc})
	}
	// Half through PutMany, half through Put: both write paths fill both
	// full-text tables.
	if _, err := s.PutMany(ctx, docs[:750]); err != nil {
		t.Fatal(err)
	}
	for _, nd := range docs[750:] {
		if _, _, err := s.Put(ctx, nd); err != nil {
			t.Fatal(err)
		}
	}

	queries := []store.Query{
		{Text: "alpha"}, {Text: "hotel"}, {Text: "alpha bravo"}, {Text: "charlie delta echo"},
		{Text: "golf", Tags: []string{"team"}}, {Text: "alpha bravo", Tags: []string{"team"}},
		{Text: "t-foxtrot"}, {Text: "doc"}, {Text: "nowhere"}, {Text: "alpha nowhere"},
	}
	check := func(t *testing.T) {
		if meta, full := rowIDs(t, s, "documents_meta_fts"), rowIDs(t, s, "documents_fts"); !slices.Equal(meta, full) {
			t.Errorf("documents_meta_fts holds %d rows, documents_fts %d: they must index the same documents", len(meta), len(full))
		}
		for _, q := range queries {
			q.Sort = store.SortRelevance
			want := oracleRelevance(t, s, q)
			if q.Text == "alpha" && len(want) < 100 {
				t.Fatalf("the corpus is too small to test paging: %d matches of alpha", len(want))
			}
			for _, limit := range []int{7, 0} {
				q.Limit = limit
				var got []string
				q.Cursor = ""
				for page := 0; ; page++ {
					p, err := s.Search(ctx, q)
					if err != nil {
						t.Fatalf("%q: %v", q.Text, err)
					}
					for _, e := range p.Entries {
						got = append(got, e.Digest.Hex())
					}
					if p.NextCursor == "" || page > 1000 {
						break
					}
					q.Cursor = p.NextCursor
				}
				if !slices.Equal(got, want) {
					t.Errorf("%q tags %v limit %d: %d results differ from the oracle's %d (first difference at %d)",
						q.Text, q.Tags, limit, len(got), len(want), firstDifference(got, want))
				}
			}
		}
	}
	t.Run("AsStored", check)
	for i := 0; i < len(docs); i += 9 {
		if err := s.Withdraw(ctx, docs[i].Document.Sums.SHA1, "test"); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("AfterWithdrawals", check)

	// A store upgraded over migration meta_fts gets its meta index from the
	// rows it holds.
	s.Close()
	storetest.OverMigration(t, migrate.SQLite, path, "meta_fts").ToBefore()
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	t.Run("FilledByTheMigration", check)
}

// oracleRelevance is every match of q in relevance order, each tier asked
// of documents_fts with column filters, as the search did before the meta
// index existed, and sorted by window of 1,024 row ids (newest first), then
// name (title_key) and digest.
func oracleRelevance(t *testing.T, s *Store, q store.Query) []string {
	m, err := store.Expand(context.Background(), store.Terms(q.Text), s.words)
	if err != nil {
		t.Fatal(err)
	}
	all, title, meta := ftsAll(m), ftsAnyIn(m, "title"), ftsAnyIn(m, "description tags")
	tiers := []string{
		"(%[1]s) AND (%[2]s) AND (%[3]s)",
		"(%[1]s) AND ((%[2]s) NOT (%[3]s))",
		"(%[1]s) AND ((%[3]s) NOT (%[2]s))",
		"((%[1]s) NOT (%[2]s)) NOT (%[3]s)",
	}
	var out []string
	for _, expr := range tiers {
		query := `SELECT d.hex FROM documents_fts JOIN documents AS d ON d.id = documents_fts.rowid
			WHERE documents_fts MATCH ? AND d.withdrawn_at IS NULL`
		args := []any{fmt.Sprintf(expr, all, title, meta)}
		for _, tag := range q.Tags {
			query += ` AND d.id IN (SELECT doc_id FROM document_tags WHERE tag = ?)`
			args = append(args, tag)
		}
		rows, err := s.read.Query(query+` ORDER BY d.id >> 10 DESC, d.title_key, d.hex`, args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var hex string
			if err := rows.Scan(&hex); err != nil {
				t.Fatal(err)
			}
			out = append(out, hex)
		}
		rows.Close()
	}
	return out
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func rowIDs(t *testing.T, s *Store, table string) []int64 {
	rows, err := s.read.Query(`SELECT rowid FROM ` + table + ` ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// TestTagListingReadsTheTagInOrder: a listing by tag walks the tag's rows
// in their stored newest-first key (migration 0006) and stops after the
// page, rather than reading every row of the tag and sorting them.
func TestTagListingReadsTheTagInOrder(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, q := range []store.Query{{Tags: []string{"a"}}, {Tags: []string{"a", "b"}}, {Tags: []string{"a"}, Cursor: "x"}} {
		q, _ = q.Normalize()
		query, args := listQuery(q, store.Match{}, store.Cursor{Time: 1, Hex: "00"}, q.Cursor != "")
		plan, err := s.queryPlan(context.Background(), query, args...)
		if err != nil {
			t.Fatal(err)
		}
		joined := strings.Join(plan, " | ")
		if !strings.Contains(joined, "document_tags_newest") || strings.Contains(joined, "TEMP B-TREE") {
			t.Fatalf("tags %v: plan %q, want a walk of document_tags_newest without a sort", q.Tags, joined)
		}
	}
}
