// Package config reads the registry's settings from flags and REGISTRY_*
// environment variables through one table of typed options, so every
// option has exactly one name, one default and one line of documentation
// (Describe lists them for docs and checks).
package config

import (
	"flag"
	"fmt"
	"sort"
	"strings"
)

// Option is one setting: its flag, its environment variable, its default
// (as text) and what it does.
type Option struct {
	Flag    string // without dashes
	Env     string // "" when the option has no environment variable
	Default string
	Usage   string
	value   flag.Value
}

// Bind registers opts on fs with their defaults already applied.
func Bind(fs *flag.FlagSet, opts []Option) error {
	for _, o := range opts {
		if err := o.value.Set(o.Default); err != nil {
			return fmt.Errorf("option --%s: bad default %q: %w", o.Flag, o.Default, err)
		}
		fs.Var(o.value, o.Flag, o.usage())
	}
	return nil
}

func (o Option) usage() string {
	if o.Env != "" {
		return o.Usage + " (env " + o.Env + ")"
	}
	return o.Usage
}

// Parse binds opts, then applies environment variables for options whose
// flag was not given, then the flags. A flag always beats the environment.
func Parse(fs *flag.FlagSet, opts []Option, args []string, getenv func(string) string) error {
	if err := Bind(fs, opts); err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, o := range opts {
		if o.Env == "" || given[o.Flag] {
			continue
		}
		v := getenv(o.Env)
		if v == "" {
			continue
		}
		if err := o.value.Set(v); err != nil {
			if r, ok := o.value.(interface{ redact(string) string }); ok {
				v = r.redact(v)
			}
			return &EnvError{Env: o.Env, Value: v, Err: err}
		}
	}
	return nil
}

// EnvError is a bad value in an environment variable. Unlike a bad flag,
// which the flag package reports as it parses, nothing has printed it yet.
type EnvError struct {
	Env, Value string
	Err        error // says what is accepted
}

func (e *EnvError) Error() string {
	return fmt.Sprintf("invalid value %q in environment variable %s: %v", e.Value, e.Env, e.Err)
}

func (e *EnvError) Unwrap() error { return e.Err }

// Describe lists every option of every command, sorted by flag name, for
// documentation and for the test that keeps docs in step with the code.
func Describe() []Option {
	var all []Option
	seen := map[string]bool{}
	for _, set := range [][]Option{(&Serve{}).Options(), (&Client{}).Options(), (&Database{}).Options(), (&Import{}).Options(), (&Healthcheck{}).Options(), (&Verify{}).Options()} {
		for _, o := range set {
			if !seen[o.Flag] {
				seen[o.Flag] = true
				all = append(all, o)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Flag < all[j].Flag })
	return all
}

// Markdown renders Describe as a table (docs/CONFIG-style).
func Markdown() string {
	var b strings.Builder
	b.WriteString("| flag | environment | default | meaning |\n|---|---|---|---|\n")
	for _, o := range Describe() {
		env := o.Env
		if env == "" {
			env = "—"
		} else {
			env = "`" + env + "`"
		}
		def := o.Default
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(&b, "| `--%s` | %s | `%s` | %s |\n", o.Flag, env, def, o.Usage)
	}
	return b.String()
}
