package agent

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agora-registry/registry/internal/testing/composeenv"
)

// TestComposeAgentAdvertisesReachableSources: the agent as
// docker-compose.yml runs it reaches the registry as http://registry:8080,
// a name only the compose network resolves; its well-known lists must
// name the registry's public URL instead.
func TestComposeAgentAdvertisesReachableSources(t *testing.T) {
	raw, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &compose); err != nil {
		t.Fatal(err)
	}
	env := compose.Services["agent"].Environment
	cfg, err := LoadConfig("../../examples/agent.compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.ApplyEnv(func(k string) string { return composeenv.Interpolate(env[k], nil) }); err != nil {
		t.Fatal(err)
	}
	cfg.CacheDir = t.TempDir()
	_, bob := startBob(t, cfg)
	for _, path := range []string{"/wellknown", "/.wellknown", "/.well-known/agora"} {
		body := mustJSON(getJSONObject(t, bob+path))
		if strings.Contains(body, "//registry:") || !strings.Contains(body, "http://localhost:8080/protocol/") {
			t.Errorf("%s advertises %s", path, body)
		}
	}
	var regs []string
	json.Unmarshal(getJSONObject(t, bob+"/.well-known/agora")["registries"], &regs)
	if len(regs) != 1 || regs[0] != "http://localhost:8080" {
		t.Errorf("registries %v", regs)
	}
}
