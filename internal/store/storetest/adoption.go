package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/adoption/sketch"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

func testAdoption(t *testing.T, open Opener) {
	s := open(t)
	c := ctx(t)
	var es []entity.Entry
	for i := range 5 {
		tag := "even"
		if i%2 == 1 {
			tag = "odd"
		}
		es = append(es, putText(t, s, simpleDoc(fmt.Sprintf("Popular %d", i), "d", []string{tag}, "body")))
	}
	today := time.Date(2026, 3, 31, 15, 0, 0, 0, time.UTC)
	old := today.AddDate(0, 0, -store.AdoptionWindowDays) // just outside the window
	// clients(from, n) is a sketch of n client hashes from..from+n-1.
	clients := func(from, n int) []byte {
		hs := make([]uint64, n)
		for i := range hs {
			hs[i] = uint64(from+i)*0x9e3779b97f4a7c15 + 1
		}
		return sketch.Of(hs)
	}
	add := func(day time.Time, d protocol.Digest, f, r int64, cs []byte) {
		t.Helper()
		noErr(t, "AddAdoption", s.AddAdoption(c, day, []store.AdoptionDelta{{Digest: d, Fetches: f, Resolutions: r, Clients: cs}}))
	}
	add(today, es[2].Digest, 5, 1, clients(0, 4))
	add(today, es[2].Digest, 4, 0, clients(2, 4)) // counts add up, clients merge: 0..5
	add(today.AddDate(0, 0, -3), es[2].Digest, 1, 0, clients(0, 1))
	// One hash twice in a batch (a counter's failed delta meeting new
	// counts): both counts count, the client they share once.
	noErr(t, "AddAdoption twice", s.AddAdoption(c, today, []store.AdoptionDelta{
		{Digest: es[0].Digest, Fetches: 1, Resolutions: 1, Clients: clients(10, 2)},
		{Digest: es[0].Digest, Fetches: 1, Resolutions: 1, Clients: clients(11, 2)}}))
	add(old, es[4].Digest, 100, 0, clients(0, 100)) // old: no score today
	// Many requests from one client: raw fetches never rank.
	add(today, es[1].Digest, 3000, 1, clients(0, 1))
	add(today, digestN(7), 50, 0, clients(0, 50)) // a hash the store lacks counts, but lists nothing
	noErr(t, "AddAdoption of nothing", s.AddAdoption(c, today, nil))
	if err := s.AddAdoption(c, today, make([]store.AdoptionDelta, store.MaxAdoptionBatch+1)); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("an oversized batch: %v", err)
	}
	if err := s.AddAdoption(c, today, []store.AdoptionDelta{{Digest: es[0].Digest, Fetches: 1, Clients: []byte{9, 9}}}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a corrupt sketch: %v", err)
	}

	days, err := s.AdoptionDays(c, es[2].Digest, store.WindowStart(today), today)
	noErr(t, "AdoptionDays", err)
	if len(days) != 2 || !days[0].Day.Equal(store.Day(today.AddDate(0, 0, -3))) || days[1].AdoptionCounts != (store.AdoptionCounts{Fetches: 9, Resolutions: 1, Clients: 6}) {
		t.Fatalf("AdoptionDays = %+v", days)
	}
	totals, err := s.AdoptionTotals(c, []protocol.Digest{es[2].Digest, es[4].Digest, es[3].Digest, es[0].Digest}, store.WindowStart(today))
	noErr(t, "AdoptionTotals", err)
	if totals[es[2].Digest] != (store.AdoptionCounts{Fetches: 10, Resolutions: 1, Clients: 7}) ||
		totals[es[0].Digest] != (store.AdoptionCounts{Fetches: 2, Resolutions: 2, Clients: 3}) || len(totals) != 2 {
		t.Fatalf("AdoptionTotals = %+v", totals)
	}

	// es[3] counted in an earlier window, then today: its score is today's
	// alone. It is spoken by two agents: 2 clients + 2 agents rank it
	// above es[0]'s 3 clients.
	add(old, es[3].Digest, 100, 0, clients(0, 100))
	add(today, es[3].Digest, 3, 0, clients(0, 2))
	for i, u := range []string{"http://a.test/", "http://b.test/"} {
		_, _, err := s.RegisterAgent(c, u, today, entity.AgentCrawl{Name: fmt.Sprint(i), Supported: []entity.AgentProtocol{{Digest: es[3].Digest}}}, today.Add(time.Hour))
		noErr(t, "RegisterAgent", err)
	}

	popular := func(tags ...string) []string {
		t.Helper()
		var out []string
		q := store.Query{Sort: store.SortPopular, Tags: tags, Limit: 2}
		for pages := 0; ; pages++ {
			p, err := s.Popular(c, q)
			noErr(t, "Popular", err)
			out = append(out, hexes(p.Entries)...)
			if p.NextCursor == "" || pages > 10 {
				return out
			}
			q.Cursor = p.NextCursor
		}
	}
	// es[4]'s old day scored when it was added; the refresh moves its
	// window on, and with no score it follows the rest.
	noErr(t, "RefreshAdoption", s.RefreshAdoption(c, today))
	want := []string{es[2].Digest.Hex(), es[3].Digest.Hex(), es[0].Digest.Hex(), es[1].Digest.Hex(), es[4].Digest.Hex()}
	if got := popular(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Popular = %v\nwant      %v", got, want)
	}
	wantEven := []string{es[2].Digest.Hex(), es[0].Digest.Hex(), es[4].Digest.Hex()}
	if got := popular("even"); fmt.Sprint(got) != fmt.Sprint(wantEven) {
		t.Fatalf("Popular(tag even) = %v, want %v", got, wantEven)
	}
	noErr(t, "Withdraw", s.Withdraw(c, es[2].Digest, "gone"))
	if got := popular(); len(got) != 4 || got[0] != es[3].Digest.Hex() {
		t.Fatalf("Popular lists a withdrawn entry: %v", got)
	}
	if _, err := s.Popular(c, store.Query{Sort: store.SortPopular, Text: "word"}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Popular with text: %v", err)
	}
	// The same clients again the same day count nothing more: a retried
	// flush, or a restarted counter's flush of what it already sent.
	dayClients := func(d protocol.Digest, day time.Time) int64 {
		t.Helper()
		days, err := s.AdoptionDays(c, d, day, day)
		noErr(t, "AdoptionDays", err)
		if len(days) != 1 {
			t.Fatalf("AdoptionDays(%s) = %+v", day, days)
		}
		return days[0].Clients
	}
	add(today, es[0].Digest, 1, 0, clients(10, 3))
	if n := dayClients(es[0].Digest, today); n != 3 {
		t.Fatalf("the same clients again: %d clients, want 3", n)
	}
	// Two days on the day's sketch is dropped, its count kept; a late
	// writer's clients then add to the count.
	noErr(t, "RefreshAdoption two days on", s.RefreshAdoption(c, today.AddDate(0, 0, 2)))
	add(today, es[0].Digest, 1, 0, clients(10, 5))
	if n := dayClients(es[0].Digest, today); n != 8 {
		t.Fatalf("after the sketch was dropped: %d clients, want 3+5", n)
	}
	// Retention drops days past AdoptionRetentionDays.
	noErr(t, "RefreshAdoption later", s.RefreshAdoption(c, today.AddDate(0, 0, store.AdoptionRetentionDays+1)))
	days, err = s.AdoptionDays(c, es[0].Digest, today.AddDate(-1, 0, 0), today)
	noErr(t, "AdoptionDays after retention", err)
	if len(days) != 0 {
		t.Fatalf("days past retention stay: %+v", days)
	}
	byHex := hexes([]entity.Entry{es[0], es[1], es[4]})
	slices.Sort(byHex)
	if got := popular(); fmt.Sprint(got) != fmt.Sprint(append([]string{es[3].Digest.Hex()}, byHex...)) {
		t.Fatalf("after retention only speaking agents score, then Popular is by hex: %v, want %v first, then %v", got, es[3].Digest.Hex(), byHex)
	}
}
