package main

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/protocol"
)

func init() {
	register(command{Name: "deprecate", Summary: "deprecate HASH on a registry with a message and a replacement (--server, token in REGISTRY_TOKEN)",
		Synopsis: "registry deprecate [--server URL] --message TEXT [--replacement HASH] [--undo] HASH (the token comes from REGISTRY_TOKEN)", Run: deprecateCmd})
}

// deprecateCmd wraps POST /api/v1/protocols/{hash}/status.
func deprecateCmd(ctx context.Context, env *environment, args []string) error {
	var cfg config.Deprecate
	fs := flagSet(env, "deprecate")
	if err := parseFlags(env, fs, cfg.Options(), args); err != nil {
		return err
	}
	cfg.Token = env.Getenv("REGISTRY_TOKEN")
	if fs.NArg() != 1 {
		fmt.Fprintln(env.Stderr, "usage: "+program.Synopsis("deprecate"))
		return errUsage
	}
	d, err := protocol.ParseDigest(fs.Arg(0))
	if err != nil {
		return err
	}
	c, err := newClient(cfg.Client)
	if err != nil {
		return err
	}
	status := "deprecated"
	if cfg.Undo {
		status = "active"
	}
	p, err := c.SetStatus(ctx, d, status, cfg.Message, cfg.Replacement)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s %s %s\n", p.Status, p.Hex, p.Title)
	return nil
}
