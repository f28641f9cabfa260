package render

import "testing"

// FuzzMarkdown proves that whatever Markdown comes in, the HTML that goes
// out carries no script, event handler or active URL.
// Run longer with: go test -fuzz=FuzzMarkdown ./internal/render
func FuzzMarkdown(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] t\n\n```go\nx\n```\n")
	r := New()
	f.Fuzz(func(t *testing.T, in string) {
		out, err := r.Document([]byte(in))
		if err != nil {
			return // goldmark reports only writer errors; nothing to check
		}
		if d := dangerous(out.HTML); d != "" {
			t.Fatalf("input %q rendered with %s:\n%s", in, d, out.HTML)
		}
	})
}
