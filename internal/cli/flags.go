package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agora-registry/registry/internal/config"
)

// FlagSet makes a subcommand's flag set, named "BINARY COMMAND", whose help
// starts with "usage: SYNOPSIS" and lists the flags in the --double-dash
// spelling the docs use. Set Usage to add text after the synopsis line.
func FlagSet(std *IO, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(std.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n", synopsis)
		PrintFlags(fs)
	}
	return fs
}

// PrintFlags lists fs's flags with their defaults, sizes as sizes (96MiB).
func PrintFlags(fs *flag.FlagSet) {
	w := fs.Output()
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintln(w, "\nflags:")
			first = false
		}
		kind, usage := flag.UnquoteUsage(f)
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			kind = ""
		}
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		fmt.Fprintf(w, "%s\n      %s", line, strings.ReplaceAll(usage, "\n", "\n      "))
		switch f.DefValue {
		case "", "false", "0", "0s", "[]":
		default:
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// ParseFlags reads a subcommand's options (config.Parse: flags, environment,
// config file, defaults). -h prints the help on stdout (flag.ErrHelp:
// exit 0); a bad flag prints one line, with a suggestion for a mistyped
// name, and the synopsis, and returns ErrUsage; a bad variable or file
// entry is returned as a UsageError for Run to print. Both exit 2.
func ParseFlags(std *IO, fs *flag.FlagSet, opts []config.Option, args []string) error {
	help := fs.Usage
	fs.Usage = func() {}
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := config.Parse(fs, opts, flagsFirst(fs, opts, args), std.Getenv)
	fs.Usage = help
	fs.SetOutput(out)
	var envErr *config.EnvError
	var fileErr *config.FileError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(std.Stdout)
		help()
		fs.SetOutput(out)
		return flag.ErrHelp
	case errors.As(err, &envErr), errors.As(err, &fileErr):
		return UsageError{err}
	case !isFlagError(err):
		return err // reading the config file
	}
	fmt.Fprintf(std.Stderr, "%s: %s\n%s", fs.Name(), describeFlagError(fs, err), synopsis(fs))
	return ErrUsage
}

// flagsFirst moves positional arguments after the flags, so flags may
// follow them (registry withdraw HASH --reason …); "--" still ends the
// flags.
func flagsFirst(fs *flag.FlagSet, opts []config.Option, args []string) []string {
	isBool := func(name string) bool {
		for _, o := range opts {
			if o.Flag == name {
				b, ok := o.Value.(interface{ IsBoolFlag() bool })
				return ok && b.IsBoolFlag()
			}
		}
		if f := fs.Lookup(name); f != nil {
			b, ok := f.Value.(interface{ IsBoolFlag() bool })
			return ok && b.IsBoolFlag()
		}
		return true // unknown: Parse reports it
	}
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && !isBool(name) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			positional = append(positional, a)
		}
	}
	if len(positional) == 0 {
		return flags
	}
	return append(append(flags, "--"), positional...)
}

// isFlagError tells the flag package's own errors from the config file's.
func isFlagError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"flag provided but not defined", "invalid value", "invalid boolean value", "flag needs an argument", "bad flag syntax"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// describeFlagError rewords the flag package's errors in the --double-dash
// spelling the docs use, suggesting the nearest flag for an unknown one.
func describeFlagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	const unknown = "flag provided but not defined: -"
	if !strings.HasPrefix(msg, unknown) {
		// "invalid value "x" for flag -name", "invalid boolean value "x"
		// for -name", "flag needs an argument: -name": one dash becomes two.
		msg = strings.Replace(msg, "for flag -", "for -", 1)
		for _, p := range []string{"for -", "argument: -"} {
			if i := strings.Index(msg, p); i >= 0 {
				return msg[:i+len(p)] + "-" + msg[i+len(p):]
			}
		}
		return msg
	}
	typed := strings.TrimPrefix(msg, unknown)
	out := "unknown flag --" + typed
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near := nearest(typed, names); near != "" {
		out += " (did you mean --" + near + "?)"
	}
	return out
}

// synopsis is the first line of the command's help with a pointer to the
// rest.
func synopsis(fs *flag.FlagSet) string {
	var buf bytes.Buffer
	out := fs.Output()
	fs.SetOutput(&buf)
	fs.Usage()
	fs.SetOutput(out)
	first, _, _ := strings.Cut(buf.String(), "\n")
	return first + "\nrun '" + fs.Name() + " -h' for its flags\n"
}

// nearest is the name closest to typed (at most two edits, or typed as its
// prefix), "" when none is close.
func nearest(typed string, names []string) string {
	best, bestDist := "", 3
	for _, n := range names {
		d := editDistance(typed, n)
		if len(typed) >= 3 && strings.HasPrefix(n, typed) {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two short names.
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
