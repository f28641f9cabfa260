package render

import (
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Heading IDs carry this prefix, so a document's headings never take an id
// the page itself uses (a heading "hash-hex" would otherwise capture the
// page's copy button).
const headingIDPrefix = "doc-"

// maxSlug caps the characters of a heading's id taken from its text.
const maxSlug = 64

// headings moves every heading of a document one level down (# becomes
// <h2>, ###### stays <h6>) because the page's own <h1> is the document's
// title, and gives each an id to link to: "doc-" and the heading's text
// in lower-case ASCII letters, digits and '-', numbered when repeated;
// an empty heading gets none.
// The work is one walk of the tree and one map entry per heading.
type headings struct{}

func (headings) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	used := map[string]bool{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		h.Level = min(h.Level+1, 6)
		// An empty heading has nothing to link to (and the block budget
		// admits many of them: an id each would outgrow the output budget).
		if t := plainText(h, src); strings.TrimSpace(t) != "" {
			h.SetAttributeString("id", []byte(uniqueID(used, headingIDPrefix+slug(t))))
		}
		return ast.WalkSkipChildren, nil
	})
}

// uniqueID returns id, or id-2, id-3 … when taken. A later heading whose
// own text is "x-2" then gets "x-2-2": never a duplicate.
func uniqueID(used map[string]bool, id string) string {
	out := id
	for n := 2; used[out]; n++ {
		out = id + "-" + strconv.Itoa(n)
	}
	used[out] = true
	return out
}

// plainText is a heading's text without markup, at most a few times
// maxSlug bytes (the rest never reaches the id).
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || b.Len() > 4*maxSlug {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// slug keeps ASCII letters and digits, lower-cased, and turns every run of
// anything else into one '-'; a heading with none is a "section".
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if b.Len() >= maxSlug {
			break
		}
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
		case 'A' <= r && r <= 'Z':
			r += 'a' - 'A'
		default:
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "section"
	}
	return b.String()
}
