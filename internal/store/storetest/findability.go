package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// testFindability: the last query word matches the indexed words it is a
// prefix of, a misspelt query gets the nearest indexed words as a
// suggestion, Summarize counts the matches and the tags among them, and
// a superseded document is marked and ranked after every live match until
// its newer version is withdrawn.
func testFindability(t *testing.T, open Opener) {
	t.Run("Prefix", func(t *testing.T) {
		s := open(t)
		e := putText(t, s, simpleDoc("Weather forecast", "Rain and sun", []string{"meteo"}, "Body."))
		putText(t, s, simpleDoc("Unrelated", "nothing", []string{"misc"}, "Other body."))
		for _, text := range []string{"weath", "WEATHER", "forecast weat", "weather fore", "meteo"} {
			if got := hexes(search(t, s, store.Query{Text: text}).Entries); len(got) != 1 || got[0] != e.Digest.Hex() {
				t.Fatalf("Search %q = %v, want the weather document", text, got)
			}
		}
		// Only the last word is a prefix, and only from MinPrefixRunes on.
		for _, text := range []string{"weath forecast", "we", "eather"} {
			if got := search(t, s, store.Query{Text: text}).Entries; len(got) != 0 {
				t.Fatalf("Search %q = %v, want nothing", text, hexes(got))
			}
		}
	})

	t.Run("Suggest", func(t *testing.T) {
		s := open(t)
		putText(t, s, simpleDoc("Weather forecast", "Daily outlook", []string{"meteo"}, "Body."))
		for _, c := range []struct{ text, want string }{
			{"wether", "weather"}, {"wether forcast", "weather forecast"}, {"weather", ""}, {"zzzzzz", ""}, {"", ""},
			{"daly outlok", "daily outlook"},
		} {
			got, err := s.Suggest(ctx(t), c.text)
			noErr(t, "Suggest", err)
			if got != c.want {
				t.Fatalf("Suggest(%q) = %q, want %q", c.text, got, c.want)
			}
		}
	})

	t.Run("Summarize", func(t *testing.T) {
		s := open(t)
		for i := range 3 {
			putText(t, s, simpleDoc(fmt.Sprintf("Weather %d", i), "x", []string{"weather", "api"}, "Body."))
		}
		putText(t, s, simpleDoc("Booking", "x", []string{"booking", "api"}, "Body about weather."))
		putText(t, s, simpleDoc("Booking two", "x", []string{"booking"}, "Body."))
		check := func(q store.Query, total int, tags ...store.TagCount) {
			t.Helper()
			sum, err := s.Summarize(ctx(t), q, true)
			noErr(t, "Summarize", err)
			if sum.Total != total || sum.Estimated || sum.TagsOf != total || !slices.Equal(sum.Tags, tags) {
				t.Fatalf("Summarize(%+v) = %+v, want total %d, tags %v", q, sum, total, tags)
			}
			if plain, err := s.Summarize(ctx(t), q, false); err != nil || plain.Total != total || plain.Tags != nil {
				t.Fatalf("Summarize(%+v) without facets = %+v, %v", q, plain, err)
			}
		}
		tc := func(tag string, n int) store.TagCount { return store.TagCount{Tag: tag, Count: n} }
		check(store.Query{}, 5, tc("api", 4), tc("weather", 3), tc("booking", 2))
		// The tags are those of the matches: no booking under weather.
		check(store.Query{Tags: []string{"weather"}}, 3, tc("api", 3))
		check(store.Query{Text: "weather"}, 4, tc("api", 4), tc("weather", 3), tc("booking", 1))
		check(store.Query{Text: "weather", Tags: []string{"booking"}}, 1, tc("api", 1))
		check(store.Query{Text: "nothing"}, 0)
		// More matches than a summary reads: an estimate, at least what
		// was read, and tags counted over the rows read.
		var batch []store.NewDocument
		for i := range store.MaxSummaryRows + 100 {
			batch = append(batch, prepare(t, simpleDoc(fmt.Sprintf("Many %d", i), "x", []string{"many"}, "Plenty of words.")))
		}
		_, err := s.PutMany(ctx(t), batch)
		noErr(t, "PutMany", err)
		for _, q := range []store.Query{{Text: "plenty"}, {Text: "plenty", Tags: []string{"many"}}} {
			sum, err := s.Summarize(ctx(t), q, true)
			noErr(t, "Summarize", err)
			if !sum.Estimated || sum.Total <= store.MaxSummaryRows || sum.TagsOf != store.MaxSummaryRows ||
				!slices.Equal(sum.Tags, []store.TagCount{tc("many", store.MaxSummaryRows)}[:len(sum.Tags)]) {
				t.Fatalf("Summarize(%+v) of %d matches = %+v", q, store.MaxSummaryRows+100, sum)
			}
		}
		// One tag alone is counted exactly (SQLite) or estimated (PostgreSQL),
		// never less than the matches read.
		if sum, err := s.Summarize(ctx(t), store.Query{Tags: []string{"many"}}, false); err != nil || sum.Total <= store.MaxCountRows ||
			(!sum.Estimated && sum.Total != store.MaxSummaryRows+100) {
			t.Fatalf("Summarize(tag many) = %+v, %v", sum, err)
		}
		_, err = s.Summarize(ctx(t), store.Query{Tags: []string{"!!!"}}, true)
		wantErr(t, "Summarize with an invalid tag", err, store.ErrInvalid)
	})

	t.Run("Superseded", func(t *testing.T) {
		s := open(t)
		own := func(content string) entity.Entry {
			nd := prepare(t, content)
			nd.Publisher = "acme"
			return put(t, s, nd)
		}
		v1 := own(simpleDoc("Gazelle protocol", "about the gazelle", []string{"gazelle"}, "Body."))
		other := putText(t, s, simpleDoc("Plain", "nothing", []string{"misc"}, "A gazelle in the body."))
		// A stranger's claim to supersede v1 does not demote it.
		claim := prepare(t, fmt.Sprintf("---\nname: Claim\nsupersedes: %s\n---\n\nBody.\n", v1.Digest.Hex()))
		claim.Publisher = "mallory"
		put(t, s, claim)
		order := func() []string { return hexes(search(t, s, store.Query{Text: "gazelle"}).Entries) }
		if got, want := order(), hexes([]entity.Entry{v1, other}); !slices.Equal(got, want) {
			t.Fatalf("before a version: %v, want %v", got, want)
		}
		v2 := own(fmt.Sprintf("---\nname: Okapi protocol\nsupersedes: %s\n---\n\nNow about okapis, a gazelle in passing.\n", v1.Digest.Hex()))
		// v1's title match no longer ranks it above the body matches.
		if got, want := order(), hexes([]entity.Entry{v2, other, v1}); !slices.Equal(got, want) {
			t.Fatalf("after its version: %v, want the version, the other body match, then v1 %v", got, want)
		}
		page := search(t, s, store.Query{Text: "gazelle"})
		for _, e := range page.Entries {
			if e.Superseded() != (e.Digest == v1.Digest) {
				t.Fatalf("%s (%q) superseded = %v", e.Digest, e.Metadata.Title, e.Superseded())
			}
		}
		got, err := s.Get(ctx(t), v1.Digest, false)
		noErr(t, "Get", err)
		if !got.Superseded() {
			t.Fatal("Get does not mark v1 superseded")
		}
		// Keyset pages across the demoted rank.
		if walked := hexes(searchAll(t, s, store.Query{Text: "gazelle", Limit: 1})); !slices.Equal(walked, order()) {
			t.Fatalf("pages of one: %v, want %v", walked, order())
		}
		noErr(t, "Withdraw", s.Withdraw(ctx(t), v2.Digest, "gone"))
		if got, want := order(), hexes([]entity.Entry{v1, other}); !slices.Equal(got, want) {
			t.Fatalf("after its version is withdrawn: %v, want %v", got, want)
		}
	})
}
