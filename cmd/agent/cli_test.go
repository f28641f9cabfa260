package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/cli"
	"github.com/agora-registry/registry/internal/config"
)

func runAgent(env map[string]string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = program.Run(context.Background(), &cli.IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}, args)
	return code, out.String(), errb.String()
}

// The agent's command line behaves like the registry's: one line and the
// synopsis for a mistyped flag, help on stdout with exit 0, --version, and
// a bad variable or file value named with what is accepted.
func TestAgentCommandLine(t *testing.T) {
	cfgFile := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(cfgFile, []byte("name: x\nlimits:\n  maxDocumentBytes: 4MB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args    []string
		env     map[string]string
		code    int
		out     string // in stdout
		errOut  string // in stderr
		maxErrs int    // most stderr lines (0: any)
	}{
		{args: []string{"serve", "--adr", ":1"}, code: 2, errOut: "agent serve: unknown flag --adr (did you mean --addr?)\nusage: agent serve", maxErrs: 3},
		{args: []string{"send", "--protocl", "x"}, code: 2, errOut: "did you mean --protocol?", maxErrs: 3},
		{args: []string{"serve", "-h"}, code: 0, out: "--cache-dir"},
		{args: []string{"help", "send"}, code: 0, out: "--hash-spelling"},
		{args: []string{"healthcheck", "--help"}, code: 0, out: "--addr"},
		{args: []string{"--version"}, code: 0, out: "agent "},
		{args: []string{"version"}, code: 0, out: "agent "},
		{args: []string{"--help"}, code: 0, out: "wellknown"},
		{args: nil, code: 2, errOut: "usage: agent"},
		{args: []string{"sned"}, code: 2, errOut: `unknown command "sned" (did you mean send?)`},
		{args: []string{"serve"}, env: map[string]string{"AGENT_ADDR": "8081"}, code: 2, errOut: `agent serve: invalid value "8081" in environment variable AGENT_ADDR: want host:port`},
		{args: []string{"healthcheck"}, env: map[string]string{"AGENT_ADDR": "8081"}, code: 2, errOut: "AGENT_ADDR"},
		{args: []string{"serve", "--config", cfgFile}, code: 2, errOut: `agent serve: invalid value "4MB" for limits.maxDocumentBytes in config file ` + cfgFile + ` (line 3): want a number of bytes`},
		{args: []string{"serve"}, env: map[string]string{"AGENT_CONFIG": cfgFile}, code: 2, errOut: "limits.maxDocumentBytes"},
		{args: []string{"serve", "--log-level", "loud"}, code: 2, errOut: "want one of debug, info, warn, error"},
		{args: []string{"send", "--body", "x"}, code: 2, errOut: "--to is required"},
	} {
		code, out, errOut := runAgent(tc.env, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.errOut) {
			t.Errorf("agent %v: exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stdout with %q, stderr with %q", tc.args, code, tc.code, out, errOut, tc.out, tc.errOut)
		}
		if n := strings.Count(errOut, "\n"); tc.maxErrs > 0 && n > tc.maxErrs {
			t.Errorf("agent %v: %d lines on stderr:\n%s", tc.args, n, errOut)
		}
	}
}

// Each command's help lists exactly the flags its row of the option table
// has, so the reference (docs/configuration.md) shows every flag.
func TestAgentHelpListsTheTablesFlags(t *testing.T) {
	tables := map[string][]config.Option{}
	for _, c := range agent.Commands() {
		tables[c.Name] = c.Options
	}
	for name := range program.Commands {
		_, out, _ := runAgent(nil, name, "-h")
		want := map[string]bool{}
		for _, o := range tables[name] {
			if o.Flag != "" {
				want["--"+o.Flag] = true
			}
		}
		got := helpFlags(out)
		for f := range got {
			if !want[f] {
				t.Errorf("agent %s -h lists %s, which its row of agent.Commands lacks", name, f)
			}
		}
		for f := range want {
			if !got[f] {
				t.Errorf("agent %s -h does not list %s", name, f)
			}
		}
	}
}

func helpFlags(help string) map[string]bool {
	flags := map[string]bool{}
	for _, line := range strings.Split(help, "\n") {
		if strings.HasPrefix(line, "  --") {
			flags[strings.Fields(line)[0]] = true
		}
	}
	return flags
}
