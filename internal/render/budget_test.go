package render

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
)

func TestCostlyMarkdownIsShownAsText(t *testing.T) {
	r := New()
	for _, c := range costlyMarkdown {
		t.Run(c.name, func(t *testing.T) {
			src := c.gen(64 << 10)
			out, err := r.Markdown([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Lints) != 1 || out.Lints[0].Code != LintRenderBudget {
				t.Fatalf("lints %v, want one %s", out.Lints, LintRenderBudget)
			}
			if want := `<pre><code>` + html.EscapeString(src) + "</code></pre>"; string(out.HTML) != want {
				t.Fatalf("not shown as escaped text: %.200s", out.HTML)
			}
			if d := dangerous(out.HTML); d != "" {
				t.Fatalf("text output contains %s", d)
			}
		})
	}
}

// The table of issue 13 made goldmark build a million cells (15 million
// allocations, 10 MB of HTML); within the budget it costs a few hundred.
func TestHostileTableCostsItsSize(t *testing.T) {
	r := New()
	var out Rendered
	allocs := testing.AllocsPerRun(3, func() { out, _ = r.Markdown([]byte(hostileTable)) })
	if allocs > 1000 {
		t.Errorf("rendering the 6 KB table took %.0f allocations, want at most 1000", allocs)
	}
	if len(out.HTML) > 2*len(hostileTable) || len(out.Lints) != 1 || out.Lints[0].Code != LintRenderBudget {
		t.Errorf("got %d bytes of HTML with lints %v, want text with the %s lint", len(out.HTML), out.Lints, LintRenderBudget)
	}
}

func TestAmplifyingMarkdownOutputIsBounded(t *testing.T) {
	r := New()
	for _, c := range amplifyingMarkdown {
		t.Run(c.name, func(t *testing.T) {
			src := c.gen(64 << 10)
			out, err := r.Markdown([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if limit := limitsFor(len(src)).output; len(out.HTML) > limit {
				t.Fatalf("%d bytes of HTML from %d, over the limit %d", len(out.HTML), len(src), limit)
			}
		})
	}
}

// Real documents stay far inside the budget: the repository's own docs,
// the bundled examples and the design notes.
func TestOrdinaryMarkdownRendersWithinBudget(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../*.md", "../../docs/*.md", "../../examples/protocols/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("found only %v", files)
	}
	r := New()
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Document(doc)
		if err != nil || len(out.Lints) != 0 || bytes.HasPrefix(out.HTML, []byte("<pre")) {
			t.Errorf("%s: %v %v", f, err, out.Lints)
		}
	}
}

func TestNestingLimitIsExact(t *testing.T) {
	r := New()
	for _, c := range []struct {
		name   string
		prefix string
	}{{"blockquotes", ">"}, {"lists", "- "}, {"mixed", "> 1. "}} {
		t.Run(c.name, func(t *testing.T) {
			markers := strings.Count(c.prefix, ">") + strings.Count(c.prefix, "-") + strings.Count(c.prefix, ".")
			at := strings.Repeat(c.prefix, MaxNesting/markers) + "a\n"
			over := strings.Repeat(c.prefix, MaxNesting/markers+1) + "a\n"
			if out, _ := r.Markdown([]byte(at)); len(out.Lints) != 0 {
				t.Errorf("%d levels were refused: %v", MaxNesting, out.Lints)
			}
			if out, _ := r.Markdown([]byte(over)); len(out.Lints) != 1 {
				t.Errorf("more than %d levels were rendered", MaxNesting)
			}
		})
	}
}

func TestLineNesting(t *testing.T) {
	for line, want := range map[string]int{
		"a > b": 0, "-a": 0, "---": 0, "    code": 0, "1.5 apples": 0,
		"> a": 1, "- a": 1, "-": 1, "1. a": 1, "1) a": 1,
		"> > - 1. a": 4, ">>>": 3, "    - a": 3, "\t- a": 3, "  >   - a": 4,
	} {
		if got := protocol.MarkdownLineNesting([]byte(line)); got != want {
			t.Errorf("MarkdownLineNesting(%q) = %d, want %d", line, got, want)
		}
	}
}

// The cell limit is the formula's: a table one row short of it renders,
// one more row is shown as text.
func TestTableCellLimitIsExact(t *testing.T) {
	const cols = 64
	table := func(rows int) string {
		return strings.Repeat("|a", cols) + "|\n" + strings.Repeat("|-", cols) + "|\n" + strings.Repeat("|\n", rows)
	}
	rows := 0
	for cols*(rows+2) <= limitsFor(len(table(rows+1))).cells {
		rows++
	}
	r := New()
	if out, _ := r.Markdown([]byte(table(rows))); len(out.Lints) != 0 || !bytes.Contains(out.HTML, []byte("<table>")) {
		t.Errorf("%d cells were refused: %v", cols*(rows+1), out.Lints)
	}
	if out, _ := r.Markdown([]byte(table(rows + 1))); len(out.Lints) != 1 {
		t.Errorf("%d cells were rendered", cols*(rows+2))
	}
}

// The block limit is the formula's: as many empty headings as it allows
// render, one more is shown as text.
func TestBlockLimitIsExact(t *testing.T) {
	headings := func(k int) string { return strings.Repeat("#\n", k) }
	k := 0
	for k+1 <= limitsFor(len(headings(k+1))).blocks {
		k++
	}
	r := New()
	if out, _ := r.Markdown([]byte(headings(k))); len(out.Lints) != 0 {
		t.Errorf("%d blocks were refused: %v", k, out.Lints)
	}
	if out, _ := r.Markdown([]byte(headings(k + 1))); len(out.Lints) != 1 {
		t.Errorf("%d blocks were rendered", k+1)
	}
}
