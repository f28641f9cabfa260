// Package render turns protocol documents (Markdown) into HTML that is safe
// to embed in a page: goldmark renders GitHub-flavoured Markdown with raw
// HTML switched off, and bluemonday then removes anything that is not plain
// document markup. Two layers, because either alone has had bypasses.
package render

import (
	"bytes"
	"regexp"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

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

// Markdown renders Markdown to sanitised HTML.
func (r *Renderer) Markdown(src []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := r.md.Convert(src, &buf); err != nil {
		return nil, err
	}
	return r.policy.SanitizeBytes(buf.Bytes()), nil
}

// Document renders a protocol document without its YAML front matter,
// which pages show as metadata instead.
func (r *Renderer) Document(doc []byte) ([]byte, error) {
	if _, body, ok := protocol.SplitFrontMatter(doc); ok {
		doc = body
	}
	return r.Markdown(doc)
}
