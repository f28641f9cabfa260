// Package docgen generates the parts of the documentation that must match
// the code (docs/configuration.md) and holds the tests that keep the
// deployment files (docker-compose.yml, docs) in step with it.
package docgen

//go:generate go run ./configdoc ../../docs/configuration.md

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/config"
)

// ConfigurationPath is the generated reference, relative to the module root.
const ConfigurationPath = "docs/configuration.md"

// extraRegistryVariables are read by the registry outside the option table:
// secrets never become flags, so they stay out of shell history and ps.
var extraRegistryVariables = []struct{ Name, Commands, Type, Usage string }{
	{"REGISTRY_TOKEN", "publish, get", "secret string", "API token sent as `Authorization: Bearer` by the client commands (create one with `registry token create`)"},
}

// developmentVariables steer the tests and benchmarks.
var developmentVariables = []struct{ Name, Usage string }{
	{"REGISTRY_TEST_POSTGRES_DSN", "admin DSN of a PostgreSQL server; each test creates and drops its own database (without it: testcontainers, else skip)"},
	{"REGISTRY_TEST_REQUIRE_POSTGRES", "`1`: fail instead of skipping when no PostgreSQL is reachable"},
	{"REGISTRY_TEST_REQUIRE_BROWSER", "`1`: fail instead of skipping when no Chromium is found for the browser tests"},
	{"REGISTRY_TEST_CHROMIUM", "path of the Chromium/Chrome binary for the browser tests"},
	{"REGISTRY_TEST_FAULTS", "`1`: run the fault-injection tests (internal/faulttest)"},
	{"REGISTRY_TEST_LOAD_DURATION", "how long the fault tests' sustained load runs per engine (a duration; default 30s)"},
	{"REGISTRY_SCREENSHOTS", "directory where the browser test writes the README screenshots"},
	{"REGISTRY_BENCH_SMOKE", "`1`: run the benchmark harness end to end in `go test` (`make bench-smoke`)"},
	{"REGISTRY_BENCH_DOCS", "documents the store benchmarks seed"},
	{"REGISTRY_BENCH_POSTGRES_DSN", "admin DSN for `cmd/benchrun` (falls back to REGISTRY_TEST_POSTGRES_DSN)"},
	{"REGISTRY_PG_PROFILE", "comma-separated PostgreSQL server-CPU profiles to run (`write`, `read`; docs/benchmarks/postgres-write-profile.md)"},
	{"REGISTRY_PG_PROFILE_SET", "which variants a PostgreSQL profile measures (`breakdown`, `store`)"},
	{"REGISTRY_PG_PROFILE_DOCS", "documents a PostgreSQL profile seeds"},
	{"REGISTRY_PG_PROFILE_BATCHES", "batches of 1,000 the PostgreSQL write profile inserts per variant"},
	{"REGISTRY_PG_PROFILE_ROUNDS", "rounds the PostgreSQL read profile repeats"},
	{"REGISTRY_PG_PROFILE_SECONDS", "seconds per measurement of the PostgreSQL read profile"},
	{"REGISTRY_MEMTEST_DB", "path of a seeded SQLite store for the memory and search-cost measurements (docs/benchmarks/sqlite-memory.md); unset: they skip"},
	{"REGISTRY_MEMTEST_PHASES", "phases of the SQLite memory measurement to run (e.g. `open,putmany`; empty: all)"},
	{"REGISTRY_MEMTEST_TUNING", "page-cache settings the SQLite memory measurement tries"},
	{"REGISTRY_MEMTEST_BATCHES", "PutMany batches the SQLite memory measurement writes"},
	{"REGISTRY_FTS_CEILING", "`1`: measure the FTS5 indexing ceiling on SQLite (docs/benchmarks/import-throughput.md)"},
	{"REGISTRY_FTS_CONFIG", "FTS5 settings (`key=value` pairs) the SQLite tuning benchmark tries"},
	{"REGISTRY_PUTMANY_WORK", "batches the SQLite tuning benchmark writes"},
}

// registryGroups are the registry's option sets and the commands reading
// them, in the order the reference shows them.
func registryGroups() []struct {
	Title, Commands string
	Options         []config.Option
} {
	return []struct {
		Title, Commands string
		Options         []config.Option
	}{
		{"Database", "serve, migrate, token, export, import", (&config.Database{}).Options()},
		{"Server", "serve (healthcheck reads `--addr` too, import `--max-document-bytes`)", serverOnly()},
		{"Client", "publish, get", (&config.Client{}).Options()},
	}
}

