package storetest

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

func testSearch(t *testing.T, open Opener) {
	t.Run("Fields", func(t *testing.T) {
		s := open(t)
		e := putText(t, s, simpleDoc("Aardvark title", "Bumblebee description", []string{"capybara"}, "Dromedary body text."))
		putText(t, s, simpleDoc("Unrelated", "nothing here", []string{"other"}, "Other body."))
		for _, word := range []string{"aardvark", "bumblebee", "capybara", "dromedary", "AARDVARK", "Dromedary"} {
			got := hexes(search(t, s, store.Query{Text: word}).Entries)
			if len(got) != 1 || got[0] != e.Digest.Hex() {
				t.Fatalf("Search %q = %v, want the one document holding it", word, got)
			}
		}
		if got := search(t, s, store.Query{Text: "okapi"}).Entries; len(got) != 0 {
			t.Fatalf("Search for an absent word returned %v", hexes(got))
		}
		// Words are ANDed.
		if got := search(t, s, store.Query{Text: "aardvark dromedary"}).Entries; len(got) != 1 {
			t.Fatalf("Search for two words of one document returned %d entries", len(got))
		}
		if got := search(t, s, store.Query{Text: "aardvark other"}).Entries; len(got) != 0 {
			t.Fatalf("Search for words of two different documents returned %v", hexes(got))
		}
	})

	t.Run("Ranking", func(t *testing.T) {
		s := open(t)
		// Published from the best tier to the worst, so newest-first order
		// (what a search without relevance returns) is the reverse of the
		// ranking; two documents per lower tier, published against their
		// names' order, check that equal ranks are in natural name order
		// ("9" before "10"), not newest first.
		both := putText(t, s, simpleDoc("Quokka atlas", "All about the quokka", []string{"misc"}, "Body."))
		title := putText(t, s, simpleDoc("Quokka handbook", "nothing", []string{"misc"}, "Body."))
		desc := putText(t, s, simpleDoc("Plain one", "Where a quokka lives", []string{"misc"}, "Body."))
		tag := putText(t, s, simpleDoc("Plain two", "nothing", []string{"quokka"}, "Body."))
		body9 := putText(t, s, simpleDoc("Plain 9", "nothing", []string{"misc"}, "A quokka lives here."))
		body10 := putText(t, s, simpleDoc("Plain 10", "nothing", []string{"misc"}, "Another quokka too."))
		got := hexes(search(t, s, store.Query{Text: "quokka"}).Entries)
		want := hexes([]entity.Entry{both, title, desc, tag, body9, body10})
		if !slices.Equal(got, want) {
			t.Fatalf("relevance order %v;\nwant title and description %v, title %v, description or tag by name %v, body by name %v",
				got, want[0], want[1], want[2:4], want[4:])
		}
	})

	t.Run("Stemming", func(t *testing.T) {
		s := open(t)
		e := putText(t, s, simpleDoc("Regional outlook", "nothing", []string{"misc"}, "The forecast for tomorrow."))
		putText(t, s, simpleDoc("Unrelated", "nothing", []string{"misc"}, "Other body."))
		// Both engines stem English words, so either form finds the other.
		for _, word := range []string{"forecast", "forecasts", "Forecasts", "forecasting"} {
			if got := hexes(search(t, s, store.Query{Text: word}).Entries); len(got) != 1 || got[0] != e.Digest.Hex() {
				t.Fatalf("Search %q = %v, want the document saying \"forecast\"", word, got)
			}
		}
	})

	t.Run("Unicode", func(t *testing.T) {
		s := open(t)
		e := putText(t, s, simpleDoc("Prévisions météo", "Données pour Zürich", []string{"wetter"}, "Straße und Café."))
		for _, word := range []string{"météo", "MÉTÉO", "prévisions", "zürich", "café"} {
			if got := hexes(search(t, s, store.Query{Text: word}).Entries); len(got) != 1 || got[0] != e.Digest.Hex() {
				t.Fatalf("Search %q = %v, want the accented document", word, got)
			}
		}
	})

	t.Run("TagFilter", func(t *testing.T) {
		s := open(t)
		ab := putText(t, s, simpleDoc("Both", "x", []string{"alpha", "beta"}, "Shared word walrus."))
		a := putText(t, s, simpleDoc("Only alpha", "x", []string{"alpha"}, "Shared word walrus."))
		putText(t, s, simpleDoc("Only beta", "x", []string{"beta"}, "Other words."))
		check := func(q store.Query, want ...entity.Entry) {
			t.Helper()
			got := hexes(search(t, s, q).Entries)
			slices.Sort(got)
			w := hexes(want)
			slices.Sort(w)
			if !slices.Equal(got, w) {
				t.Fatalf("Search(%+v) = %v, want %v", q, got, w)
			}
		}
		check(store.Query{Tags: []string{"alpha", "beta"}}, ab)
		check(store.Query{Tags: []string{"alpha"}}, ab, a)
		check(store.Query{Tags: []string{"Alpha"}}, ab, a) // tags are normalised
		check(store.Query{Tags: []string{"alpha"}, Text: "walrus"}, ab, a)
		check(store.Query{Tags: []string{"beta"}, Text: "walrus"}, ab)
		check(store.Query{Tags: []string{"gamma"}})
		_, err := s.Search(ctx(t), store.Query{Tags: []string{"!!!"}})
		wantErr(t, "Search with an invalid tag", err, store.ErrInvalid)
		_, err = s.Search(ctx(t), store.Query{Tags: []string{"a", "b", "c", "d", "e", "f"}})
		wantErr(t, "Search with too many tags", err, store.ErrInvalid)
	})

	t.Run("Sorts", func(t *testing.T) {
		s := open(t)
		var stored []entity.Entry
		for _, title := range []string{"banana", "Apple", "cherry", "apple pie", "Date"} {
			stored = append(stored, putText(t, s, simpleDoc(title, "fruit salad", []string{"fruit"}, "Fruit.")))
		}
		name := search(t, s, store.Query{Sort: store.SortName}).Entries
		var titles []string
		for _, e := range name {
			titles = append(titles, e.Metadata.Title)
		}
		if want := []string{"Apple", "apple pie", "banana", "cherry", "Date"}; !slices.Equal(titles, want) {
			t.Fatalf("name order %q, want %q (case-insensitive)", titles, want)
		}
		for _, q := range []store.Query{{}, {Sort: store.SortNewest}, {Sort: store.SortRelevance}, {Sort: store.SortNewest, Text: "fruit"}} {
			newest := search(t, s, q).Entries
			checkNewestOrder(t, newest)
			if len(newest) != len(stored) {
				t.Fatalf("Search(%+v) returned %d entries, want %d", q, len(newest), len(stored))
			}
			if newest[0].Digest != stored[len(stored)-1].Digest && !sameTime(newest[0].CreatedAt, stored[len(stored)-1].CreatedAt) {
				t.Fatalf("Search(%+v): newest first is %q, want the last stored %q", q, newest[0].Metadata.Title, stored[len(stored)-1].Metadata.Title)
			}
		}
		_, err := s.Search(ctx(t), store.Query{Sort: "random"})
		wantErr(t, "Search with an unknown sort", err, store.ErrInvalid)
	})

	t.Run("Limit", func(t *testing.T) {
		s := open(t)
		var batch []store.NewDocument
		for i := range store.MaxPageSize + 5 {
			batch = append(batch, prepare(t, simpleDoc(fmt.Sprintf("Limit %03d", i), "limits", []string{"limit"}, "Body.")))
		}
		_, err := s.PutMany(ctx(t), batch)
		noErr(t, "PutMany", err)
		for _, c := range []struct{ limit, want int }{{0, store.DefaultPageSize}, {1, 1}, {7, 7}, {store.MaxPageSize, store.MaxPageSize}, {100000, store.MaxPageSize}} {
			p := search(t, s, store.Query{Limit: c.limit})
			if len(p.Entries) != c.want || p.NextCursor == "" {
				t.Fatalf("Limit %d gave %d entries (next cursor %q), want %d and a cursor", c.limit, len(p.Entries), p.NextCursor, c.want)
			}
		}
		_, err = s.Search(ctx(t), store.Query{Limit: -1})
		wantErr(t, "Search with a negative limit", err, store.ErrInvalid)
	})

	t.Run("HostileText", func(t *testing.T) {
		s := open(t)
		e := putText(t, s, simpleDoc("Hostile target", "near the end", []string{"x"}, "Body with title and near and or and not words."))
		hostile := []string{
			`"`, `'`, `""`, `"unterminated`, `*`, `a*`, `*a`, `NEAR`, `NEAR(a b)`, `NEAR/2`, `a NEAR b`,
			`-`, `-title`, `title:`, `title:hostile`, `{title}: hostile`, `:`, `;`, `%`, `_`, `%_%`, `\`, `\\`, `\"`,
			`AND`, `OR`, `NOT`, `a AND`, `OR b`, `NOT NOT`, `(`, `)`, `((a)`, `^hostile`, `+hostile`,
			`'; DROP TABLE documents; --`, `" OR 1=1 --`, `1' OR '1'='1`, `$$`, `$1`, `?`, `@@`, `&`, `|`, `!`, `<->`, `<2>`,
			`a & b | !c`, `hostile:*`, `'hostile':*`, `\x00`, "tab\there", "new\nline", "nul\x00byte", "🔥", "the", "the of a",
			`hostile OR target`, `hostile NOT target`, `hostile -target`, `"hostile target"`, strings.Repeat("a", store.MaxQueryRunes),
			strings.Repeat("ä", store.MaxQueryRunes), strings.Repeat("x ", store.MaxQueryRunes/2), `.*`, `[a-z]`, `%00`, `\u0000`,
		}
		for _, text := range hostile {
			for _, sort := range []store.Sort{"", store.SortNewest, store.SortName} {
				if _, err := s.Search(ctx(t), store.Query{Text: text, Sort: sort}); err != nil {
					t.Fatalf("Search(%q, sort %q) failed: %v", text, sort, err)
				}
			}
		}
		// The quoted words still match as plain words.
		for _, text := range []string{`"hostile"`, `hostile*`, `title:hostile`, `-hostile`, `'hostile'`, `(hostile)`, `hostile; --`} {
			if got := hexes(search(t, s, store.Query{Text: text}).Entries); len(got) != 1 || got[0] != e.Digest.Hex() {
				t.Fatalf("Search(%q) = %v, want the document with the word", text, got)
			}
		}
		_, err := s.Search(ctx(t), store.Query{Text: strings.Repeat("a", store.MaxQueryRunes+1)})
		wantErr(t, "Search with a too long query", err, store.ErrInvalid)
		_, err = s.Search(ctx(t), store.Query{Text: "bad \xff utf8"})
		wantErr(t, "Search with invalid UTF-8", err, store.ErrInvalid)
		if got := search(t, s, store.Query{}).Entries; len(got) != 1 {
			t.Fatal("the store lost data after hostile queries")
		}
	})
}

