// Command registry is the Agora protocol registry: `registry serve` (the
// default) runs the server; the other subcommands manage its database and
// talk to a running server. Each subcommand lives in its own file and
// registers itself from init (see CONTRIBUTING.md, "Adding a subcommand").
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/agora-registry/registry/internal/buildinfo"
	"github.com/agora-registry/registry/internal/cli"
	"github.com/agora-registry/registry/internal/config"
)

// A command is one subcommand; its environment is what it may touch, so
// tests can run it in-process with their own streams and variables.
type (
	command     = cli.Command
	environment = cli.IO
)

var program = &cli.Program{Name: "registry", Default: "serve", Version: buildinfo.Version(), Commands: map[string]cli.Command{}}

// register adds a subcommand; each command file calls it from init.
func register(c command) {
	if _, dup := program.Commands[c.Name]; dup {
		panic("duplicate command " + c.Name)
	}
	program.Commands[c.Name] = c
}

// errUsage marks a usage error (exit status 2) that has been printed.
var errUsage = cli.ErrUsage

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &environment{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand; serve when none is named.
func run(ctx context.Context, env *environment, args []string) int {
	return program.Run(ctx, env, args)
}

// flagSet makes a subcommand's flag set (name may be "token create").
func flagSet(env *environment, name string) *flag.FlagSet {
	return cli.FlagSet(env, "registry "+name, program.Synopsis(name))
}

// parseFlags reads a subcommand's options from the table (cli.ParseFlags).
func parseFlags(env *environment, fs *flag.FlagSet, opts []config.Option, args []string) error {
	return cli.ParseFlags(env, fs, opts, args)
}

// subcommand splits a command's arguments into one of subs and the rest.
// -h, --help or help prints usage on stdout and returns flag.ErrHelp
// (exit 0); no subcommand, or one not in subs, prints usage on stderr and
// returns errUsage.
func subcommand(env *environment, name, usage string, args []string, subs ...string) (string, []string, error) {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprintln(env.Stdout, usage)
		return "", nil, flag.ErrHelp
	}
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, usage)
		return "", nil, errUsage
	}
	if !slices.Contains(subs, args[0]) {
		choices := strings.Join(subs[:len(subs)-1], ", ") + " or " + subs[len(subs)-1]
		fmt.Fprintf(env.Stderr, "registry %s: unknown subcommand %q: use %s\n%s\n", name, args[0], choices, usage)
		return "", nil, errUsage
	}
	return args[0], args[1:], nil
}
