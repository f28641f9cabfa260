package protocol

import "testing"

func TestSplitFrontMatter(t *testing.T) {
	cases := []struct {
		name, doc, block, body string
		ok                     bool
	}{
		{"simple", "---\na: 1\n---\nbody", "a: 1\n", "body", true},
		{"CRLF", "---\r\na: 1\r\n---\r\nbody\r\n", "a: 1\r\n", "body\r\n", true},
		{"closed by dots", "---\na: 1\n...\nbody", "a: 1\n", "body", true},
		{"trailing blanks on markers", "--- \t\na: 1\n---  \nbody", "a: 1\n", "body", true},
		{"empty block", "---\n---\nbody", "", "body", true},
		{"closing marker at the end without newline", "---\na: 1\n---", "a: 1\n", "", true},
		{"unterminated", "---\na: 1\nbody", "", "---\na: 1\nbody", false},
		{"opening marker alone", "---", "", "---", false},
		{"opening marker and newline only", "---\n", "", "---\n", false},
		{"not on the first line", "\n---\na: 1\n---\n", "", "\n---\na: 1\n---\n", false},
		{"four dashes", "----\na: 1\n---\n", "", "----\na: 1\n---\n", false},
		{"leading blank", " ---\na: 1\n---\n", "", " ---\na: 1\n---\n", false},
		{"BOM first", "\ufeff---\na: 1\n---\n", "", "\ufeff---\na: 1\n---\n", false},
		{"dashes inside a value do not close", "---\na: ---x\n---\nb", "a: ---x\n", "b", true},
		{"indented dashes do not close", "---\na: |\n  ---\n---\nb", "a: |\n  ---\n", "b", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			block, body, ok := SplitFrontMatter([]byte(c.doc))
			if ok != c.ok || string(block) != c.block || string(body) != c.body {
				t.Errorf("SplitFrontMatter(%q) = %q, %q, %v; want %q, %q, %v", c.doc, block, body, ok, c.block, c.body, c.ok)
			}
		})
	}
}
