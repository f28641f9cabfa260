package api

import (
	"context"

	"github.com/agora-registry/registry/internal/protocol"
)

// addSignals fills each view's adoption: fetches, resolutions and distinct
// clients over the last 30 days and the registered agents that speak it (two indexed reads
// for a whole page).
func (s *Server) addSignals(ctx context.Context, views []ProtocolView) error {
	if len(views) == 0 {
		return nil
	}
	ds := make([]protocol.Digest, len(views))
	for i, v := range views {
		d, err := protocol.ParseDigest(v.Hex)
		if err != nil {
			return err
		}
		ds[i] = d
	}
	sig, err := s.svc.Signals(ctx, ds)
	if err != nil {
		return err
	}
	for i := range views {
		g := sig[ds[i]]
		views[i].Fetches, views[i].Resolutions, views[i].Clients, views[i].Agents = g.Fetches, g.Resolutions, g.Clients, g.Agents
	}
	return nil
}
