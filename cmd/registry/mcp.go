package main

import (
	"context"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/mcpserver"
)

func init() {
	register(command{Name: "mcp", Summary: "serve read-only MCP tools on stdio against a running registry", Synopsis: "registry mcp [--registry URL]", Run: mcpCmd})
}

func mcpCmd(ctx context.Context, env *environment, args []string) error {
	var cfg config.MCP
	if err := parseFlags(env, flagSet(env, "mcp"), cfg.Options(), args); err != nil {
		return err
	}
	return mcpserver.ServeStdio(ctx, cfg.Registry, env.Stderr)
}
