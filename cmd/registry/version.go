package main

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/buildinfo"
)

func init() {
	register(command{name: "version", summary: "print the build version", run: versionCmd})
}

func versionCmd(_ context.Context, env *environment, args []string) error {
	if len(args) > 0 {
		fmt.Fprintln(env.stderr, "usage: registry version")
		return errUsage
	}
	fmt.Fprintln(env.stdout, "registry", buildinfo.Version())
	return nil
}
