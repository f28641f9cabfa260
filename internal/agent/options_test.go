package agent

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agora-registry/registry/internal/config"
)

// The agent reads its file, variables and flags through the registry's
// option table: sizes take suffixes in every layer, flags beat variables,
// which beat the file, which beats the defaults.
func TestAgentOptionsLayerLikeTheRegistrys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.yaml")
	body := "addr: 127.0.0.1:9001\nname: file\nlimits:\n  maxDocumentBytes: 4MiB\n  maxCacheBytes: 1GiB\nconversations:\n  idleExpiry: 1m\nprotocols:\n  - document: doc.md\n    routine: {builtin: weather}\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AGENT_CONFIG": path, "AGENT_ADDR": "127.0.0.1:9002", "AGENT_MAX_REQUEST_BYTES": "8MiB"}
	var c Config
	var file string
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := config.Parse(fs, c.Options(&file), []string{"--registry", "http://a", "--registry", "http://b"}, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9002" || c.Name != "file" || c.Limits.MaxDocumentBytes != 4<<20 || c.Limits.MaxCacheBytes != 1<<30 ||
		c.Limits.MaxRequestBytes != 8<<20 || c.Conversations.IdleExpiry.String() != "1m0s" || c.Limits.MaxSources != 8 ||
		strings.Join(c.Registries, " ") != "http://a http://b" || len(c.Protocols) != 1 || c.Protocols[0].Routine.Builtin != "weather" || file != path {
		t.Fatalf("parsed %+v (file %q)", c, file)
	}
	if err := c.SetConfigPath(file); err != nil || c.path("doc.md") != filepath.Join(dir, "doc.md") {
		t.Fatalf("relative paths resolve to %q (%v)", c.path("doc.md"), err)
	}
	env["AGENT_MAX_REQUEST_BYTES"] = "8MB"
	err := config.Parse(flag.NewFlagSet("serve", flag.ContinueOnError), c.Options(&file), nil, func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), `invalid value "8MB" in environment variable AGENT_MAX_REQUEST_BYTES: want a number of bytes`) {
		t.Fatalf("bad variable: %v", err)
	}
}

// examples/agent.yaml documents every key the table reads, and nothing else
// (LoadConfig refuses unknown keys).
func TestExampleConfigShowsEveryKey(t *testing.T) {
	const example = "../../examples/agent.yaml"
	if _, err := LoadConfig(example); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	var walk func(prefix string, n *yaml.Node)
	walk = func(prefix string, n *yaml.Node) {
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			key := strings.TrimPrefix(prefix+"."+n.Content[i].Value, ".")
			shown[key] = true
			walk(key, n.Content[i+1])
		}
	}
	walk("", doc.Content[0])
	for _, o := range (&Config{}).Options(new(string)) {
		if o.Key != "" && !shown[o.Key] {
			t.Errorf("%s is read from the config file but not shown in %s", o.Key, example)
		}
	}
}

// registryLogKeys reads URL=KEY pairs from a repeated flag, a
// comma-separated variable, a YAML list or a YAML mapping; a key's '+' and
// '=' stay in it, and a pair that is no URL=KEY is refused.
func TestRegistryLogKeysOption(t *testing.T) {
	const k1, k2 = "reg.example+0a1b2c3d+AQID/+4=", "other+9f8e7d6c+BAUG"
	want := map[string]string{"http://a:8080": k1, "https://b": k2}
	parse := func(args []string, env map[string]string, yamlBody string) (Config, error) {
		var c Config
		var file string
		if yamlBody != "" {
			path := filepath.Join(t.TempDir(), "agent.yaml")
			if err := os.WriteFile(path, []byte(yamlBody), 0o600); err != nil {
				t.Fatal(err)
			}
			args = append(args, "--config", path)
		}
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		err := config.Parse(fs, c.Options(&file), args, func(k string) string { return env[k] })
		return c, err
	}
	for name, in := range map[string]struct {
		args []string
		env  map[string]string
		yaml string
	}{
		"flags":   {args: []string{"--registry-log-key", "http://a:8080/=" + k1, "--registry-log-key", "https://b=" + k2}},
		"env":     {env: map[string]string{"AGENT_REGISTRY_LOG_KEYS": "http://a:8080=" + k1 + ", https://b=" + k2}},
		"list":    {yaml: "registryLogKeys:\n  - http://a:8080=" + k1 + "\n  - https://b=" + k2 + "\n"},
		"mapping": {yaml: "registryLogKeys:\n  http://a:8080/: " + k1 + "\n  https://b: " + k2 + "\n"},
	} {
		c, err := parse(in.args, in.env, in.yaml)
		if err != nil || len(c.RegistryLogKeys) != 2 || c.RegistryLogKeys["http://a:8080"] != want["http://a:8080"] || c.RegistryLogKeys["https://b"] != want["https://b"] {
			t.Errorf("%s: %v %v", name, c.RegistryLogKeys, err)
		}
	}
	for _, bad := range []string{"http://a", "ftp://a=" + k1, "http://a=", "http://a=x y", "http://a=" + k1 + ",http://a/=" + k2} {
		if _, err := parse([]string{"--registry-log-key", bad}, nil, ""); err == nil {
			t.Errorf("--registry-log-key %q accepted", bad)
		}
	}
	if _, err := parse(nil, map[string]string{"AGENT_REGISTRY_LOG_KEYS": "http://user:secret@a"}, ""); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("a bad pair with a password: %v", err)
	}
}
