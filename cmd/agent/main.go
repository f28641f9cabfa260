// Command agent is the reference Agora agent.
//
//	agent serve     --addr HOST:PORT --config FILE   receive transactions
//	agent send      --to URL --protocol FILE|HASH --body TEXT
//	agent send      --to URL --task TEXT --negotiate --body TEXT  negotiate a protocol first
//	agent wellknown URL                              show what a target supports
//	agent version                                    print the build version
//
// Each subcommand lives in its own file and registers itself from init; its
// options are a table in internal/agent/options.go (see CONTRIBUTING.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/agora-registry/registry/internal/buildinfo"
	"github.com/agora-registry/registry/internal/cli"
	"github.com/agora-registry/registry/internal/config"
)

var program = &cli.Program{Name: "agent", Version: buildinfo.Version(), Commands: map[string]cli.Command{}}

// register adds a subcommand; each command file calls it from init.
func register(c cli.Command) {
	if _, dup := program.Commands[c.Name]; dup {
		panic("duplicate command " + c.Name)
	}
	program.Commands[c.Name] = c
}

func init() {
	register(cli.Command{Name: "version", Summary: "print the build version (also --version)", Synopsis: "agent version",
		Run: func(_ context.Context, std *cli.IO, args []string) error {
			if len(args) > 0 {
				fmt.Fprintln(std.Stderr, "usage: agent version")
				return cli.ErrUsage
			}
			fmt.Fprintln(std.Stdout, "agent", buildinfo.Version())
			return nil
		}})
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := program.Run(ctx, &cli.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// parse reads a subcommand's options from its table.
func parse(std *cli.IO, name string, opts []config.Option, args []string) (*flag.FlagSet, error) {
	fs := cli.FlagSet(std, "agent "+name, program.Synopsis(name))
	return fs, cli.ParseFlags(std, fs, opts, args)
}
