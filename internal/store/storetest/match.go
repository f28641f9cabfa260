package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/agora-registry/registry/internal/store"
)

// testMatchSearch: the match index finds a document by any word of its
// title, tags, description, representative queries or headings, ranks a
// title or query hit above a heading-only one, skips withdrawn documents,
// indexes both write paths and refuses arguments outside the contract.
func testMatchSearch(t *testing.T, open Opener) {
	s := open(t)
	c := ctx(t)
	put(t, s, prepare(t, "---\nname: Table Booking\ndescription: Reserve seats at a restaurant.\ntags: [dining]\n"+
		"representativeQueries: [book dinner for four tonight, get a spot at a bistro]\n---\n\n# Booking\n\n## Party size\n\nText.\n"))
	put(t, s, prepare(t, "---\nname: Kitchen Inventory\ndescription: Stock counts.\n---\n\n## Dinner service\n\nText.\n"))
	batch, err := s.PutMany(c, []store.NewDocument{
		prepare(t, "---\nname: Ferry Tickets\ndescription: Sail between islands.\nrepresentativeQueries: [cross to the island by boat, buy a boat ride]\n---\n\nBody.\n"),
	})
	if err != nil || !batch[0] {
		t.Fatalf("PutMany: %v %v", batch, err)
	}
	gone := put(t, s, prepare(t, "---\nname: Old Dinner Planner\ndescription: Plan dinner.\n---\n\nBody.\n"))
	if err := s.Withdraw(c, gone.Digest, "test"); err != nil {
		t.Fatal(err)
	}
	titles := func(words ...string) []string {
		t.Helper()
		hits, err := s.MatchSearch(c, words, 10)
		if err != nil {
			t.Fatalf("MatchSearch(%q): %v", words, err)
		}
		var out []string
		for i, h := range hits {
			if i > 0 && h.Relevance > hits[i-1].Relevance {
				t.Errorf("MatchSearch(%q): relevance rises at %d: %v", words, i, hits)
			}
			out = append(out, h.Entry.Metadata.Title)
		}
		return out
	}
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"bistro"}, []string{"Table Booking"}},                      // a representative query
		{[]string{"boat"}, []string{"Ferry Tickets"}},                        // a query of a PutMany document
		{[]string{"party"}, []string{"Table Booking"}},                       // a heading
		{[]string{"dining", "zebra"}, []string{"Table Booking"}},             // a tag; any word suffices
		{[]string{"dinner"}, []string{"Table Booking", "Kitchen Inventory"}}, // a query above a heading; withdrawn left out
		{[]string{"seats"}, []string{"Table Booking"}},                       // the description
		{[]string{"books"}, []string{"Table Booking"}},                       // stemmed: "books" finds "book"
	} {
		if got := titles(c.words...); !slices.Equal(got, c.want) {
			t.Errorf("MatchSearch(%q) = %q, want %q", c.words, got, c.want)
		}
	}
	for _, bad := range [][]string{nil, {"a\"b"}, {""}, make([]string, store.MaxMatchWords+1)} {
		if _, err := s.MatchSearch(c, bad, 5); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("MatchSearch(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := s.MatchSearch(c, []string{"dinner"}, store.MaxMatchHits+1); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a limit over MaxMatchHits = %v, want ErrInvalid", err)
	}
}
