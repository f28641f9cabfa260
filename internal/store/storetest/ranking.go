package storetest

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/adoption"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// rankDay is the day the ranking tests count adoption on.
var rankDay = time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)

// fetchedBy counts one raw fetch of d by each of clients distinct client
// addresses, repeat times each, through the adoption counter (its
// per-day distinct-client sketch), and flushes it to s.
func fetchedBy(t *testing.T, s store.Store, d protocol.Digest, clients, repeat int, first byte) {
	t.Helper()
	c := adoption.New(s, nil, func() time.Time { return rankDay })
	for i := range clients {
		addr := netip.AddrFrom4([4]byte{10, first, byte(i >> 8), byte(i)})
		for range repeat {
			c.Fetched(d, addr)
		}
	}
	noErr(t, "Flush", c.Flush(ctx(t)))
}

// spokenBy registers an agent at url that speaks ds.
func spokenBy(t *testing.T, s store.Store, url string, ds ...protocol.Digest) {
	t.Helper()
	var supported []entity.AgentProtocol
	for _, d := range ds {
		supported = append(supported, entity.AgentProtocol{Digest: d})
	}
	_, _, err := s.RegisterAgent(ctx(t), url, rankDay, entity.AgentCrawl{Name: url, Supported: supported}, rankDay.Add(time.Hour))
	noErr(t, "RegisterAgent", err)
	// An agent's protocols count from the next scoring of the day.
	noErr(t, "RefreshAdoption", s.RefreshAdoption(ctx(t), rankDay))
}

// titlesOf is the titles of es, in order.
func titlesOf(es []entity.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Metadata.Title
	}
	return out
}

// testAdoptionRanking: a widely adopted protocol ranks above a crowd of
// newer, better text matches nobody uses; the blend is bounded, leaves
// demoted entries below live ones, and counts distinct clients, never
// requests.
func testAdoptionRanking(t *testing.T, open Opener) {
	s := open(t)
	canonical := putText(t, s, simpleDoc("Weather Protocol v1", "Forecast requests and answers", []string{"forecast"}, "Ask for a forecast."))
	for i := 1; i <= 30; i++ {
		putText(t, s, simpleDoc(fmt.Sprintf("Weather Alert v%d", i), "Severe weather alerts", []string{"alerts"}, "An alert."))
	}
	first := func(q store.Query) entity.Entry {
		t.Helper()
		p := search(t, s, q)
		if len(p.Entries) == 0 {
			t.Fatalf("%+v finds nothing", q)
		}
		return p.Entries[0]
	}
	// Without adoption the newer alerts, "weather" in title and
	// description, rank above the canonical protocol (title only).
	if got := searchAll(t, s, store.Query{Text: "weather", Limit: 7}); len(got) != 31 || got[30].Digest != canonical.Digest {
		t.Fatalf("before adoption: %d results, last %q", len(got), got[len(got)-1].Metadata.Title)
	}
	// An agent speaks it and 90 clients fetch it: score 91, level 3,
	// 2 × (4+3) = 14 above the alerts' 3 × 4 = 12.
	spokenBy(t, s, "http://weather-agent.test/", canonical.Digest)
	fetchedBy(t, s, canonical.Digest, 90, 1, 1)
	for _, q := range []store.Query{
		{Text: "weather"},
		{Text: "weath"}, // a prefix: its expansions
		{Text: "weather protocol"},
		{Text: "weather", Tags: []string{"forecast"}},
		{Text: "weather", Limit: 1},
	} {
		if got := first(q); got.Digest != canonical.Digest {
			t.Errorf("%+v: first is %q, want the adopted Weather Protocol v1", q, got.Metadata.Title)
		}
	}
	all := searchAll(t, s, store.Query{Text: "weather", Limit: 4})
	if len(all) != 31 || all[0].Digest != canonical.Digest {
		t.Fatalf("paging: %d results, first %q", len(all), all[0].Metadata.Title)
	}

	// Bounded: a description-only match with the most adoption (1 × 11)
	// does not pass a title-and-description match (3 × 4).
	side := putText(t, s, simpleDoc("Sky Charts", "Charts of weather fronts", nil, "Fronts."))
	fetchedBy(t, s, side.Digest, 1100, 1, 2)
	got := searchAll(t, s, store.Query{Text: "weather", Limit: 10})
	pos := map[protocol.Digest]int{}
	for i, e := range got {
		pos[e.Digest] = i
	}
	if len(got) != 32 || pos[side.Digest] != 31 {
		t.Fatalf("the most adopted description-only match is at %d of %d, want last: %q", pos[side.Digest], len(got), titlesOf(got))
	}
	// Every word must match, adopted or not.
	if got := searchAll(t, s, store.Query{Text: "weather protocol", Limit: 1}); len(got) != 1 || got[0].Digest != canonical.Digest {
		t.Fatalf("weather protocol: %q, want the protocol alone", titlesOf(got))
	}

	// Requests are not clients: 500 fetches by one client (level 0) rank
	// below 20 clients once each (level 1), though newer and after it by
	// name; a handful of clients is not adoption.
	few := putText(t, s, simpleDoc("Tide Table", "Tides", nil, "Tides."))
	faked := putText(t, s, simpleDoc("Tide Clock", "Tides", nil, "Tides."))
	fetchedBy(t, s, few.Digest, 20, 1, 3)
	fetchedBy(t, s, faked.Digest, 1, 500, 4)
	if got := search(t, s, store.Query{Text: "tide"}).Entries; len(got) != 2 || got[0].Digest != few.Digest {
		t.Fatalf("tide: %q, want the 20 clients' Tide Table before the one client's 500 fetches", titlesOf(got))
	}
	handful := putText(t, s, simpleDoc("Tide Atlas", "Tides", nil, "Tides."))
	fetchedBy(t, s, handful.Digest, 10, 1, 7)
	if got := search(t, s, store.Query{Text: "tide"}).Entries; len(got) != 3 || got[0].Digest != few.Digest || got[1].Digest != handful.Digest {
		t.Fatalf("tide: %q, want the adopted Tide Table, then 10 clients' Tide Atlas in name order with the unadopted", titlesOf(got))
	}
}

