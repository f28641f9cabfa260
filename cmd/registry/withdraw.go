package main

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/protocol"
)

func init() {
	register(command{Name: "withdraw", Summary: "withdraw HASH --reason TEXT: mark a document withdrawn (admin token)", Synopsis: "registry withdraw [--server URL] HASH --reason TEXT (an admin token in REGISTRY_TOKEN)", Run: withdrawCmd})
}

// withdrawCmd withdraws one document; it stays readable as a 410 with the
// reason, and its hash is never reused.
func withdrawCmd(ctx context.Context, env *environment, args []string) error {
	var cfg config.Withdraw
	fs := flagSet(env, "withdraw")
	if err := parseFlags(env, fs, cfg.Options(), args); err != nil {
		return err
	}
	hash := fs.Args()
	if len(hash) != 1 || cfg.Reason == "" {
		fmt.Fprintln(env.Stderr, "usage: "+program.Synopsis("withdraw"))
		return errUsage
	}
	d, err := protocol.ParseDigest(hash[0])
	if err != nil {
		return err
	}
	cfg.Token = env.Getenv("REGISTRY_TOKEN")
	c, err := newClient(cfg.Client)
	if err != nil {
		return err
	}
	if err := c.Withdraw(ctx, d, cfg.Reason); err != nil {
		return explainTokenError(err, c.Token, "admin")
	}
	fmt.Fprintf(env.Stdout, "withdrawn %s\n", d.Hex())
	return nil
}
