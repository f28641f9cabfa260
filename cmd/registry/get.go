package main

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/protocol"
)

func init() {
	register(command{Name: "get", Summary: "get HASH: print a document's exact bytes, verified against the hash (a prefix of 8+ hex digits works)", Synopsis: "registry get [--server URL] HASH|PREFIX", Run: getCmd})
}

func getCmd(ctx context.Context, env *environment, args []string) error {
	cfg, rest, err := clientConfig(env, "get", args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		fmt.Fprintln(env.Stderr, "usage: "+program.Synopsis("get"))
		return errUsage
	}
	c, err := newClient(cfg)
	if err != nil {
		return err
	}
	d, err := protocol.ParseDigest(rest[0])
	if err != nil {
		// A hex prefix, as listings show hashes: the registry names the
		// one document it fits, whose bytes are then verified in full.
		p, lerr := c.Lookup(ctx, rest[0])
		if lerr != nil {
			return lerr
		}
		if d, err = protocol.ParseDigest(p.Hex); err != nil {
			return err
		}
	}
	// Fetch verifies: never print bytes that are not the requested document.
	content, err := c.Fetch(ctx, d)
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(content)
	return err
}