// testAdoptionBeforePublish: a document whose score was written before it
// was published (fetched from a mirror, spoken by agents) ranks as
// adopted from its insert, and a score that crosses a level later lifts
// it: the stores rewrite a boost only when its level changes.
func testAdoptionBeforePublish(t *testing.T, open Opener) {
	s := open(t)
	for _, title := range []string{"Harbor Alpha", "Harbor Bravo", "Harbor Charlie"} {
		putText(t, s, simpleDoc(title, "Moorings", nil, "Berths."))
	}
	early := prepare(t, simpleDoc("Harbor Zulu", "Moorings", nil, "Berths."))
	fetchedBy(t, s, early.Document.Sums.SHA1, store.AdoptedScore, 1, 8) // exactly level 1
	_, err := s.PutMany(ctx(t), []store.NewDocument{early})             // an import's path; Put shares the insert
	noErr(t, "PutMany", err)
	if got := search(t, s, store.Query{Text: "harbor"}).Entries; len(got) != 4 || got[0].Digest != early.Document.Sums.SHA1 {
		t.Fatalf("harbor: %q, want Harbor Zulu, adopted before it was published, first", titlesOf(got))
	}
	late := putText(t, s, simpleDoc("Harbor Yankee", "Moorings", nil, "Berths."))
	fetchedBy(t, s, late.Digest, store.AdoptedScore-1, 1, 9)
	if got := search(t, s, store.Query{Text: "harbor"}).Entries; len(got) != 5 || got[4].Digest != late.Digest {
		t.Fatalf("harbor: %q, want Harbor Yankee, one client short of adopted, last in name order with the unadopted", titlesOf(got))
	}
	fetchedBy(t, s, late.Digest, 1, 1, 10) // one more client the same day: level 1
	if got := search(t, s, store.Query{Text: "harbor"}).Entries; len(got) != 5 || got[0].Digest != late.Digest || got[1].Digest != early.Document.Sums.SHA1 {
		t.Fatalf("harbor: %q, want Harbor Yankee, then Zulu (adopted alike, in name order) once one more client fetched it", titlesOf(got))
	}
}

