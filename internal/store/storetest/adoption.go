package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

func testAdoption(t *testing.T, open Opener) {
	s := open(t)
	c := ctx(t)
	var es []store.Entry
	for i := range 5 {
		tag := "even"
		if i%2 == 1 {
			tag = "odd"
		}
		es = append(es, putText(t, s, simpleDoc(fmt.Sprintf("Popular %d", i), "d", []string{tag}, "body")))
	}
	today := time.Date(2026, 3, 31, 15, 0, 0, 0, time.UTC)
	old := today.AddDate(0, 0, -store.AdoptionWindowDays) // just outside the window
	add := func(day time.Time, d protocol.Digest, f, r int64) {
		t.Helper()
		noErr(t, "AddAdoption", s.AddAdoption(c, day, []store.AdoptionDelta{{Digest: d, Fetches: f, Resolutions: r}}))
	}
	add(today, es[2].Digest, 5, 1)
	add(today, es[2].Digest, 4, 0) // adds up
	add(today.AddDate(0, 0, -3), es[2].Digest, 1, 0)
	// One hash twice in a batch (a counter's failed delta meeting new
	// counts): both count.
	noErr(t, "AddAdoption twice", s.AddAdoption(c, today, []store.AdoptionDelta{
		{Digest: es[0].Digest, Fetches: 1, Resolutions: 1}, {Digest: es[0].Digest, Fetches: 1, Resolutions: 1}}))
	add(old, es[4].Digest, 100, 0) // old: no score today
	add(today, es[1].Digest, 0, 1)
	add(today, digestN(7), 50, 0) // a hash the store lacks counts, but lists nothing
	noErr(t, "AddAdoption of nothing", s.AddAdoption(c, today, nil))
	if err := s.AddAdoption(c, today, make([]store.AdoptionDelta, store.MaxAdoptionBatch+1)); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("an oversized batch: %v", err)
	}

	days, err := s.AdoptionDays(c, es[2].Digest, store.WindowStart(today), today)
	noErr(t, "AdoptionDays", err)
	if len(days) != 2 || !days[0].Day.Equal(store.Day(today.AddDate(0, 0, -3))) || days[1].Fetches != 9 || days[1].Resolutions != 1 {
		t.Fatalf("AdoptionDays = %+v", days)
	}
	totals, err := s.AdoptionTotals(c, []protocol.Digest{es[2].Digest, es[4].Digest, es[3].Digest}, store.WindowStart(today))
	noErr(t, "AdoptionTotals", err)
	if totals[es[2].Digest] != (store.AdoptionCounts{Fetches: 10, Resolutions: 1}) || len(totals) != 1 {
		t.Fatalf("AdoptionTotals = %+v", totals)
	}

	// es[3] counted in an earlier window, then today: its score is today's
	// alone (the refresh below leaves scores of the current window as
	// they are).
	add(old, es[3].Digest, 100, 0)
	add(today, es[3].Digest, 3, 0)

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
	want := []string{es[2].Digest.Hex(), es[0].Digest.Hex(), es[3].Digest.Hex(), es[1].Digest.Hex(), es[4].Digest.Hex()}
	if got := popular(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Popular = %v\nwant      %v", got, want)
	}
	wantEven := []string{es[2].Digest.Hex(), es[0].Digest.Hex(), es[4].Digest.Hex()}
	if got := popular("even"); fmt.Sprint(got) != fmt.Sprint(wantEven) {
		t.Fatalf("Popular(tag even) = %v, want %v", got, wantEven)
	}
	noErr(t, "Withdraw", s.Withdraw(c, es[2].Digest, "gone"))
	if got := popular(); len(got) != 4 || got[0] != es[0].Digest.Hex() {
		t.Fatalf("Popular lists a withdrawn entry: %v", got)
	}
	if _, err := s.Popular(c, store.Query{Sort: store.SortPopular, Text: "word"}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Popular with text: %v", err)
	}
	// Retention drops days past AdoptionRetentionDays.
	noErr(t, "RefreshAdoption later", s.RefreshAdoption(c, today.AddDate(0, 0, store.AdoptionRetentionDays+1)))
	days, err = s.AdoptionDays(c, es[0].Digest, today.AddDate(-1, 0, 0), today)
	noErr(t, "AdoptionDays after retention", err)
	if len(days) != 0 {
		t.Fatalf("days past retention stay: %+v", days)
	}
	byHex := hexes([]store.Entry{es[0], es[1], es[3], es[4]})
	slices.Sort(byHex)
	if got := popular(); fmt.Sprint(got) != fmt.Sprint(byHex) {
		t.Fatalf("after retention nothing scores, so Popular is by hex: %v, want %v", got, byHex)
	}
}