// checkNewestOrder fails unless entries run newest first, ties by hex descending.
func checkNewestOrder(t testing.TB, es []entity.Entry) {
	t.Helper()
	for i := 1; i < len(es); i++ {
		a, b := es[i-1], es[i]
		if a.CreatedAt.Before(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.Digest.Hex() < b.Digest.Hex()) {
			t.Fatalf("entries %d and %d are not newest first: %v then %v", i-1, i, a.CreatedAt, b.CreatedAt)
		}
	}
}

// paginationQueries are the orders pagination is tested with; every
// document of paginationDoc matches each of them.
var paginationQueries = []store.Query{
	{Sort: store.SortNewest},
	{Sort: store.SortName},
	{Text: "pangolin"},
	{Text: "pangolin", Sort: store.SortName},
	{Tags: []string{"page"}, Sort: store.SortNewest},
}

// paginationDoc makes document i; titles are not in insertion order, several
// titles repeat (ties broken by hash) and a third carry the word in the title
// (so relevance has ties and distinct ranks).
func paginationDoc(t testing.TB, i int, batch string) store.NewDocument {
	title := fmt.Sprintf("Entry %02d", (i*37)%23)
	if i%3 == 0 {
		title += " pangolin"
	}
	return prepare(t, simpleDoc(title, "pagination "+batch, []string{"page"}, fmt.Sprintf("pangolin number %d of %s", i, batch)))
}