// testAdoptionDemoted: a superseded or deprecated entry stays below every
// live match however adopted it is.
func testAdoptionDemoted(t *testing.T, open Opener) {
	s := open(t)
	nd := prepare(t, simpleDoc("Ledger Protocol", "Ledger sync", nil, "v1."))
	nd.Publisher = "acme"
	v1 := put(t, s, nd)
	nd = prepare(t, "---\nname: Ledger Protocol v2\nsupersedes: "+v1.Digest.Hex()+"\n---\n\nv2.\n")
	nd.Publisher = "acme"
	v2 := put(t, s, nd)
	other := ownedDoc(t, s, "globex", "Ledger audit", nil)
	fetchedBy(t, s, v1.Digest, 300, 1, 5)
	fetchedBy(t, s, other.Digest, 300, 1, 6)
	spokenBy(t, s, "http://ledger-agent.test/", v1.Digest, other.Digest)
	_, err := s.SetStatus(ctx(t), other.Digest, store.StatusChange{Status: entity.StatusDeprecated, Message: "use the protocol", Actor: "globex"})
	noErr(t, "SetStatus", err)
	got := searchAll(t, s, store.Query{Text: "ledger", Limit: 1})
	if len(got) != 3 || got[0].Digest != v2.Digest {
		t.Fatalf("ledger: %q, want the unadopted replacement first, the adopted superseded and deprecated after", titlesOf(got))
	}
}

// testBlendedPaging: paging through a blended ranking at every page size
// returns each match exactly once, in the order of one large page, on
// every read path (one word, its prefix, two words, a filter).
func testBlendedPaging(t *testing.T, open Opener) {
	s := open(t)
	var es []entity.Entry
	for i := range 24 {
		desc, body := "Harbour pilots", "Harbour."
		switch i % 4 {
		case 1:
			desc = "Harbour radio"
		case 2:
			desc, body = "Pilot boats", "Harbour radio boats."
		}
		title := fmt.Sprintf("Harbour radio %d", i)
		if i%4 == 3 {
			title = fmt.Sprintf("Coast radio %d", i)
		}
		es = append(es, putText(t, s, simpleDoc(title, desc, []string{"sea"}, body)))
	}
	_, err := s.SetStatus(ctx(t), es[5].Digest, store.StatusChange{Status: entity.StatusDeprecated, Message: "old", Actor: "x"})
	noErr(t, "SetStatus", err)
	// Levels 0 to 4 across the rows, equal ones among them.
	for i, e := range es {
		if n := []int{0, 20, 40, 0, 80, 160, 0, 40}[i%8]; n > 0 {
			fetchedBy(t, s, e.Digest, n, 2, byte(10+i))
		}
	}
	for _, q := range []store.Query{
		{Text: "radio"}, {Text: "harbour"}, {Text: "harb"}, {Text: "harbour radio"}, {Text: "radio", Tags: []string{"sea"}},
	} {
		q.Limit = store.MaxPageSize
		want := search(t, s, q).Entries
		if len(want) < 10 {
			t.Fatalf("%+v finds %d", q, len(want))
		}
		for _, size := range []int{1, 2, 3, 5, 7} {
			q.Limit = size
			got := searchAll(t, s, q)
			seen := map[protocol.Digest]bool{}
			for i, e := range got {
				if seen[e.Digest] {
					t.Fatalf("%+v: %q twice", q, e.Metadata.Title)
				}
				seen[e.Digest] = true
				if i < len(want) && e.Digest != want[i].Digest {
					t.Fatalf("%+v: at %d %q, one page has %q", q, i, e.Metadata.Title, want[i].Metadata.Title)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%+v: pages hold %d, one page %d", q, len(got), len(want))
			}
		}
	}
}

// testNaturalOrder: the name sort orders numbers in titles by value, the
// same on every engine, page by page.
func testNaturalOrder(t *testing.T, open Opener) {
	s := open(t)
	want := []string{"Alert", "Alert 100", "Alert v1.9", "alert v1.10", "Alert v2", "Alert v9", "Alert v10", "Alerts"}
	for _, i := range []int{6, 2, 0, 7, 3, 5, 1, 4} {
		putText(t, s, simpleDoc(want[i], "Alerts", nil, "Alert."))
	}
	for _, limit := range []int{0, 1, 3} {
		got := titlesOf(searchAll(t, s, store.Query{Sort: store.SortName, Limit: limit}))
		if !slices.Equal(got, want) {
			t.Fatalf("name sort, pages of %d: %q, want %q", limit, got, want)
		}
	}
	if got := titlesOf(search(t, s, store.Query{Text: "alert", Sort: store.SortName}).Entries); !slices.Equal(got, want) {
		t.Fatalf("name sort of a search: %q, want %q", got, want)
	}
}
