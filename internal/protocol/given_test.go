package protocol

import (
	"slices"
	"strings"
	"testing"
)

// What is given beside a document stands in for the Markdown fallback,
// field by field, and never for the front matter's own values.
func TestGivenMetadataReplacesOnlyTheFallback(t *testing.T) {
	given := Given{Title: "Posted Name", Description: "Posted description."}
	for _, c := range []struct {
		name, doc     string
		given         Given
		title, descr  string
		noTitleLint   bool
		truncatedLint bool
	}{
		{"no front matter, heading and paragraph", "# Heading\n\nFirst paragraph.\n", given, "Posted Name", "Posted description.", true, false},
		{"no front matter, plain text", "just text", given, "Posted Name", "Posted description.", true, false},
		{"front matter with both", "---\nname: FM Name\ndescription: FM description.\n---\n# Heading\n", given, "FM Name", "FM description.", true, false},
		{"front matter without name", "---\ndescription: FM description.\n---\n# Heading\n", given, "Posted Name", "FM description.", true, false},
		{"front matter without description", "---\nname: FM Name\n---\n# Heading\n\nParagraph.\n", given, "FM Name", "Posted description.", true, false},
		{"invalid front matter", "---\n: [\n---\n# Heading\n", given, "Posted Name", "Posted description.", true, false},
		{"nothing given", "# Heading\n\nParagraph.\n", Given{}, "Heading", "Paragraph.", true, false},
		{"only a name given", "# Heading\n\nParagraph.\n", Given{Title: "Posted Name"}, "Posted Name", "Paragraph.", true, false},
		{"a given name of control characters only", "# Heading\n", Given{Title: "\x01\u202e"}, "Heading", "", true, false},
		{"a given description keeps its lines", "x", Given{Description: "line one\nline two"}, "", "line one\nline two", false, false},
		{"a long given name is cut", "x", Given{Title: strings.Repeat("n", MaxTitleRunes+5)}, strings.Repeat("n", MaxTitleRunes), "x", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := PrepareGiven([]byte(c.doc), 0, c.given)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Metadata.Title != c.title || doc.Metadata.Description != c.descr {
				t.Errorf("title %q, description %q; want %q, %q", doc.Metadata.Title, doc.Metadata.Description, c.title, c.descr)
			}
			codes := make([]string, len(doc.Lints))
			for i, l := range doc.Lints {
				codes[i] = l.Code
			}
			if got := !slices.Contains(codes, LintMissingTitle); got != c.noTitleLint {
				t.Errorf("lints %v: missing_title absent = %v, want %v", codes, got, c.noTitleLint)
			}
			if got := slices.Contains(codes, LintTruncated); got != c.truncatedLint {
				t.Errorf("lints %v: truncated = %v, want %v", codes, got, c.truncatedLint)
			}
			if string(doc.Content) != c.doc {
				t.Error("the document's bytes changed")
			}
		})
	}
}
