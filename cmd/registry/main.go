// Command registry is the Agora protocol registry: `registry serve` (the
// default) runs the server; the other subcommands manage its database and
// talk to a running server. Each subcommand lives in its own file and
// registers itself in the table below.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/agora-registry/registry/internal/config"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *environment, args []string) error
}

// environment is what a subcommand may touch, so tests can run them
// in-process with their own streams and variables.
type environment struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

var commands = map[string]command{}

// register adds a subcommand; each command file calls it from init.
func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("duplicate command " + c.name)
	}
	commands[c.name] = c
}

// errUsage marks a usage error (exit status 2); the message was printed.
var errUsage = errors.New("usage error")

// unprintedUsageError is a usage error nothing has printed yet (a bad
// environment variable): run prints it, then exits with status 2.
type unprintedUsageError struct{ err error }

func (e unprintedUsageError) Error() string { return e.err.Error() }

// usageOr maps the error of config.Parse to a usage exit: -h is no error,
// the flag package has printed a bad flag, a bad variable is still to print.
func usageOr(err error) error {
	var envErr *config.EnvError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return flag.ErrHelp
	case errors.As(err, &envErr):
		return unprintedUsageError{err}
	}
	return fmt.Errorf("%w: %v", errUsage, err)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &environment{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand; serve when none is named.
func run(ctx context.Context, env *environment, args []string) int {
	name := "serve"
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		usage(env.stdout)
		return 0
	}
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(env.stderr, "registry: unknown command %q\n\n", name)
		usage(env.stderr)
		return 2
	}
	err := cmd.run(ctx, env, args)
	var unprinted unprintedUsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &unprinted):
		fmt.Fprintf(env.stderr, "registry %s: %v\n", name, unprinted.err)
		return 2
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintf(env.stderr, "registry %s: %v\n", name, err)
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: registry [command] [flags]\n\ncommands (serve is the default):")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nrun `registry <command> -h` for its flags")
}

// flagSet makes a subcommand's flag set that reports to env.stderr.
func flagSet(env *environment, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("registry "+name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	return fs
}
