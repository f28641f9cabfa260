package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/config"
)

// goRun matches a command line of the docs: the binary and what follows.
var goRun = regexp.MustCompile(`go run \./cmd/(registry|agent)\b([^|;)&#\n]*)`)

// docFlag matches a --flag word.
var docFlag = regexp.MustCompile(`(?:^|\s)--([a-z][a-z0-9-]*)`)

// TestDocCommandsUseRealFlags: every `go run ./cmd/registry|agent SUB
// --flag` in the README and docs names a subcommand and flags that exist,
// so a walk-through (the tour, docs/agent.md's announce and --speaking
// steps) cannot be copied into a terminal and fail on a renamed flag.
func TestDocCommandsUseRealFlags(t *testing.T) {
	tables := map[string]map[string][]config.Option{"registry": {}, "agent": {}}
	for _, c := range config.RegistryCommands() {
		tables["registry"][c.Name] = c.Options
	}
	for _, c := range agent.Commands() {
		tables["agent"][c.Name] = c.Options
	}
	defaults := map[string]string{"registry": "serve"}
	root := moduleRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	checked := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// A backslash continues a shell line.
		text := strings.ReplaceAll(string(raw), "\\\n", " ")
		for _, m := range goRun.FindAllStringSubmatch(text, -1) {
			bin, words := m[1], strings.Fields(m[2])
			name := defaults[bin]
			if len(words) > 1 && tables[bin][words[0]+" "+words[1]] != nil {
				name = words[0] + " " + words[1]
			} else if len(words) > 0 && !strings.HasPrefix(words[0], "-") {
				name = words[0]
			}
			opts, ok := tables[bin][name]
			if !ok {
				continue // a command without options (version, log-key, …)
			}
			for _, fm := range docFlag.FindAllStringSubmatch(m[2], -1) {
				found := false
				for _, o := range opts {
					found = found || o.Flag == fm[1]
				}
				if !found {
					t.Errorf("%s: `go run ./cmd/%s%s`: %s %s has no flag --%s", filepath.Base(f), bin, m[2], bin, name, fm[1])
				}
				checked++
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d documented flags checked; the pattern no longer matches the docs", checked)
	}
}
