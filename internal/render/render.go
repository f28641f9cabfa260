// Package render turns protocol documents (Markdown) into HTML that is safe
// to embed in a page: goldmark renders GitHub-flavoured Markdown with raw
// HTML switched off, and bluemonday then removes anything that is not plain
// document markup. Two layers, because either alone has had bypasses.
package render

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"regexp"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"

	"github.com/agora-registry/registry/internal/protocol"
)

// Renderer converts Markdown to sanitised HTML. It is safe for concurrent use.
type Renderer struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
}

// New builds a renderer. Never add goldmark's html.WithUnsafe (raw HTML
// through) or parser.WithAttribute (author-chosen attributes): both open
// holes that the sanitiser would then be the only guard against.
func New() *Renderer {
	md := goldmark.New(
		goldmark.WithExtensions(
			extension.Table,
			extension.Strikethrough,
			extension.Linkify,
			extension.TaskList,
		),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(headings{}, 1000))),
		goldmark.WithRendererOptions(gmhtml.WithXHTML()),
		goldmark.WithRendererOptions(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
	)
	return &Renderer{md: md, policy: policy()}
}

// languageClass is the only class an element may carry: the language of a
// fenced code block, as goldmark writes it ("language-go").
var languageClass = regexp.MustCompile(`^language-[A-Za-z0-9_+#.-]{1,40}$`)

// policy is bluemonday's user-generated-content policy plus the two things
// goldmark emits that it lacks: code block language classes and disabled
// task-list checkboxes. Its URL rules admit only http, https and mailto
// (and relative URLs), so javascript:, vbscript: and data: never survive.
func policy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("class").Matching(languageClass).OnElements("code")
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^(|checked|disabled)$`)).OnElements("input")
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return p
}

// Rendered is a document as a page shows it.
type Rendered struct {
	// HTML is the sanitised rendering, or the escaped text in a <pre>
	// when the document is over the rendering budget.
	HTML []byte
	// Lints holds the render_budget lint saying why it was not rendered.
	Lints []protocol.Lint
}

// LintRenderBudget marks a document shown as plain text because rendering
// it would cost more than the budget allows.
const LintRenderBudget = "render_budget"

// Markdown renders Markdown to sanitised HTML within the rendering budget.
func (r *Renderer) Markdown(src []byte) (Rendered, error) {
	lim := limitsFor(len(src))
	if reason := overBudget(src, lim); reason != "" {
		return asText(src, reason), nil
	}
	out := limitedBuffer{limit: lim.output}
	if err := r.md.Convert(src, &out); err != nil {
		if errors.Is(err, errOutputLimit) {
			return asText(src, fmt.Sprintf("its HTML would be over %d bytes (the limit for its size)", lim.output)), nil
		}
		return Rendered{}, err
	}
	html := r.policy.SanitizeBytes(out.Bytes())
	if len(html) > lim.output {
		return asText(src, fmt.Sprintf("its HTML would be %d bytes (the limit for its size is %d)", len(html), lim.output)), nil
	}
	return Rendered{HTML: html}, nil
}

// Document renders a protocol document without its YAML front matter,
// which pages show as metadata instead.
func (r *Renderer) Document(doc []byte) (Rendered, error) {
	if _, body, ok := protocol.SplitFrontMatter(doc); ok {
		doc = body
	}
	return r.Markdown(doc)
}

// asText shows a document over the budget as escaped text.
func asText(src []byte, reason string) Rendered {
	var b bytes.Buffer
	b.Grow(len(src) + len(src)/8 + 32)
	b.WriteString("<pre><code>")
	template.HTMLEscape(&b, src)
	b.WriteString("</code></pre>")
	return Rendered{HTML: b.Bytes(), Lints: []protocol.Lint{{Code: LintRenderBudget,
		Message: "shown as plain text, because rendering it would cost too much: " + reason}}}
}

var errOutputLimit = errors.New("render: output limit reached")

// limitedBuffer fails a write that would take it past limit, which stops
// goldmark's renderer at its next flush.
type limitedBuffer struct {
	bytes.Buffer
	limit int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.limit {
		return 0, errOutputLimit
	}
	return b.Buffer.Write(p)
}
