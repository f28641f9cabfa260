package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agora-registry/registry/internal/config"
)

// flagSet makes a subcommand's flag set. Its help goes to env.stdout when
// asked for (-h, --help) and is cut to the synopsis after a mistake
// (parseFlags), so a typo costs one line plus the usage, not every flag.
func flagSet(env *environment, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("registry "+name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	line := "registry " + name + " [flags]"
	if c, ok := commands[name]; ok && c.synopsis != "" {
		line = c.synopsis
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\nflags:\n", line)
		fs.PrintDefaults()
	}
	return fs
}

// unprintedUsageError is a usage error nothing has printed yet: run prints
// it, then exits with status 2.
type unprintedUsageError struct{ err error }

func (e unprintedUsageError) Error() string { return e.err.Error() }

// parseFlags reads a subcommand's flags and environment (config.Parse).
// -h prints the full help on stdout (flag.ErrHelp: exit 0); a bad flag
// prints one line, with a suggestion for a mistyped name, and the
// synopsis; a bad variable is returned for run to print. Both exit 2.
func parseFlags(env *environment, fs *flag.FlagSet, opts []config.Option, args []string) error {
	help := fs.Usage
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := config.Parse(fs, opts, args, env.getenv)
	fs.Usage = help
	var envErr *config.EnvError
	switch {
	case err == nil:
		fs.SetOutput(env.stderr)
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(env.stdout)
		help()
		return flag.ErrHelp
	case errors.As(err, &envErr):
		return unprintedUsageError{err}
	}
	fmt.Fprintf(env.stderr, "%s: %s\n%s", fs.Name(), describeFlagError(fs, err), synopsis(fs))
	fs.SetOutput(env.stderr)
	return errUsage
}

// describeFlagError rewords the flag package's errors in the --double-dash
// spelling the docs use, suggesting the nearest flag for an unknown one.
func describeFlagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	const unknown = "flag provided but not defined: -"
	if !strings.HasPrefix(msg, unknown) {
		return strings.Replace(msg, " -", " --", 1)
	}
	typed := strings.TrimPrefix(msg, unknown)
	out := "unknown flag --" + typed
	if near := nearestFlag(fs, typed); near != "" {
		out += " (did you mean --" + near + "?)"
	}
	return out
}

// synopsis is the first paragraph of the command's help with a pointer to
// the rest.
func synopsis(fs *flag.FlagSet) string {
	var buf bytes.Buffer
	out := fs.Output()
	fs.SetOutput(&buf)
	fs.Usage()
	fs.SetOutput(out)
	first, _, _ := strings.Cut(buf.String(), "\n")
	return first + "\nrun '" + fs.Name() + " -h' for its flags\n"
}

// nearestFlag is the defined flag closest to typed (at most two edits, or
// typed as its prefix), "" when none is close.
func nearestFlag(fs *flag.FlagSet, typed string) string {
	best, bestDist := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(typed, f.Name)
		if len(typed) >= 3 && strings.HasPrefix(f.Name, typed) {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance of two short flag names.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
