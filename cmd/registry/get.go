package main

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/protocol"
)

func init() {
	register(command{name: "get", summary: "get HASH: print a document's exact bytes, verified against the hash", synopsis: "registry get [--server URL] HASH", run: getCmd})
}

func getCmd(ctx context.Context, env *environment, args []string) error {
	cfg, rest, err := clientConfig(env, "get", args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fmt.Fprintln(env.stderr, "usage: "+program.Synopsis("get"))
		return errUsage
	}
	d, err := protocol.ParseDigest(rest[0])
	if err != nil {
		return err
	}
	c, err := newClient(cfg)
	if err != nil {
		return err
	}
	// Fetch verifies: never print bytes that are not the requested document.
	content, err := c.Fetch(ctx, d)
	if err != nil {
		return err
	}
	_, err = env.stdout.Write(content)
	return err
}
