package store

import (
	"context"
	"time"

	"github.com/agora-registry/registry/internal/adoption/sketch"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// Adoption signals: per-hash daily counts of raw fetches and resolutions,
// and of distinct clients (a sketch of keyed hashes, internal/adoption).
const (
	// AdoptionWindowDays is the window of the JSON views' counts, the
	// sparkline and sort=popular.
	AdoptionWindowDays = 30
	// AdoptionRetentionDays is how long daily rows are kept.
	AdoptionRetentionDays = 60
	// MaxAdoptionBatch caps the deltas of one AddAdoption call.
	MaxAdoptionBatch = 1000
)

// SortPopular orders by the last AdoptionWindowDays' distinct clients
// (each day's, summed) plus the agents that speak the document, most
// first; never by raw requests. It takes no query text.
const SortPopular Sort = "popular"

// AdoptionDelta is what a batch adds to one hash's counts of a day.
type AdoptionDelta struct {
	Digest      protocol.Digest
	Fetches     int64
	Resolutions int64
	// Clients is a sketch (internal/adoption/sketch) of keyed hashes of
	// the clients that fetched or resolved the hash: merged into the
	// day's sketch as a union, so a hash seen twice counts once.
	Clients []byte
}

// AdoptionCounts are counts over some days.
type AdoptionCounts struct {
	Fetches     int64
	Resolutions int64
	// Clients is the distinct clients of each day, summed over the days
	// (a client is counted once per day it came).
	Clients int64
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
	// day, merges their client sketches into the day's, and brings those
	// hashes' popularity scores up to date. A hash may appear more than
	// once; its counts add up, its sketches merge. A corrupt sketch fails
	// the batch with ErrInvalid. day is not before the
	// today of the process's last RefreshAdoption: the counter holds it
	// there when the clock steps back, and SQLite's scores rely on it.
	AddAdoption(ctx context.Context, day time.Time, deltas []AdoptionDelta) error
	// AdoptionDays returns d's counts for the days from..through, one per
	// day that has any, oldest first.
	AdoptionDays(ctx context.Context, d protocol.Digest, from, through time.Time) ([]AdoptionDay, error)
	// AdoptionTotals sums each of ds's counts from day since on (at most
	// MaxResolve digests); a hash without counts is left out.
	AdoptionTotals(ctx context.Context, ds []protocol.Digest, since time.Time) (map[protocol.Digest]AdoptionCounts, error)
	// RefreshAdoption recomputes every score for the window ending today
	// (the speaking agents included), drops the client sketches of days
	// before yesterday (their counts stay) and days past
	// AdoptionRetentionDays (run once a day).
	RefreshAdoption(ctx context.Context, today time.Time) error
	// Popular is Search for SortPopular: listed entries with a score, most
	// popular first (ties by hex), then the rest by hex.
	Popular(ctx context.Context, q Query) (Page, error)
}

// PopularPage cuts a Popular page of q.Limit entries from rows read with
// one more, scores[i] being entries[i]'s (0 past the scored ones).
func PopularPage(q Query, entries []entity.Entry, scores []int64) Page {
	p := Page{Entries: entries}
	if len(entries) > q.Limit {
		p.Entries = entries[:q.Limit]
		last := entries[q.Limit-1]
		p.NextCursor = q.EncodeCursor(Cursor{Rank: float64(scores[q.Limit-1]), Hex: last.Digest.Hex()})
	}
	return p
}

// MergeDeltas is deltas with one entry per hash, in first-seen order:
// counts added, client sketches merged (ErrInvalid for a corrupt one).
func MergeDeltas(deltas []AdoptionDelta) ([]AdoptionDelta, error) {
	at := make(map[protocol.Digest]int, len(deltas))
	out := make([]AdoptionDelta, 0, len(deltas))
	for _, d := range deltas {
		i, ok := at[d.Digest]
		if !ok {
			if _, err := sketch.Estimate(d.Clients); err != nil {
				return nil, ErrInvalid.With("corrupt client sketch")
			}
			at[d.Digest] = len(out)
			out = append(out, d)
			continue
		}
		m, err := sketch.Merge(out[i].Clients, d.Clients)
		if err != nil {
			return nil, ErrInvalid.With("corrupt client sketch")
		}
		out[i].Fetches += d.Fetches
		out[i].Resolutions += d.Resolutions
		out[i].Clients = m
	}
	return out, nil
}

// StoredClients is a day row's client count and sketch as an engine read
// it (Exists false: no row yet).
type StoredClients struct {
	Exists  bool
	Clients int64
	Sketch  []byte
}

// Merge returns the day's client count and sketch once add is merged in.
// A row whose sketch the daily refresh dropped (a count without one: a
// day before yesterday, written by a process whose clock lags) adds add's
// count instead, its sketch staying dropped; so does a stored sketch that
// is corrupt, so one bad row cannot fail every later batch that holds it.
func (sc StoredClients) Merge(add []byte) (int64, []byte, error) {
	_, bad := sketch.Estimate(sc.Sketch)
	if bad != nil || sc.Exists && sc.Sketch == nil && sc.Clients > 0 {
		n, err := sketch.Estimate(add)
		if err != nil {
			return 0, nil, ErrInvalid.With("corrupt client sketch")
		}
		return sc.Clients + n, nil, nil
	}
	m, err := sketch.Merge(sc.Sketch, add)
	if err != nil {
		return 0, nil, ErrInvalid.With("corrupt client sketch")
	}
	n, err := sketch.Estimate(m)
	if err != nil {
		return 0, nil, ErrInvalid.With("corrupt client sketch")
	}
	return n, m, nil
}

// Search blends a head match's text rank with adoption: its score is
// rank × (RankBase + level), level being AdoptionLevel of its adoption
// score (the popular sort's: distinct clients, never requests, plus
// speaking agents). The factor runs from 1 to 2.75, so adoption lifts a
// title match past newer title-and-description matches, never a
// description-only match past a title-and-description one, and never a
// demoted entry past a live one. The engines keep the level in a column
// (migrations 000027/0027, thresholds 000034/0034), in step with the score.
const (
	RankBase         = 4
	MaxAdoptionLevel = 7
	// AdoptedScore is the score of level 1. Search reads every adopted
	// match of a query apart from the others, so the adopted must stay
	// few: a document a handful of clients fetched once is not adopted,
	// else a registry whose documents are each fetched a few times reads
	// every match that way (docs/BENCHMARKS.md, "Adoption in search").
	AdoptedScore = 16
)

// AdoptionLevel is 0 below AdoptedScore, then one more each time the
// score doubles, at most MaxAdoptionLevel (16 → 1, 32 → 2 … 1,024 → 7), so
// a document's level, and the search order, changes rarely.
func AdoptionLevel(score int64) int {
	level := 0
	for level < MaxAdoptionLevel && score >= AdoptedScore<<level {
		level++
	}
	return level
}
