package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBadEnvironmentValueIsExplained runs the real binary, as a container
// would, with one bad REGISTRY_* value per case: it must exit with status 2
// and say on stderr which variable, which value and what is accepted (before
// this was fixed it exited 2 printing nothing, so a compose service
// restarted forever with empty logs).
func TestBadEnvironmentValueIsExplained(t *testing.T) {
	dataDir := t.TempDir()
	archive := filepath.Join(t.TempDir(), "none.tar.gz")
	for _, tc := range []struct {
		args          []string
		env, value    string
		shown, accept string // shown: the value as printed (a password is hidden)
	}{
		{[]string{"serve"}, "REGISTRY_OPEN_PUBLISH", "yes", "yes", "want true or false"},
		{[]string{"serve"}, "REGISTRY_CACHE_TTL", "5", "5", "like 30s"},
		{[]string{"serve"}, "REGISTRY_LOG_LEVEL", "verbose", "verbose", "debug, info, warn, error"},
		{[]string{"serve"}, "REGISTRY_RATE_LIMIT", "abc", "abc", "non-negative number"},
		{[]string{"serve"}, "REGISTRY_TRUSTED_PROXIES", "notanip", "notanip", "CIDR"},
		{[]string{"serve"}, "REGISTRY_RATE_BURST", "1KiB", "1KiB", "a count, no unit"},
		{[]string{"serve"}, "REGISTRY_MAX_BODY_BYTES", "3MB", "3MB", "KiB, MiB or GiB"},
		{[]string{"serve"}, "REGISTRY_ADDR", "8080", "8080", "host:port"},
		{[]string{"healthcheck"}, "REGISTRY_ADDR", "8080", "8080", "host:port"},
		{[]string{"export", "-o", archive}, "REGISTRY_DATABASE_URL", "mysql://u:hunter2@db/registry", "mysql://u:xxxxx@db/registry", "postgres://"},
		{[]string{"import", archive}, "REGISTRY_MAX_DOCUMENT_BYTES", "4MB", "4MB", "KiB, MiB or GiB"},
		{[]string{"import", archive}, "REGISTRY_DATABASE_URL", "sqlite:registry.db", "sqlite:registry.db", "postgres://"},
		{[]string{"publish", archive}, "REGISTRY_SERVER", "localhost:8080", "localhost:8080", "http://"},
		{[]string{"get", strings.Repeat("0", 40)}, "REGISTRY_SERVER", "127.0.0.1:8080", "127.0.0.1:8080", "http://"},
		{[]string{"token", "list"}, "REGISTRY_DATABASE_URL", "pg://db", "pg://db", "postgres://"},
		{[]string{"token", "create", "--name", "ci"}, "REGISTRY_DATABASE_URL", "pg://db", "pg://db", "postgres://"},
		{[]string{"migrate", "up"}, "REGISTRY_DATABASE_URL", "pg://db", "pg://db", "postgres://"},
		{[]string{"migrate", "version"}, "REGISTRY_DATABASE_URL", "pg://db", "pg://db", "postgres://"},
	} {
		t.Run(strings.Join(tc.args[:min(2, len(tc.args))], " ")+"/"+tc.env, func(t *testing.T) {
			_, stderr, err := runCLI(t, []string{tc.env + "=" + tc.value, "REGISTRY_DATA_DIR=" + dataDir}, nil, tc.args...)
			if code := exitCode(err); code != 2 {
				t.Errorf("exit status %d, want 2; stderr:\n%s", code, stderr)
			}
			for _, want := range []string{"registry " + tc.args[0] + ":", tc.env, `"` + tc.shown + `"`, tc.accept} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not mention %q:\n%s", want, stderr)
				}
			}
			if tc.shown != tc.value && strings.Contains(stderr, tc.value) {
				t.Errorf("stderr shows the password of %q:\n%s", tc.value, stderr)
			}
		})
	}
}
