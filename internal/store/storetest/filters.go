package storetest

import (
	"slices"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// testSearchFilters: a query's publisher and status keep only the entries
// that have them, in every shape of search (newest, name, relevance,
// popular, paged, with and without words and tags) and in its counts; a
// bad status or publisher is refused.
func testSearchFilters(t *testing.T, open Opener) {
	s := open(t)
	add := func(publisher, title string, tags ...string) entity.Entry {
		nd := prepare(t, simpleDoc(title, "Alerts for "+title, tags, "Body."))
		nd.Publisher = publisher
		return put(t, s, nd)
	}
	acmeOld := add("acme", "Storm warning one", "weather")
	acmeNew := add("acme", "Storm warning two", "weather", "alerts")
	globex := add("globex", "Storm warning three", "weather")
	money := add("acme", "Currency rates", "currency")
	_, err := s.SetStatus(ctx(t), acmeOld.Digest, store.StatusChange{Status: entity.StatusDeprecated, Actor: "acme"})
	noErr(t, "SetStatus deprecated", err)

	all := func(q store.Query) []string {
		t.Helper()
		var out []string
		q.Limit = 1
		for range 10 {
			p := search(t, s, q)
			out = append(out, hexes(p.Entries)...)
			if p.NextCursor == "" {
				slices.Sort(out)
				return out
			}
			q.Cursor = p.NextCursor
		}
		t.Fatalf("%+v pages on and on", q)
		return nil
	}
	set := func(es ...entity.Entry) []string {
		out := hexes(es)
		slices.Sort(out)
		return out
	}
	cases := []struct {
		name string
		q    store.Query
		want []string
	}{
		{"publisher alone", store.Query{Publisher: "acme"}, set(acmeOld, acmeNew, money)},
		{"publisher and words", store.Query{Publisher: "acme", Text: "storm"}, set(acmeOld, acmeNew)},
		{"publisher and prefix", store.Query{Publisher: "globex", Text: "war"}, set(globex)},
		{"publisher and tag", store.Query{Publisher: "acme", Tags: []string{"weather"}}, set(acmeOld, acmeNew)},
		{"publisher, tags and words", store.Query{Publisher: "acme", Tags: []string{"weather", "alerts"}, Text: "storm"}, set(acmeNew)},
		{"deprecated alone", store.Query{Status: entity.StatusDeprecated}, set(acmeOld)},
		{"deprecated and words", store.Query{Status: entity.StatusDeprecated, Text: "storm"}, set(acmeOld)},
		{"active and words", store.Query{Status: entity.StatusActive, Text: "storm"}, set(acmeNew, globex)},
		{"active and tag", store.Query{Status: entity.StatusActive, Tags: []string{"weather"}}, set(acmeNew, globex)},
		{"active publisher", store.Query{Status: entity.StatusActive, Publisher: "acme"}, set(acmeNew, money)},
		{"no such publisher", store.Query{Publisher: "initech", Text: "storm"}, nil},
	}
	for _, c := range cases {
		for _, sort := range []store.Sort{"", store.SortNewest, store.SortName, store.SortRelevance} {
			q := c.q
			q.Sort = sort
			if got := all(q); !slices.Equal(got, c.want) {
				t.Errorf("%s, sort %q: %v, want %v", c.name, sort, got, c.want)
			}
		}
		if c.q.Text == "" {
			q := c.q
			q.Sort = store.SortPopular
			if got := all(q); !slices.Equal(got, c.want) {
				t.Errorf("%s, sort popular: %v, want %v", c.name, got, c.want)
			}
		}
		for _, facets := range []bool{false, true} {
			sum, err := s.Summarize(ctx(t), c.q, facets)
			noErr(t, "Summarize", err)
			if sum.Total != len(c.want) || sum.Estimated {
				t.Errorf("%s: Summarize(facets %v) = %+v, want total %d", c.name, facets, sum, len(c.want))
			}
		}
	}
	// The filter is part of the query a cursor belongs to.
	p := search(t, s, store.Query{Publisher: "acme", Limit: 1})
	_, err = s.Search(ctx(t), store.Query{Publisher: "globex", Limit: 1, Cursor: p.NextCursor})
	wantErr(t, "a cursor of another publisher's query", err, store.ErrInvalidCursor)

	_, err = s.Search(ctx(t), store.Query{Status: "withdrawn"})
	wantErr(t, "status withdrawn", err, store.ErrInvalid)
	_, err = s.Summarize(ctx(t), store.Query{Status: "retired"}, false)
	wantErr(t, "status retired", err, store.ErrInvalid)
	_, err = s.Search(ctx(t), store.Query{Publisher: "Not A Name"})
	wantErr(t, "a malformed publisher", err, entity.ErrInvalidPublisher)
}
