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
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	// synopsis is the first line of the command's help, after "usage: ";
	// empty means "registry NAME [flags]".
	synopsis string
	run      func(ctx context.Context, env *environment, args []string) error
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &environment{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand; serve when none is named.
func run(ctx context.Context, env *environment, args []string) int {
	name := "serve"
	if len(args) == 2 && args[0] == "help" {
		args = []string{args[1], "-h"} // help CMD is CMD -h
	}
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		usage(env.stdout)
		return 0
	}
	if len(args) > 0 && args[0] == "--version" {
		args = append([]string{"version"}, args[1:]...)
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
