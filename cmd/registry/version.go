package main

import (
	"context"
	"fmt"

	"github.com/agora-registry/registry/internal/buildinfo"
)

func init() {
	register(command{Name: "version", Summary: "print the build version (also --version)", Synopsis: "registry version", Run: versionCmd})
}

func versionCmd(_ context.Context, env *environment, args []string) error {
	fs := flagSet(env, "version")
	if err := parseFlags(env, fs, nil, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(env.Stderr, "usage: registry version")
		return errUsage
	}
	fmt.Fprintln(env.Stdout, "registry", buildinfo.Version())
	return nil
}
