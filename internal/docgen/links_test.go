package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink matches the target of a Markdown link or image: ](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinksResolve: every relative link in README.md, CONTRIBUTING.md,
// CHANGELOG.md and docs/*.md points at a file in the repository.
func TestDocLinksResolve(t *testing.T) {
	root := moduleRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"), filepath.Join(root, "CHANGELOG.md"))
	checked := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(src), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			abs := filepath.Join(filepath.Dir(f), filepath.FromSlash(target))
			rel, _ := filepath.Rel(root, abs)
			rel = filepath.ToSlash(rel)
			checked++
			if _, err := os.Stat(abs); err != nil {
				fr, _ := filepath.Rel(root, f)
				t.Errorf("%s links to %s (%s), which does not exist", fr, m[1], rel)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d links checked: the link pattern is broken", checked)
	}
}
