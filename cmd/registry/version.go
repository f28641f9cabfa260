package main

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/buildinfo"
)

func init() {
	register(command{name: "version", summary: "print the build version (also --version)", synopsis: "registry version", run: versionCmd})
}

func versionCmd(_ context.Context, env *environment, args []string) error {
	fs := flagSet(env, "version")
	if err := parseFlags(env, fs, nil, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(env.stderr, "usage: registry version")
		return errUsage
	}
	fmt.Fprintln(env.stdout, "registry", buildinfo.Version())
	return nil
}
