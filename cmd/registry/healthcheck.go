package main

import (
	"context"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/healthcheck"
)

func init() {
	register(command{Name: "healthcheck", Summary: "probe this server's /healthz (exit 0 or 1; container HEALTHCHECK)", Synopsis: "registry healthcheck [--addr HOST:PORT]", Run: healthcheckCmd})
}

// healthcheckCmd probes the server this container runs: the port comes from
// --addr / REGISTRY_ADDR exactly as `serve` reads it, the host is loopback.
func healthcheckCmd(ctx context.Context, env *environment, args []string) error {
	var cfg config.Healthcheck
	if err := parseFlags(env, flagSet(env, "healthcheck"), cfg.Options(), args); err != nil {
		return err
	}
	url, err := healthcheck.URL(cfg.Addr)
	if err != nil {
		return err
	}
	return healthcheck.Probe(ctx, url)
}
