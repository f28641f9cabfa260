// Package cli is the command-line frame both binaries share: subcommand
// dispatch, help and version, and flag parsing through the option table
// (internal/config) with one-line errors that suggest the flag meant.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// IO is what a subcommand may touch, so tests run them in-process with
// their own streams and variables.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// Command is one subcommand.
type Command struct {
	Name    string
	Summary string
	// Synopsis is the first line of the command's help, after "usage: ";
	// empty means "BINARY NAME [flags]".
	Synopsis string
	// Subs are the synopses of sub-subcommands with positional arguments
	// ("revoke" → "registry token revoke [flags] ID"), so their help names them.
	Subs map[string]string
	Run  func(ctx context.Context, std *IO, args []string) error
}

// Program is a binary's table of subcommands.
type Program struct {
	Name     string // the binary, "registry" or "agent"
	Default  string // the command run when none is named; "" prints usage
	Version  string // printed by --version (and a version subcommand, if registered)
	Commands map[string]Command
}

// ErrUsage marks a usage error (exit status 2) that has been printed.
var ErrUsage = errors.New("usage error")

// UsageError is a usage error nothing has printed yet: Run prints it, then
// exits with status 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// ExitError ends a command with its own exit status (a command whose
// statuses mean more than failed or not, as `registry verify`'s); Run
// prints Err, when set, like any error.
type ExitError struct {
	Code int
	Err  error
}

func (e ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}
func (e ExitError) Unwrap() error { return e.Err }

// Run dispatches args to a subcommand and returns the exit status: 0, 1 for
// a failure, 2 for a usage error.
func (p *Program) Run(ctx context.Context, std *IO, args []string) int {
	if len(args) == 2 && args[0] == "help" {
		args = []string{args[1], "-h"} // help CMD is CMD -h
	}
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		p.Usage(std.Stdout)
		return 0
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		fmt.Fprintln(std.Stdout, p.Name, p.Version)
		return 0
	}
	name := p.Default
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	cmd, ok := p.Commands[name]
	if !ok {
		if name == "" {
			p.Usage(std.Stderr)
			return 2
		}
		fmt.Fprintf(std.Stderr, "%s: unknown command %q%s\nrun '%s help' for the commands\n", p.Name, name, p.suggest(name), p.Name)
		return 2
	}
	err := cmd.Run(ctx, std, args)
	var unprinted UsageError
	var exit ExitError
	switch {
	case errors.As(err, &exit):
		if exit.Err != nil {
			fmt.Fprintf(std.Stderr, "%s %s: %v\n", p.Name, name, exit.Err)
		}
		return exit.Code
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &unprinted):
		fmt.Fprintf(std.Stderr, "%s %s: %v\n", p.Name, name, unprinted.Err)
		return 2
	case errors.Is(err, ErrUsage):
		return 2
	}
	fmt.Fprintf(std.Stderr, "%s %s: %v\n", p.Name, name, err)
	return 1
}

func (p *Program) suggest(name string) string {
	var names []string
	for n := range p.Commands {
		names = append(names, n)
	}
	if near := nearest(name, names); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}

// Usage lists the commands.
func (p *Program) Usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s [command] [flags]\n\ncommands", p.Name)
	if p.Default != "" {
		fmt.Fprintf(w, " (%s is the default)", p.Default)
	}
	fmt.Fprintln(w, ":")
	names := make([]string, 0, len(p.Commands))
	for n := range p.Commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, p.Commands[n].Summary)
	}
	fmt.Fprintf(w, "\n--version prints the version; run `%s <command> -h` for a command's flags\n", p.Name)
}

// Synopsis is the command's first help line.
func (p *Program) Synopsis(name string) string {
	cmd, sub, _ := strings.Cut(name, " ")
	if c, ok := p.Commands[cmd]; ok {
		if sub == "" && c.Synopsis != "" {
			return c.Synopsis
		}
		if s := c.Subs[sub]; sub != "" && s != "" {
			return s
		}
	}
	return p.Name + " " + name + " [flags]"
}
