package registry

import (
	"context"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Signals are a protocol's adoption over the last store.AdoptionWindowDays
// days: raw fetches, resolutions, distinct clients (each day's, summed),
// and the registered agents that list it.
type Signals struct {
	Fetches, Resolutions, Clients int64
	Agents                        int
}

// Signals reads the adoption of each of ds (at most store.MaxResolve).
func (s *Service) Signals(ctx context.Context, ds []protocol.Digest) (map[protocol.Digest]Signals, error) {
	totals, err := s.store.AdoptionTotals(ctx, ds, store.WindowStart(time.Now()))
	if err != nil {
		return nil, err
	}
	speakers, err := s.store.SpeakerCounts(ctx, ds)
	if err != nil {
		return nil, err
	}
	out := make(map[protocol.Digest]Signals, len(ds))
	for _, d := range ds {
		t := totals[d]
		out[d] = Signals{Fetches: t.Fetches, Resolutions: t.Resolutions, Clients: t.Clients, Agents: speakers[d]}
	}
	return out, nil
}

// AdoptionDays are d's counts for each of the last store.AdoptionWindowDays
// days, oldest first, days without any included as zeros.
func (s *Service) AdoptionDays(ctx context.Context, d protocol.Digest) ([]store.AdoptionDay, error) {
	today := store.Day(time.Now())
	from := store.WindowStart(today)
	got, err := s.store.AdoptionDays(ctx, d, from, today)
	if err != nil {
		return nil, err
	}
	out := make([]store.AdoptionDay, store.AdoptionWindowDays)
	for i := range out {
		out[i].Day = from.AddDate(0, 0, i)
	}
	for _, g := range got {
		if i := int(g.Day.Sub(from) / (24 * time.Hour)); i >= 0 && i < len(out) {
			out[i].AdoptionCounts = g.AdoptionCounts
		}
	}
	return out, nil
}
