package docgen

import (
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/testing/composeenv"
)

// composeFile is the part of docker-compose.yml the checks read.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

type composeService struct {
	Image       string            `yaml:"image"`
	Build       any               `yaml:"build"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Volumes     []string          `yaml:"volumes"`
	Healthcheck *struct {
		Test    []string `yaml:"test"`
		Disable bool     `yaml:"disable"`
	} `yaml:"healthcheck"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Restart string `yaml:"restart"`
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(moduleRoot(t), "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	// yaml/v3 resolves the anchors and merge keys (<<) the file uses.
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	if len(c.Services) == 0 {
		t.Fatal("docker-compose.yml has no services")
	}
	return c
}

// ourBinary reports which of our binaries a service runs ("" for others).
func ourBinary(s composeService) string {
	if s.Build == nil {
		return ""
	}
	if len(s.Entrypoint) > 0 && strings.HasSuffix(s.Entrypoint[0], "/agent") {
		return "agent"
	}
	return "registry"
}

// TestComposeServices: every service has an image or a build and a real
// health check, and the registry waits for a healthy database.
func TestComposeServices(t *testing.T) {
	c := loadCompose(t)
	for _, want := range []string{"db", "registry", "agent"} {
		if _, ok := c.Services[want]; !ok {
			t.Errorf("no %q service", want)
		}
	}
	for name, s := range c.Services {
		if s.Image == "" && s.Build == nil {
			t.Errorf("service %s has neither image nor build", name)
		}
		if s.Restart == "no" {
			// A one-shot job (migrate): others wait for it to complete, so
			// the image's HEALTHCHECK (inherited unless disabled) would only
			// probe a server that is not there while it works.
			if s.Healthcheck == nil || !s.Healthcheck.Disable {
				t.Errorf("one-shot service %s inherits the image's health check: set healthcheck: {disable: true}", name)
			}
			continue
		}
		if s.Healthcheck == nil || s.Healthcheck.Disable || len(s.Healthcheck.Test) < 2 {
			t.Errorf("service %s has no health check", name)
			continue
		}
		// Our image is distroless: only exec-form checks of our binaries work.
		if bin := ourBinary(s); bin != "" {
			test := s.Healthcheck.Test
			if test[0] != "CMD" || test[1] != "/usr/local/bin/"+bin && test[1] != "/usr/local/bin/registry" {
				t.Errorf("service %s: health check %q cannot run in the distroless image (use CMD /usr/local/bin/%s …)", name, test, bin)
			}
		}
		for dep := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				t.Errorf("service %s depends on unknown service %s", name, dep)
			}
		}
	}
	reg := c.Services["registry"]
	if cond := reg.DependsOn["db"].Condition; cond != "service_healthy" {
		t.Errorf("registry depends on db with condition %q, want service_healthy", cond)
	}
	if _, ok := c.Services["migrate"]; ok && reg.DependsOn["migrate"].Condition != "service_completed_successfully" {
		t.Errorf("registry must start after the migrate job completed successfully")
	}
	if c.Services["agent"].DependsOn["registry"].Condition != "service_healthy" {
		t.Errorf("agent must wait for a healthy registry")
	}
	for _, v := range c.Services["db"].Volumes {
		name, _, _ := strings.Cut(v, ":")
		if _, ok := c.Volumes[name]; !ok {
			t.Errorf("db volume %q is not a named volume", v)
		}
	}
}

// TestComposeFirstRun: the images are stamped with VERSION, and the URLs
// handed out follow REGISTRY_PORT unless REGISTRY_PUBLIC_URL is set.
func TestComposeFirstRun(t *testing.T) {
	c := loadCompose(t)
	for name, s := range c.Services {
		if s.Build == nil {
			continue
		}
		b, _ := s.Build.(map[string]any)
		args, _ := b["args"].(map[string]any)
		if v, _ := args["VERSION"].(string); !strings.Contains(v, "${VERSION") {
			t.Errorf("service %s builds without the VERSION argument (build: %v)", name, s.Build)
		}
	}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "http://localhost:8080"},
		{map[string]string{"REGISTRY_PORT": "9999"}, "http://localhost:9999"},
		{map[string]string{"REGISTRY_PORT": "9999", "REGISTRY_PUBLIC_URL": "https://r.example"}, "https://r.example"},
	} {
		if got := composeenv.Interpolate(c.Services["registry"].Environment["REGISTRY_PUBLIC_URL"], tc.env); got != tc.want {
			t.Errorf("%v: REGISTRY_PUBLIC_URL %q, want %q", tc.env, got, tc.want)
		}
		if got := composeenv.Interpolate(c.Services["agent"].Environment["AGENT_PUBLIC_REGISTRIES"], tc.env); got != tc.want {
			t.Errorf("%v: AGENT_PUBLIC_REGISTRIES %q, want %q", tc.env, got, tc.want)
		}
	}
}

