package main

import (
	"fmt"

	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/translog"
)

// cosigner asks the --witness witnesses to cosign the log's checkpoints,
// through the SSRF guard (the witnesses themselves are always allowed;
// redirects are not followed); nil without witnesses.
func cosigner(cfg config.Serve, l *translog.Log) (*translog.Cosigner, error) {
	if len(cfg.Witnesses) == 0 {
		if cfg.WitnessQuorum > 0 {
			return nil, fmt.Errorf("--witness-quorum %d without any --witness", cfg.WitnessQuorum)
		}
		return nil, nil
	}
	ws := make([]translog.Witness, 0, len(cfg.Witnesses))
	urls := make([]string, 0, len(cfg.Witnesses))
	for _, s := range cfg.Witnesses {
		w, err := translog.ParseWitness(s)
		if err != nil {
			return nil, fmt.Errorf("--witness: %w", err)
		}
		ws, urls = append(ws, w), append(urls, w.URL)
	}
	hc, err := client.NewUpstreamHTTP(urls, cfg.OutboundAllow, translog.DefaultWitnessTimeout, -1)
	if err != nil {
		return nil, fmt.Errorf("--witness: %w", err)
	}
	quorum := cfg.WitnessQuorum
	if quorum == 0 {
		quorum = len(ws)
	}
	c, err := l.NewCosigner(ws, quorum, hc)
	if err != nil {
		return nil, fmt.Errorf("--witness: %w", err)
	}
	return c, nil
}
