package main

import (
	"context"
	"flag"
	"os"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/healthcheck"
)

// healthcheck probes the agent running in this container (the image has
// no shell or curl): GET http://127.0.0.1:<port>/healthz within 2 s, where
// the port comes from --addr, else AGENT_ADDR, else the default address.
func healthcheckCmd(args []string) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	addr := fs.String("addr", "", "the agent's listen address (env AGENT_ADDR; default "+agent.DefaultAddr+")")
	if err := fs.Parse(args); err != nil {
		return exitCode(2)
	}
	listen := *addr
	if listen == "" {
		listen = os.Getenv("AGENT_ADDR")
	}
	if listen == "" {
		listen = agent.DefaultAddr
	}
	url, err := healthcheck.URL(listen)
	if err != nil {
		return err
	}
	return healthcheck.Probe(context.Background(), url)
}