// secretInFile matches a literal credential written into the file rather
// than taken from the environment.
var secretInFile = regexp.MustCompile(`(?i)password|secret|token|api_key`)

// TestComposeEnvironment: every REGISTRY_* / AGENT_* variable a service
// sets is one the code reads, and no secret is written into the file.
func TestComposeEnvironment(t *testing.T) {
	c := loadCompose(t)
	registryVars, agentVars := RegistryVariables(), AgentVariables()
	for name, s := range c.Services {
		bin := ourBinary(s)
		for k, v := range s.Environment {
			switch {
			case strings.HasPrefix(k, "REGISTRY_"):
				if bin != "registry" {
					t.Errorf("service %s sets %s but does not run the registry", name, k)
				} else if !registryVars[k] {
					t.Errorf("service %s sets %s, which the registry does not read", name, k)
				}
			case strings.HasPrefix(k, "AGENT_"):
				if bin != "agent" {
					t.Errorf("service %s sets %s but does not run the agent", name, k)
				} else if !agentVars[k] {
					t.Errorf("service %s sets %s, which the agent does not read", name, k)
				}
			}
			if secretInFile.MatchString(k) && !strings.Contains(v, "${") {
				t.Errorf("service %s: %s is written into the file; take it from the environment", name, k)
			}
			if strings.Contains(v, "://") && strings.Contains(v, "@") && !strings.Contains(v, "${") {
				t.Errorf("service %s: %s embeds credentials literally", name, k)
			}
		}
	}
}

// TestComposeAgentConfig: the agent's mounted config loads with the real
// loader (unknown keys are errors) and builds an agent with the compose
// environment applied.
func TestComposeAgentConfig(t *testing.T) {
	c := loadCompose(t)
	s := c.Services["agent"]
	var mounted string
	for _, v := range s.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == s.Environment["AGENT_CONFIG"] {
			mounted = parts[0]
		}
	}
	if mounted == "" {
		t.Fatalf("AGENT_CONFIG=%q is not a file mounted into the agent service", s.Environment["AGENT_CONFIG"])
	}
	cfg, err := agent.LoadConfig(filepath.Join(moduleRoot(t), mounted))
	if err != nil {
		t.Fatal(err)
	}
	env := s.Environment
	env["AGENT_CACHE_DIR"] = t.TempDir() // /cache is a volume in the container
	// Compose substitutes ${NAME:-default}; with NAME unset, the default.
	if err := cfg.ApplyEnv(func(k string) string { return composeenv.Interpolate(env[k], nil) }); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatalf("%s does not make a working agent: %v", mounted, err)
	}
}

// TestComposeConfigAccepted runs `docker compose config` (or the v1
// docker-compose) where a client is installed; it needs no engine.
func TestComposeConfigAccepted(t *testing.T) {
	var cmd *exec.Cmd
	if err := exec.Command("docker", "compose", "version").Run(); err == nil {
		cmd = exec.Command("docker", "compose", "config", "--quiet")
	} else if path, err := exec.LookPath("docker-compose"); err == nil {
		cmd = exec.Command(path, "config", "--quiet")
	} else {
		t.Skip("no compose client installed (docker compose / docker-compose); the YAML checks above still ran")
	}
	cmd.Dir = moduleRoot(t)
	cmd.Env = append(os.Environ(), "POSTGRES_PASSWORD=compose-config-check")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	// Without the password compose must refuse, not start with an empty one.
	cmd = exec.Command(cmd.Args[0], cmd.Args[1:]...)
	cmd.Dir = moduleRoot(t)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "POSTGRES_PASSWORD=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("compose accepted the file without POSTGRES_PASSWORD:\n%s", out)
	}
}

