package protocol

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// blockParser reads a document's block structure only: no inline parsers
// and no paragraph transformers (link reference definitions), as neither
// changes which blocks are headings or prose.
var blockParser = parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))

// markdownFallback finds, for a document without usable front matter, the
// text of the first level-one heading and of the first top-level paragraph
// of prose, from goldmark's CommonMark block tree. Code, lists, quotes,
// HTML and thematic breaks are not prose, nor is a GFM table (a paragraph
// whose first line starts with '|'). Lines from the first one nested deeper
// than MaxMarkdownNesting are not parsed, so the cost stays linear.
func markdownFallback(body []byte) (heading, paragraph string) {
	if line, depth := DeepestMarkdownLine(body); depth > MaxMarkdownNesting {
		body = body[:lineStart(body, line)]
	}
	doc := blockParser.Parse(text.NewReader(body))
	for n := doc.FirstChild(); n != nil && (heading == "" || paragraph == ""); n = n.NextSibling() {
		switch b := n.(type) {
		case *ast.Heading:
			if heading == "" && b.Level == 1 {
				heading = blockText(b, body)
			}
		case *ast.Paragraph:
			if t := blockText(b, body); paragraph == "" && !strings.HasPrefix(t, "|") {
				paragraph = t
			}
		}
	}
	return heading, paragraph
}

// blockText is a block's source lines, trimmed and joined by spaces.
func blockText(n ast.Node, src []byte) string {
	lines := n.Lines()
	parts := make([]string, 0, lines.Len())
	for i := range lines.Len() {
		seg := lines.At(i)
		if l := util.TrimRightSpace(util.TrimLeftSpace(seg.Value(src))); len(l) > 0 {
			parts = append(parts, string(l))
		}
	}
	return strings.Join(parts, " ")
}

// lineStart is the offset of line n (1-based) in src.
func lineStart(src []byte, n int) int {
	off := 0
	for ; n > 1; n-- {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return off
}
