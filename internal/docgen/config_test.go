package docgen

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/config"
)

// moduleRoot is where go.mod lives, two levels above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	return root
}

// TestConfigurationDocIsCurrent fails when docs/configuration.md is not
// exactly what the option tables generate.
func TestConfigurationDocIsCurrent(t *testing.T) {
	path := filepath.Join(moduleRoot(t), ConfigurationPath)
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go generate ./internal/docgen`)", err)
	}
	if want := Configuration(); string(have) != want {
		t.Fatalf("%s is out of date: run `go generate ./internal/docgen` and commit the result\n%s", ConfigurationPath, firstDifference(string(have), want))
	}
}

func firstDifference(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n  file:      " + hl + "\n  generated: " + wl
		}
	}
	return ""
}

// TestEveryOptionIsDocumented: every flag and variable of every command's
// table is in the generated reference.
func TestEveryOptionIsDocumented(t *testing.T) {
	doc := Configuration()
	check := func(binary string, cmds []config.Command) {
		for _, c := range cmds {
			if !strings.Contains(doc, "### `"+binary+" "+c.Name+"`") {
				t.Errorf("%s %s has no section", binary, c.Name)
			}
			for _, o := range c.Options {
				if o.Flag != "" && !strings.Contains(doc, "`--"+o.Flag+"`") || o.Env != "" && !strings.Contains(doc, "`"+o.Env+"`") {
					t.Errorf("%s %s: %+v is missing from the generated reference", binary, c.Name, o)
				}
			}
		}
	}
	check("registry", config.RegistryCommands())
	check("agent", agent.Commands())
}

// envLiteral matches a quoted variable name in Go source.
var envLiteral = regexp.MustCompile(`"((?:REGISTRY|AGENT)_[A-Z0-9_]+)"`)

// TestEveryVariableInTheCodeIsDocumented scans every Go file of the module
// for REGISTRY_* / AGENT_* string literals: a variable someone reads with
// os.Getenv outside the option tables still has to be documented.
func TestEveryVariableInTheCodeIsDocumented(t *testing.T) {
	root := moduleRoot(t)
	doc := Configuration()
	found := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "data" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.Contains(path, string(filepath.Separator)+"docgen"+string(filepath.Separator)) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range envLiteral.FindAllStringSubmatch(string(src), -1) {
			rel, _ := filepath.Rel(root, path)
			found[m[1]] = append(found[m[1]], rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 10 {
		t.Fatalf("found only %d variables in the code: the scan is broken", len(found))
	}
	var names []string
	for n := range found {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !strings.Contains(doc, "`"+n+"`") {
			t.Errorf("%s (read in %s) is not in %s", n, strings.Join(found[n], ", "), ConfigurationPath)
		}
	}
}