// composeRunRedirect is a `docker compose run` whose output goes to a file.
var composeRunRedirect = regexp.MustCompile(`docker compose run [^\n]*[^2]> *\S`)

// TestComposeBackupCommandHasNoTTY: a `docker compose run` piped into a
// file needs -T, or compose allocates a terminal and export refuses to
// write gzip to it (and a TTY would mangle the bytes anyway).
func TestComposeBackupCommandHasNoTTY(t *testing.T) {
	root := moduleRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"), filepath.Join(root, "docker-compose.yml"))
	found := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range composeRunRedirect.FindAllString(string(raw), -1) {
			found++
			if !strings.Contains(cmd, " -T ") {
				t.Errorf("%s: %q writes to a file without -T", filepath.Base(f), cmd)
			}
		}
	}
	if found == 0 {
		t.Error("no backup command (docker compose run … registry export > FILE) found in the docs or docker-compose.yml")
	}
}

// composeVar matches a ${NAME…} reference.
var composeVar = regexp.MustCompile(`\$\{([A-Z][A-Z0-9_]*)`)

// TestComposeEnvExample: .env.example names every variable the compose
// file reads, and nothing else, so a team fills in one file.
func TestComposeEnvExample(t *testing.T) {
	root := moduleRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, m := range composeVar.FindAllStringSubmatch(string(raw), -1) {
		used[m[1]] = true
	}
	example, err := os.ReadFile(filepath.Join(root, ".env.example"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(example), "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "# ")
		if name, _, ok := strings.Cut(line, "="); ok && regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(name) {
			listed[name] = true
		}
	}
	for v := range used {
		if !listed[v] {
			t.Errorf(".env.example does not list %s, which docker-compose.yml reads", v)
		}
	}
	for v := range listed {
		if !used[v] {
			t.Errorf(".env.example lists %s, which docker-compose.yml does not read", v)
		}
	}
}

// TestComposeCommandsAndAnnouncement: every service of ours runs a real
// subcommand, and the agent's announcement reaches the registry: it
// announces to the registry service under a public URL the registry's
// outbound guard lets it crawl, so a fresh `docker compose up` lists one
// agent in the directory.
func TestComposeCommandsAndAnnouncement(t *testing.T) {
	c := loadCompose(t)
	known := map[string]map[string]bool{"registry": {}, "agent": {}}
	for _, cmd := range config.RegistryCommands() {
		known["registry"][strings.Fields(cmd.Name)[0]] = true
	}
	for _, cmd := range agent.Commands() {
		known["agent"][strings.Fields(cmd.Name)[0]] = true
	}
	for name, s := range c.Services {
		bin := ourBinary(s)
		if bin == "" || len(s.Command) == 0 {
			continue
		}
		if !known[bin][s.Command[0]] {
			t.Errorf("service %s runs `%s %s`, which is no subcommand of %s", name, bin, s.Command[0], bin)
		}
	}
	ag := c.Services["agent"].Environment
	announce := composeenv.Interpolate(ag["AGENT_ANNOUNCE"], nil)
	if announce != "http://registry:"+strings.TrimPrefix(c.Services["registry"].Environment["REGISTRY_ADDR"], ":") {
		t.Errorf("the agent announces to %q, not the registry service's address", announce)
	}
	public, err := url.Parse(composeenv.Interpolate(ag["AGENT_PUBLIC_URL"], nil))
	if err != nil || public.Host == "" {
		t.Fatalf("AGENT_PUBLIC_URL %q is not a URL", ag["AGENT_PUBLIC_URL"])
	}
	if public.Host != "agent:"+strings.TrimPrefix(ag["AGENT_ADDR"], ":") {
		t.Errorf("AGENT_PUBLIC_URL %s is not where the agent service listens (%s)", public, ag["AGENT_ADDR"])
	}
	allow := strings.Split(composeenv.Interpolate(c.Services["registry"].Environment["REGISTRY_OUTBOUND_ALLOW"], nil), ",")
	if !slices.Contains(allow, public.Host) && !slices.Contains(allow, public.Hostname()) {
		t.Errorf("the registry's REGISTRY_OUTBOUND_ALLOW %q does not let it crawl the agent at %s", allow, public.Host)
	}
}
