package render

import (
	"strings"
	"testing"
)

// The page's title is its one <h1>: a document's headings move one level
// down and get ids to link to, prefixed so they never take a page's id.
func TestHeadingsShiftAndGetIDs(t *testing.T) {
	doc := "# Weather Protocol\n\n## Request\n\n## Request\n\n## Request-2\n\n###### Deep\n\n" +
		"## `code` and *emphasis* — déjà vu!\n\n## 日本語\n\n#\n\n## hash-hex\n\n## " + strings.Repeat("x", 200) + "\n"
	out, err := New().Markdown([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out.HTML)
	for _, want := range []string{
		`<h2 id="doc-weather-protocol">Weather Protocol</h2>`,
		`<h3 id="doc-request">Request</h3>`,
		`<h3 id="doc-request-2">Request</h3>`,
		`<h3 id="doc-request-2-2">Request-2</h3>`,
		`<h6 id="doc-deep">Deep</h6>`,
		`<h3 id="doc-code-and-emphasis-d-j-vu">`,
		`<h3 id="doc-section">日本語</h3>`,
		"<h2></h2>",
		`<h3 id="doc-hash-hex">`,
		`<h3 id="doc-` + strings.Repeat("x", maxSlug) + `">`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "<h1") {
		t.Errorf("a document heading rendered as <h1>:\n%s", got)
	}
}
