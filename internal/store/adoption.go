package store

import (
	"context"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
)

// Adoption signals: per-hash daily counts of raw fetches and resolutions.
const (
	// AdoptionWindowDays is the window of the JSON views' counts, the
	// sparkline and sort=popular.
	AdoptionWindowDays = 30
	// AdoptionRetentionDays is how long daily rows are kept.
	AdoptionRetentionDays = 60
	// MaxAdoptionBatch caps the deltas of one AddAdoption call.
	MaxAdoptionBatch = 1000
)

// SortPopular orders by the last AdoptionWindowDays' fetches and
// resolutions, most first; it takes no query text.
const SortPopular Sort = "popular"

// AdoptionDelta is what a batch adds to one hash's counts of a day.
type AdoptionDelta struct {
	Digest      protocol.Digest
	Fetches     int64
	Resolutions int64
}

// AdoptionCounts are counts over some days.
type AdoptionCounts struct {
	Fetches     int64
	Resolutions int64
}

// AdoptionDay is one day's counts (Day is midnight UTC).
type AdoptionDay struct {
	Day time.Time
	AdoptionCounts
}

// Day is the UTC day of t, as midnight UTC.
func Day(t time.Time) time.Time {
	return t.UTC().Truncate(24 * time.Hour)
}

// WindowStart is the first day of the AdoptionWindowDays window ending on
// today's day.
func WindowStart(today time.Time) time.Time {
	return Day(today).AddDate(0, 0, -(AdoptionWindowDays - 1))
}

// Adoption is the adoption-signal half of the store.
type Adoption interface {
	// AddAdoption adds deltas (at most MaxAdoptionBatch) to the counts of
	// day, and brings those hashes' popularity scores up to date. A hash
	// may appear more than once; its deltas add up. day is not before the
	// today of the process's last RefreshAdoption: the counter holds it
	// there when the clock steps back, and SQLite's scores rely on it.
	AddAdoption(ctx context.Context, day time.Time, deltas []AdoptionDelta) error
	// AdoptionDays returns d's counts for the days from..through, one per
	// day that has any, oldest first.
	AdoptionDays(ctx context.Context, d protocol.Digest, from, through time.Time) ([]AdoptionDay, error)
	// AdoptionTotals sums each of ds's counts from day since on (at most
	// MaxResolve digests); a hash without counts is left out.
	AdoptionTotals(ctx context.Context, ds []protocol.Digest, since time.Time) (map[protocol.Digest]AdoptionCounts, error)
	// RefreshAdoption recomputes the scores whose window has moved on by
	// today and drops days past AdoptionRetentionDays (run once a day).
	RefreshAdoption(ctx context.Context, today time.Time) error
	// Popular is Search for SortPopular: listed entries with a score, most
	// popular first (ties by hex), then the rest by hex.
	Popular(ctx context.Context, q Query) (Page, error)
}

// PopularPage cuts a Popular page of q.Limit entries from rows read with
// one more, scores[i] being entries[i]'s (0 past the scored ones).
func PopularPage(q Query, entries []Entry, scores []int64) Page {
	p := Page{Entries: entries}
	if len(entries) > q.Limit {
		p.Entries = entries[:q.Limit]
		last := entries[q.Limit-1]
		p.NextCursor = q.EncodeCursor(Cursor{Rank: float64(scores[q.Limit-1]), Hex: last.Digest.Hex()})
	}
	return p
}
