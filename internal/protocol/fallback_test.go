package protocol

import (
	"strings"
	"testing"
)

func TestMarkdownFallback(t *testing.T) {
	cases := []struct {
		name, body, heading, paragraph string
	}{
		{"heading then paragraph", "# Title\n\nFirst para\ncontinued.\n\nSecond.", "Title", "First para continued."},
		{"closing hashes", "# Title ##\n\np", "Title", "p"},
		{"hash inside the title", "# C#\n\np", "C#", "p"},
		{"only hashes", "#\n# ##\n# Real\n\np", "Real", "p"},
		{"level two is not a title", "## Sub\n\np\n\n# Main", "Main", "p"},
		{"no space after '#' is prose", "#hashtag text\n\n# T", "T", "#hashtag text"},
		{"seven hashes is prose", "####### x\n\n# T", "T", "####### x"},
		{"tab after '#'", "#\tTabbed\n\np", "Tabbed", "p"},
		{"setext title", "The Title\n=========\n\nThe paragraph.", "The Title", "The paragraph."},
		{"setext level two is neither", "Sub\n---\n\nReal paragraph.\n# T", "T", "Real paragraph."},
		{"backtick fence skipped", "```\n# not a title\nnot prose\n```\n# T\n\np", "T", "p"},
		{"tilde fence skipped", "~~~go\n# x\n~~~\n\np", "", "p"},
		{"other fence does not close", "```\n~~~\n# x\n```\np", "", "p"},
		{"longer fence needs a longer close", "````\n```\n# x\n````\np", "", "p"},
		{"inline code is prose", "```code``` in text", "", "```code``` in text"},
		{"unclosed fence hides the rest", "```\n# x\n\np", "", ""},
		{"indented code skipped", "    # code\n    more code\n\np", "", "p"},
		{"tab-indented code skipped", "\tcode\n\np", "", "p"},
		{"indented continuation stays prose", "para\n    continued", "", "para continued"},
		{"lists skipped", "- a\n* b\n+ c\n1. d\n2) e\n-\n\np", "", "p"},
		{"a number is prose", "2024 was a year.", "", "2024 was a year."},
		{"quote and table skipped", "> quoted\n| a | b |\n|---|---|\n\np", "", "p"},
		{"html skipped", "<div>\n\np", "", "p"},
		{"thematic breaks skipped", "***\n- - -\n___\n\np", "", "p"},
		{"emphasis is prose", "*Important* note.", "", "*Important* note."},
		{"list ends a paragraph", "p1\n- item\np2", "", "p1"},
		{"CRLF", "# T\r\n\r\nline one\r\nline two\r\n", "T", "line one line two"},
		{"empty", "", "", ""},
		{"a table is not prose", "| a | b |\n|---|---|\n| 1 | 2 |\n\np", "", "p"},
		{"paragraphs inside lists are not the summary", "- # x\n\n  item para\n\nreal", "", "real"},
		{"deep nesting after the title is not parsed", "# T\n\np\n\n" + strings.Repeat("> ", 40) + "x\n\n# Later", "T", "p"},
		{"nothing from the deep line on", strings.Repeat("- ", 40) + "x\n\n# T\n\np", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, p := markdownFallback([]byte(c.body))
			if h != c.heading || p != c.paragraph {
				t.Errorf("markdownFallback(%q) = %q, %q; want %q, %q", c.body, h, p, c.heading, c.paragraph)
			}
		})
	}
}
