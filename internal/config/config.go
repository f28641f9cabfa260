// Package config reads the settings of both binaries through one table of
// typed options: each option has one flag, environment variable and (for
// the agent) YAML key, one default and one line of documentation, and is
// read in the order flags > environment > file > default.
package config

import (
	"flag"
	"fmt"
	"strings"
)

// Option is one setting: its flag, its environment variable, its key in a
// YAML config file, its default (as text) and what it does. Any of Flag,
// Env and Key may be empty; Value is one of this package's typed values.
type Option struct {
	Flag    string // without dashes
	Env     string
	Key     string // dotted path in the YAML file, like limits.maxDocumentBytes
	Default string
	Usage   string
	Value   flag.Value
}

func (o Option) usage() string {
	if o.Env != "" {
		return o.Usage + " (env " + o.Env + ")"
	}
	return o.Usage
}

// SetDefaults sets every option to its default.
func SetDefaults(opts []Option) error {
	for _, o := range opts {
		if err := o.Value.Set(o.Default); err != nil {
			return fmt.Errorf("option %s: bad default %q: %w", o.name(), o.Default, err)
		}
	}
	return nil
}

func (o Option) name() string {
	switch {
	case o.Flag != "":
		return "--" + o.Flag
	case o.Env != "":
		return o.Env
	}
	return o.Key
}

// Parse reads opts from their defaults, then the YAML file named by the
// option whose value is File (if any and set), then the environment for
// options whose flag was not given, then the flags: a flag beats the
// environment, which beats the file. A bad flag is the flag package's
// error; a bad variable an *EnvError; a bad file entry a *FileError.
func Parse(fs *flag.FlagSet, opts []Option, args []string, getenv func(string) string) error {
	if err := SetDefaults(opts); err != nil {
		return err
	}
	recs := make([]*recorder, len(opts))
	for i, o := range opts {
		if o.Flag != "" {
			recs[i] = &recorder{v: o.Value}
			fs.Var(recs[i], o.Flag, o.usage())
		}
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	// The flag package set the values to check them; start again from the
	// defaults so each layer applies in its order.
	if err := SetDefaults(opts); err != nil {
		return err
	}
	for i, o := range opts {
		if _, ok := o.Value.(fileValue); !ok {
			continue
		}
		path := o.Default
		if v := getenv(o.Env); o.Env != "" && v != "" {
			path = v
		}
		if recs[i] != nil && len(recs[i].raw) > 0 {
			path = recs[i].raw[len(recs[i].raw)-1]
		}
		if path != "" {
			if err := ApplyFile(path, opts); err != nil {
				return err
			}
		}
		if err := o.Value.Set(path); err != nil {
			return err
		}
	}
	given := map[string]bool{}
	for i, r := range recs {
		if r != nil && len(r.raw) > 0 {
			given[opts[i].Flag] = true
		}
	}
	if err := applyEnv(opts, getenv, given); err != nil {
		return err
	}
	for _, r := range recs {
		if r != nil && len(r.raw) > 0 {
			if err := r.replay(); err != nil {
				return err
			}
		}
	}
	return nil
}

// ApplyEnv sets every option that has a variable set in the environment.
func ApplyEnv(opts []Option, getenv func(string) string) error {
	return applyEnv(opts, getenv, nil)
}

func applyEnv(opts []Option, getenv func(string) string, skip map[string]bool) error {
	for _, o := range opts {
		if o.Env == "" || (o.Flag != "" && skip[o.Flag]) {
			continue
		}
		if _, ok := o.Value.(fileValue); ok {
			continue // read before the file, by Parse
		}
		v := getenv(o.Env)
		if v == "" {
			continue
		}
		if err := o.Value.Set(v); err != nil {
			return &EnvError{Env: o.Env, Value: redact(o.Value, v), Err: err}
		}
	}
	return nil
}

func redact(v flag.Value, s string) string {
	if r, ok := v.(interface{ redact(string) string }); ok {
		return r.redact(s)
	}
	return s
}

// recorder stands in for an option's value on the flag set: it checks
// each flag as the flag package parses it and keeps the text, which Parse
// applies after the file and the environment.
type recorder struct {
	v   flag.Value
	raw []string
}

func (r *recorder) Set(s string) error {
	if err := r.v.Set(s); err != nil {
		return err
	}
	r.raw = append(r.raw, s)
	return nil
}

func (r *recorder) String() string {
	if r == nil || r.v == nil {
		return ""
	}
	return r.v.String()
}

func (r *recorder) IsBoolFlag() bool {
	b, ok := r.v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// replay applies the flag's text; a repeated list flag means all its items.
func (r *recorder) replay() error {
	if l, ok := r.v.(listSetter); ok {
		return l.setList(r.raw)
	}
	return r.v.Set(r.raw[len(r.raw)-1])
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

// Markdown renders options as a table (flag, environment, YAML key when
// any option has one, type, default, meaning).
func Markdown(opts []Option) string {
	keys := false
	for _, o := range opts {
		keys = keys || o.Key != ""
	}
	var b strings.Builder
	if keys {
		b.WriteString("| flag | environment | YAML key | type | default | meaning |\n|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| flag | environment | type | default | meaning |\n|---|---|---|---|---|\n")
	}
	for _, o := range opts {
		flagName := ""
		if o.Flag != "" {
			flagName = "--" + o.Flag
		}
		def := o.Default
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(&b, "| %s | %s | ", code(flagName), code(o.Env))
		if keys {
			fmt.Fprintf(&b, "%s | ", code(o.Key))
		}
		fmt.Fprintf(&b, "%s | %s | %s |\n", cell(o.Type()), code(def), cell(o.Usage))
	}
	return b.String()
}

// cell escapes a table cell and marks empties.
func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

func code(s string) string {
	switch s {
	case "(empty)":
		return s
	case "":
		return "—"
	}
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}
