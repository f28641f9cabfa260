package render

import (
	"strings"
	"testing"
)

func TestRendersGitHubFlavouredMarkdown(t *testing.T) {
	doc := "---\nname: Weather\ndescription: forecasts\n---\n" +
		"# Weather Protocol\n\n" +
		"| field | type |\n|:--|--:|\n| city | string |\n\n" +
		"- [x] done\n- [ ] todo\n\n" +
		"```json\n{\"a\": 1}\n```\n\n" +
		"See https://example.org and ~~old~~ text.\n"
	out, err := New().Document([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out.HTML)
	for _, want := range []string{
		`<h2 id="doc-weather-protocol">Weather Protocol</h2>`,
		"<table>", `<th align="left">field</th>`, `<td align="right">string</td>`,
		`<input checked="" disabled="" type="checkbox"`,
		`<code class="language-json">`,
		`<a href="https://example.org" rel="nofollow noreferrer noopener" target="_blank">https://example.org</a>`,
		"<del>old</del>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "name: Weather") {
		t.Errorf("front matter was rendered as text:\n%s", got)
	}
	if d := dangerous(out.HTML); d != "" {
		t.Errorf("output contains %s:\n%s", d, got)
	}
}

// hostile lists inputs that try to get script or active URLs through.
var hostile = []string{
	"<script>window.__pwned=1</script>",
	"<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
	"<img src=x onerror=alert(1)>",
	"<svg onload=alert(1)>",
	"<a href=\"javascript:alert(1)\">x</a>",
	"[click](javascript:alert(1))",
	"[click](JaVaScRiPt:alert(1))",
	"[click](java\tscript:alert(1))",
	"[click](&#106;avascript:alert(1))",
	"[click](vbscript:msgbox(1))",
	"[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
	"![x](data:image/svg+xml,<svg onload=alert(1)>)",
	"![x](javascript:alert(1))",
	"<javascript:alert(1)>",
	"[a]: javascript:alert(1)\n\n[a]",
	"```\"><script>alert(1)</script>\nx\n```",
	"```go onclick=alert(1)\nx\n```",
	"<iframe src=javascript:alert(1)></iframe>",
	"<style>body{background:url(javascript:alert(1))}</style>",
	"<details open ontoggle=alert(1)>",
	"# heading {onclick=alert(1)}",
	"<!-- --><script>alert(1)</script>",
	"<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
}

func TestHostileInputIsNeutralised(t *testing.T) {
	r := New()
	for _, in := range hostile {
		out, err := r.Markdown([]byte(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if d := dangerous(out.HTML); d != "" {
			t.Errorf("%q rendered with %s:\n%s", in, d, out.HTML)
		}
	}
}

func TestCodeLanguageClassIsRestricted(t *testing.T) {
	out, err := New().Markdown([]byte("```\" onmouseover=\"x\n1\n```\n\n```c++\n2\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out.HTML)
	if !strings.Contains(got, `<code class="language-c++">`) {
		t.Errorf("a normal language class was lost:\n%s", got)
	}
	if d := dangerous(out.HTML); d != "" {
		t.Errorf("output contains %s:\n%s", d, got)
	}
}

// The checker itself must catch what it claims to, or the fuzz target
// proves nothing.
func TestDangerousDetectsPayloads(t *testing.T) {
	for _, bad := range []string{
		"<SCRIPT>", `<img src=x onerror=1>`, `<a href=" java&#x09;script:x">`, `<a href="JAVASCRIPT:x">`,
		`<a href="vbscript:x">`, `<img src="data:image/png;base64,AA">`, `<p class="x">`, `<svg>`,
		`<a href="	javascript:x">`,
	} {
		if dangerous([]byte(bad)) == "" {
			t.Errorf("checker missed %q", bad)
		}
	}
	for _, ok := range []string{`<a href="https://x/a:b">`, `<a href="/protocols/a:b">`, `<a href="mailto:a@b">`, `<code class="language-go">`} {
		if d := dangerous([]byte(ok)); d != "" {
			t.Errorf("checker flagged harmless %q: %s", ok, d)
		}
	}
}
