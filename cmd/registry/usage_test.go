package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMistypedFlagIsOneLineWithASuggestion: a typo costs one line naming
// the nearest flag and the command's synopsis, not every flag.
func TestMistypedFlagIsOneLineWithASuggestion(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		want, synopsis string
	}{
		{[]string{"serve", "--adr", ":0"}, "registry serve: unknown flag --adr (did you mean --addr?)", "usage: registry [serve] [flags]"},
		{[]string{"--adr", ":0"}, "registry serve: unknown flag --adr (did you mean --addr?)", "usage: registry [serve] [flags]"},
		{[]string{"import", "--max-document-byte", "1", "x"}, "registry import: unknown flag --max-document-byte (did you mean --max-document-bytes?)", "usage: registry import [flags] ARCHIVE|DIR..."},
		{[]string{"healthcheck", "--cache-ttl", "1m"}, "registry healthcheck: unknown flag --cache-ttl\n", "usage: registry healthcheck"},
		{[]string{"serve", "--open-publish=yes"}, `registry serve: invalid boolean value "yes" for --open-publish: want true or false`, "usage: registry [serve] [flags]"},
		{[]string{"serve", "--rate-burst", "1KiB"}, `registry serve: invalid value "1KiB" for --rate-burst: want a whole number`, "usage: registry [serve] [flags]"},
		{[]string{"get", "--server"}, `registry get: flag needs an argument: --server`, "usage: registry get"},
	} {
		_, stderr, err := runCLI(t, nil, nil, tc.args...)
		if code := exitCode(err); code != 2 || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("registry %v: exit %d, stderr:\n%s\nwant exit 2 starting with %q", tc.args, code, stderr, tc.want)
		}
		if lines := strings.Count(stderr, "\n"); lines > 3 || !strings.Contains(stderr, tc.synopsis) {
			t.Errorf("registry %v: %d lines, want the error and the synopsis only:\n%s", tc.args, lines, stderr)
		}
	}
}

// TestHelpExitsZeroAndListsTheCommandsOwnFlags: -h, --help and help CMD
// print the command's help on stdout, exit 0, and list only its flags.
func TestHelpExitsZeroAndListsTheCommandsOwnFlags(t *testing.T) {
	for _, tc := range []struct {
		args          []string
		want, notWant []string
	}{
		{[]string{"serve", "-h"}, []string{"-cache-ttl", "(default 96MiB)", "(default 3MiB)"}, []string{"100663296"}},
		{[]string{"serve", "--help"}, []string{"-addr"}, nil},
		{[]string{"help", "serve"}, []string{"-rate-burst"}, nil},
		{[]string{"healthcheck", "-h"}, []string{"-addr"}, []string{"-cache-ttl", "-data-dir"}},
		{[]string{"token", "list", "-h"}, []string{"-data-dir"}, []string{"-name", "-scope"}},
		{[]string{"token", "create", "-h"}, []string{"-name", "-scope", "-data-dir"}, nil},
		{[]string{"import", "--help"}, []string{"usage: registry import", "-max-document-bytes", "(default 1MiB)"}, []string{"1048576"}},
		{[]string{"export", "-h"}, []string{"usage: registry export"}, []string{"-max-document-bytes"}},
		{[]string{"migrate", "-h"}, []string{"usage: registry migrate", "-yes"}, nil},
		{[]string{"get", "-h"}, []string{"usage: registry get [--server URL] HASH", "-server"}, []string{"-data-dir"}},
		{[]string{"token", "-h"}, []string{"usage: registry token create"}, nil},
		// Every subcommand's help names its positional arguments.
		{[]string{"token", "revoke", "-h"}, []string{"usage: registry token revoke [flags] ID"}, nil},
		{[]string{"publisher", "create", "-h"}, []string{"usage: registry publisher create [flags] NAME", "-display"}, nil},
		{[]string{"publisher", "verify", "-h"}, []string{"usage: registry publisher verify [flags] NAME", "-domain"}, nil},
		{[]string{"webhook", "add", "-h"}, []string{"usage: registry webhook add [flags] URL"}, nil},
		{[]string{"webhook", "remove", "-h"}, []string{"usage: registry webhook remove [flags] ID"}, nil},
		{[]string{"withdraw", "-h"}, []string{"HASH"}, nil},
		{[]string{"deprecate", "-h"}, []string{"HASH"}, nil},
		{[]string{"publish", "-h"}, []string{"FILE..."}, nil},
		{[]string{"verify", "-h"}, []string{"HASH..."}, nil},
		{[]string{"log-key", "-h"}, []string{"ORIGIN"}, nil},
	} {
		stdout, stderr, err := runCLI(t, nil, nil, tc.args...)
		if code := exitCode(err); code != 0 {
			t.Errorf("registry %v: exit %d, want 0; stderr:\n%s", tc.args, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("registry %v: stdout lacks %q:\n%s", tc.args, w, stdout)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(stdout, w) {
				t.Errorf("registry %v: stdout lists %q, not its own:\n%s", tc.args, w, stdout)
			}
		}
	}
}

func TestUnknownMigrateCommandIsNamed(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"migrate", "--data-dir", dir, "foo"}, {"migrate", "foo", "--data-dir", dir}} {
		_, stderr, err := runCLI(t, nil, nil, args...)
		if exitCode(err) != 2 || !strings.Contains(stderr, `unknown migrate command "foo"`) {
			t.Errorf("registry %v: exit %d, stderr:\n%s", args, exitCode(err), stderr)
		}
	}
}

// TestPublishWithoutATokenSaysWhereItGoes: the 401 names REGISTRY_TOKEN.
func TestPublishWithoutATokenSaysWhereItGoes(t *testing.T) {
	srv := startServer(t, "--data-dir", t.TempDir(), "--no-examples")
	doc := filepath.Join(t.TempDir(), "doc.md")
	writeDoc(t, doc, "---\nname: Tokenless\ndescription: d\n---\n# T\n")
	_, stderr, err := runCLI(t, []string{"REGISTRY_TOKEN="}, nil, "publish", "--server", srv.URL, doc)
	if exitCode(err) != 1 || !strings.Contains(stderr, "set REGISTRY_TOKEN") {
		t.Errorf("publish without a token: exit %d, stderr:\n%s", exitCode(err), stderr)
	}
	_, stderr, _ = runCLI(t, []string{"REGISTRY_TOKEN=agr_unknown"}, nil, "publish", "--server", srv.URL, doc)
	if strings.Contains(stderr, "set REGISTRY_TOKEN") {
		t.Errorf("a wrong token is not a missing one:\n%s", stderr)
	}
	stopServer(t, srv)
}
