package main

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/translog"
)

func init() {
	register(command{Name: "log-key", Summary: "generate a transparency-log signing key for --log-key-file",
		Synopsis: "registry log-key ORIGIN (prints the signer key on stdout, the verifier key on stderr)", Run: logKeyCmd})
}

// logKeyCmd prints a new signer key (for the key file) and its verifier
// key (to publish).
func logKeyCmd(_ context.Context, env *environment, args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(env.Stdout, "usage: "+program.Synopsis("log-key"))
		return nil
	}
	if len(args) != 1 || args[0] == "" || args[0][0] == '-' {
		fmt.Fprintln(env.Stderr, "usage: "+program.Synopsis("log-key"))
		return errUsage
	}
	skey, err := translog.GenerateKey(args[0])
	if err != nil {
		return err
	}
	key, err := translog.ParseKey(skey)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, skey)
	fmt.Fprintln(env.Stderr, "verifier key: "+key.VerifierKey)
	return nil
}
