package main

import (
	"context"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/cli"
	"github.com/agora-registry/registry/internal/healthcheck"
)

func init() {
	register(cli.Command{Name: "healthcheck", Summary: "exit 0 if the local agent answers /healthz (container HEALTHCHECK)", Synopsis: "agent healthcheck [--addr HOST:PORT]", Run: healthcheckCmd})
}

// healthcheckCmd probes the agent running in this container (the image has
// no shell or curl): GET http://127.0.0.1:<port>/healthz within 2 s, the
// port read from --addr / AGENT_ADDR as serve reads it.
func healthcheckCmd(ctx context.Context, std *cli.IO, args []string) error {
	var cfg agent.HealthcheckConfig
	if _, err := parse(std, "healthcheck", cfg.Options(), args); err != nil {
		return err
	}
	url, err := healthcheck.URL(cfg.Addr)
	if err != nil {
		return err
	}
	return healthcheck.Probe(ctx, url)
}