func testPagination(t *testing.T, open Opener) {
	t.Run("Walk", func(t *testing.T) {
		s := open(t)
		const n = 53
		for i := range n {
			put(t, s, paginationDoc(t, i, "walk"))
		}
		for _, q := range paginationQueries {
			one := search(t, s, store.Query{Text: q.Text, Tags: q.Tags, Sort: q.Sort, Limit: store.MaxPageSize})
			if len(one.Entries) != n || one.NextCursor != "" {
				t.Fatalf("%+v: one page returned %d entries (cursor %q), want %d and no cursor", q, len(one.Entries), one.NextCursor, n)
			}
			for _, limit := range []int{1, 7, 10, n} {
				q.Limit = limit
				walked := searchAll(t, s, q)
				if !slices.Equal(hexes(walked), hexes(one.Entries)) {
					t.Fatalf("%+v: walking pages of %d gave another order or set than one page", q, limit)
				}
			}
		}
	})

	t.Run("StableUnderInserts", func(t *testing.T) {
		for _, q := range paginationQueries {
			t.Run(fmt.Sprintf("%s_%s_%s", q.Sort, q.Text, strings.Join(q.Tags, "")), func(t *testing.T) {
				s := open(t)
				original := map[string]bool{}
				for i := range 30 {
					e := put(t, s, paginationDoc(t, i, "original"))
					original[e.Digest.Hex()] = true
				}
				q.Limit = 4
				seen := map[string]int{}
				extra := 0
				for pages := 0; ; pages++ {
					p := search(t, s, q)
					for _, e := range p.Entries {
						seen[e.Digest.Hex()]++
					}
					if p.NextCursor == "" {
						break
					}
					if pages > 100 {
						t.Fatal("pagination does not end")
					}
					// New rows land between page fetches.
					for range 3 {
						put(t, s, paginationDoc(t, 100+extra, "inserted"))
						extra++
					}
					q.Cursor = p.NextCursor
				}
				for h, n := range seen {
					if n > 1 {
						t.Fatalf("entry %s appeared %d times across pages", h, n)
					}
				}
				for h := range original {
					if seen[h] != 1 {
						t.Fatalf("existing entry %s was skipped while rows were inserted", h)
					}
				}
			})
		}
	})

	t.Run("InvalidCursor", func(t *testing.T) {
		s := open(t)
		for i := range 5 {
			put(t, s, paginationDoc(t, i, "cursor"))
		}
		p := search(t, s, store.Query{Text: "pangolin", Limit: 2})
		if p.NextCursor == "" {
			t.Fatal("expected a next cursor")
		}
		bad := []store.Query{
			{Text: "pangolin", Limit: 2, Cursor: "garbage!"},
			{Text: "pangolin", Limit: 2, Cursor: base64.RawURLEncoding.EncodeToString([]byte("not json"))},
			{Text: "pangolin", Limit: 2, Cursor: base64.RawURLEncoding.EncodeToString([]byte(`{"s":"relevance","q":1,"h":"zz"}`))},
			{Text: "pangolin", Limit: 2, Cursor: strings.Repeat("A", 600)},
			{Text: "other", Limit: 2, Cursor: p.NextCursor},
			{Text: "pangolin", Sort: store.SortName, Limit: 2, Cursor: p.NextCursor},
			{Text: "pangolin", Tags: []string{"page"}, Limit: 2, Cursor: p.NextCursor},
			{Limit: 2, Cursor: p.NextCursor},
		}
		for _, q := range bad {
			_, err := s.Search(ctx(t), q)
			wantErr(t, fmt.Sprintf("Search with cursor %q for %+v", q.Cursor, q), err, store.ErrInvalidCursor)
		}
		// The cursor still works for its own query, with another limit too.
		search(t, s, store.Query{Text: "pangolin", Limit: 3, Cursor: p.NextCursor})
	})
}