// serverOnly is serve's options without the database ones listed above.
func serverOnly() []config.Option {
	db := map[string]bool{}
	for _, o := range (&config.Database{}).Options() {
		db[o.Flag] = true
	}
	var out []config.Option
	for _, o := range (&config.Serve{}).Options() {
		if !db[o.Flag] {
			out = append(out, o)
		}
	}
	return out
}

// RegistryVariables is every REGISTRY_* variable the registry binary reads.
func RegistryVariables() map[string]bool {
	vars := map[string]bool{}
	for _, o := range config.Describe() {
		if o.Env != "" {
			vars[o.Env] = true
		}
	}
	for _, v := range extraRegistryVariables {
		vars[v.Name] = true
	}
	return vars
}

// AgentVariables is every AGENT_* variable the agent binary reads.
func AgentVariables() map[string]bool {
	vars := map[string]bool{}
	for _, o := range agent.Describe() {
		if o.Env != "" {
			vars[o.Env] = true
		}
	}
	return vars
}

// cell escapes a table cell and marks empties.
func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

func code(s string) string {
	if s == "(empty)" {
		return "(empty)"
	}
	if s == "" {
		return "—"
	}
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}

// Configuration renders docs/configuration.md.
func Configuration() string {
	var b strings.Builder
	b.WriteString(`# Configuration reference

<!-- GENERATED by ` + "`go generate ./internal/docgen`" + ` from internal/config and
internal/agent/options.go. Do not edit by hand: TestConfigurationDocIsCurrent
fails when this file differs from what the code generates. -->

Every setting has a flag and (except a few) an environment variable. A flag
always beats the environment, which beats the built-in default (for the agent:
flag, then environment, then the YAML file, then the default). Sizes accept
` + "`KiB`, `MiB` and `GiB`" + ` suffixes (counts, such as bursts, are plain whole numbers); durations are Go durations (` + "`500ms`, `5s`, `2m`" + `).
Booleans are ` + "`true`/`false`" + `.

## Registry (` + "`registry`" + `)

`)
	for _, g := range registryGroups() {
		fmt.Fprintf(&b, "### %s options\n\nRead by: %s.\n\n", g.Title, g.Commands)
		b.WriteString("| flag | environment | type | default | meaning |\n|---|---|---|---|---|\n")
		for _, o := range g.Options {
			def := o.Default
			if def == "" {
				def = "(empty)"
			}
			fmt.Fprintf(&b, "| `--%s` | %s | %s | %s | %s |\n", o.Flag, code(o.Env), cell(o.Type()), code(def), cell(o.Usage))
		}
		b.WriteString("\n")
	}
	b.WriteString("### Other variables\n\n| environment | read by | type | meaning |\n|---|---|---|---|\n")
	for _, v := range extraRegistryVariables {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", v.Name, v.Commands, cell(v.Type), cell(v.Usage))
	}
	b.WriteString(`
## Agent (` + "`agent`" + `)

The YAML file (` + "`--config`" + `) holds everything else: limits, conversations,
protocols and their routines, explicitly unsupported hashes. Every key is shown
with its default in [examples/agent.yaml](../examples/agent.yaml); see
[agent.md](agent.md).

| flag | environment | YAML key | command | type | default | meaning |
|---|---|---|---|---|---|---|
`)
	opts := agent.Describe()
	sort.SliceStable(opts, func(i, j int) bool { return opts[i].Flag != "" && opts[j].Flag == "" })
	for _, o := range opts {
		flag := ""
		if o.Flag != "" {
			flag = "--" + o.Flag
		}
		cmd := o.Command
		if cmd == "" {
			cmd = "serve, send"
		}
		def := o.Default
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", code(flag), code(o.Env), code(o.YAML), cmd, cell(o.Type), code(def), cell(o.Usage))
	}
	b.WriteString("\n## Tests and benchmarks\n\nRead by `go test`, `make bench` and `cmd/benchrun` only, never by the binaries:\n\n| environment | meaning |\n|---|---|\n")
	for _, v := range developmentVariables {
		fmt.Fprintf(&b, "| `%s` | %s |\n", v.Name, cell(v.Usage))
	}
	return b.String()
}
