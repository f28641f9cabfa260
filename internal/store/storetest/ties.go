package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// testRelevanceTies: matches of equal relevance are in natural name order
// ("v9" before "v10"), then digest, not newest first, in every shape of
// search and across pages of every size: no row lost or repeated.
func testRelevanceTies(t *testing.T, open Opener) {
	s := open(t)
	const n = 14
	// Published in an order that is neither the names' nor their reverse,
	// so neither newest nor oldest first passes.
	var want []string
	entries := map[int]entity.Entry{}
	for _, i := range []int{7, 12, 1, 10, 3, 14, 9, 5, 11, 2, 13, 8, 4, 6} {
		nd := prepare(t, simpleDoc(fmt.Sprintf("Weather Alert v%d", i), "Severe weather alerts", []string{"alerts"}, "A siren sounds."))
		nd.Publisher = "acme"
		entries[i] = put(t, s, nd)
	}
	for i := 1; i <= n; i++ {
		want = append(want, entries[i].Metadata.Title)
	}
	// A better match first and a worse one last, which the ties stay between.
	best := putText(t, s, simpleDoc("Weather alert siren", "Weather alerts, siren", []string{"alerts"}, "A siren sounds."))
	worst := putText(t, s, simpleDoc("Old horn", "Loudness", []string{"loud"}, "A siren sounds."))
	_, err := s.SetStatus(ctx(t), worst.Digest, store.StatusChange{Status: entity.StatusDeprecated, Message: "old", Actor: "x"})
	noErr(t, "SetStatus", err)
	for _, c := range []struct {
		q           store.Query
		first, last *entity.Entry
	}{
		{store.Query{Text: "weather alert"}, nil, nil},                      // several words
		{store.Query{Text: "weather"}, nil, nil},                            // one word, in title and description
		{store.Query{Text: "alert"}, nil, nil},                              // one word, a stem of several
		{store.Query{Text: "weath"}, nil, nil},                              // a prefix
		{store.Query{Text: "weather", Tags: []string{"alerts"}}, nil, nil},  // tag:
		{store.Query{Text: "weather", Publisher: "acme"}, nil, nil},         // publisher:
		{store.Query{Text: "alert", Status: entity.StatusActive}, nil, nil}, // status:
		{store.Query{Text: "siren"}, &best, &worst},                         // the body tier, a better and a worse
	} {
		for _, limit := range []int{1, 2, 3, 5, 0} {
			q := c.q
			q.Limit = limit
			got := searchAll(t, s, q)
			titles := titlesOf(got)
			seen := map[string]bool{}
			for _, e := range got {
				if seen[e.Digest.Hex()] {
					t.Fatalf("%+v: %q twice across pages", q, e.Metadata.Title)
				}
				seen[e.Digest.Hex()] = true
			}
			if c.first != nil {
				if len(titles) != n+2 || titles[0] != c.first.Metadata.Title || titles[n+1] != c.last.Metadata.Title {
					t.Fatalf("%+v: %q, want %q first and %q last", q, titles, c.first.Metadata.Title, c.last.Metadata.Title)
				}
				titles = titles[1 : n+1]
			} else {
				titles = slices.DeleteFunc(titles, func(title string) bool {
					return title == best.Metadata.Title || title == worst.Metadata.Title
				})
			}
			if !slices.Equal(titles, want) {
				t.Fatalf("%+v, pages of %d: ties in %q, want natural order %q", q, limit, titles, want)
			}
		}
	}

	// Equal adoption: the adopted ties (ranked apart) in natural order too.
	for _, i := range []int{3, 10, 9} {
		fetchedBy(t, s, entries[i].Digest, 20, 1, byte(i))
	}
	for _, limit := range []int{1, 2, 0} {
		got := titlesOf(searchAll(t, s, store.Query{Text: "weather alert", Limit: limit}))
		if len(got) < 3 || !slices.Equal(got[:3], []string{"Weather Alert v3", "Weather Alert v9", "Weather Alert v10"}) {
			t.Fatalf("adopted ties, pages of %d: %q, want v3, v9, v10 first", limit, got)
		}
	}

	// Demoted ties (deprecated), after the live ones, in natural order.
	for _, i := range []int{12, 2, 11} {
		_, err := s.SetStatus(ctx(t), entries[i].Digest, store.StatusChange{Status: entity.StatusDeprecated, Message: "old", Actor: "acme"})
		noErr(t, "SetStatus", err)
	}
	for _, limit := range []int{1, 2, 0} {
		got := titlesOf(searchAll(t, s, store.Query{Text: "weather", Limit: limit}))
		if len(got) < 3 || !slices.Equal(got[len(got)-3:], []string{"Weather Alert v2", "Weather Alert v11", "Weather Alert v12"}) {
			t.Fatalf("demoted ties, pages of %d: %q, want v2, v11, v12 last", limit, got)
		}
	}
}

// testRelevanceTiesLarge: ties in tiers too large to read whole in one
// page, in a sparse tier among many rows and in a tier bunched at the end
// of the name order (PostgreSQL reads the first by walking the name index,
// the second by sorting its matches, the third by a walk that gives up and
// sorts), paged with small pages, in natural order with no row lost or
// repeated.
func testRelevanceTiesLarge(t *testing.T, open Opener) {
	s := open(t)
	const n = 1000 // within SQLite's first window of publications
	var batch []store.NewDocument
	var dense, sparse, bunched []string
	for i := range n {
		number := (i * 7919) % n
		title := fmt.Sprintf("Ledger %d", number)
		desc, body := "Accounts", "Rows."
		if number >= 800 {
			// osprey: in the bodies of the last fifth by name, bunched where
			// a walk of the name index from the start meets them last.
			body = "An osprey. "
			bunched = append(bunched, title)
		}
		switch {
		case i%3 == 0:
			desc = "Accounts with a tally" // tally: a dense tier (description)
			dense = append(dense, title)
		case i%11 == 1:
			body += "A gannet note." // gannet: a sparse tier (body)
			sparse = append(sparse, title)
		}
		batch = append(batch, prepare(t, simpleDoc(title, desc, nil, body)))
	}
	for from := 0; from < n; from += 250 {
		_, err := s.PutMany(ctx(t), batch[from:from+250])
		noErr(t, "PutMany", err)
	}
	for _, c := range []struct {
		word string
		want []string
	}{{"tally", dense}, {"accounts tally", dense}, {"gannet", sparse}, {"osprey", bunched}} {
		slices.SortFunc(c.want, func(a, b string) int { return strings.Compare(store.NaturalKey(a), store.NaturalKey(b)) })
		for _, limit := range []int{3, 40} {
			got := titlesOf(searchAll(t, s, store.Query{Text: c.word, Limit: limit}))
			if !slices.Equal(got, c.want) {
				t.Fatalf("%s, pages of %d: %d results, want %d in natural order; first difference at %d", c.word, limit, len(got), len(c.want), firstDifference(got, c.want))
			}
		}
	}
}

// firstDifference is the first index where a and b differ.
func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
