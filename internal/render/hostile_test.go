package render

import (
	"strings"
)

// hostileTable is the 6 KB table of issue 13: 1,000 header columns and
// 1,000 one-pipe rows, which goldmark pads to a million cells.
var hostileTable = strings.Repeat("|a", 1000) + "|\n" + strings.Repeat("|-", 1000) + "|\n" + strings.Repeat("|\n", 1000)

// costlyMarkdown lists inputs whose goldmark cost grows faster than their
// size, each built to about size bytes. The bounds are in docs/SECURITY.md ("Rendering").
var costlyMarkdown = []struct {
	name string
	gen  func(size int) string
}{
	{"padded table", func(int) string { return hostileTable }},
	{"link openers on one line", repeatTo("[a](")},
	{"unclosed link destinations", repeatTo("[a](<b\n")},
	{"unclosed link titles", repeatTo("[a](b \"\n")},
	{"unclosed parenthesised titles", repeatTo("[a](b (\n")},
	{"reference definitions with open titles", repeatTo("[a]: b \"\n")},
	{"brackets nested across lines", func(size int) string {
		return strings.Repeat("[\n", size/4) + "a" + strings.Repeat("]\n", size/4)
	}},
	{"closers after one opener", func(size int) string {
		return "[" + strings.Repeat("a\n", size/4) + strings.Repeat("]\n", size/4)
	}},
	{"raw HTML attributes left open", repeatTo("<a b='\n")},
	{"autolinks left open", repeatTo("<http://a\n")},
	{"escaped pipes in code cells", func(size int) string { return "|a|\n|-|\n" + repeatTo("|`a\\|b`|\n")(size) }},
	{"nested blockquotes", func(size int) string { return strings.Repeat(">", size) + " a\n" }},
	{"nested lists", func(size int) string { return strings.Repeat("- ", size/2) + "a\n" }},
	{"blockquoted lists", func(size int) string { return strings.Repeat("> - ", size/4) + "a\n" }},
	{"lists nested by indentation", func(size int) string {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			b.WriteString(strings.Repeat(" ", 2*i) + "- a\n")
		}
		return b.String()
	}},
}

// amplifyingMarkdown renders at linear cost but to much more HTML than
// its size: the output limit is what bounds it.
var amplifyingMarkdown = []struct {
	name string
	gen  func(size int) string
}{
	{"empty task items", repeatTo("- [ ]\n")},
	{"bare domains", repeatTo("www.a.b ")},
	{"empty headings", repeatTo("#\n")},
	{"empty blockquotes", repeatTo(">\n\n")},
}

func repeatTo(s string) func(size int) string {
	return func(size int) string { return strings.Repeat(s, size/len(s)) }
}
