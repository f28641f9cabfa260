package render

import (
	"bytes"
	"fmt"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/agora-registry/registry/internal/protocol"
)

// The rendering budget. goldmark's cost grows faster than its input for a
// few constructs; each limit caps one of them and is checked before any
// inline parsing or rendering, so a document over one is shown as text at
// a cost linear in its size (docs/SECURITY.md, "Rendering"; measure with
// BenchmarkCostlyMarkdown).
const (
	// MaxNesting caps the blockquotes and lists one line opens or
	// continues: opening them costs the square of their depth.
	MaxNesting = protocol.MaxMarkdownNesting
	// Table cells, as goldmark makes them (every row padded to the
	// header's width): a base plus one cell per two bytes of document.
	tableCellsBase    = 4096
	tableCellsPerByte = 0.5
	// Inline rescanning: each ']', '<' or backtick run may make goldmark
	// scan to the end of its paragraph (link labels, titles, raw HTML,
	// code spans), so the sum of those distances is capped.
	inlineScanBase    = 1 << 20
	inlineScanPerByte = 64
	// Blocks other than table cells (which have their own limit): goldmark
	// spends microseconds on each list item, heading or quote however
	// short, so a document of empty blocks costs far more than its size.
	blocksBase    = 4096
	blocksPerByte = 0.25
	// The HTML written, before and after sanitising.
	outputBase    = 64 << 10
	outputPerByte = 8
)

// limits are the budget for one document body.
type limits struct {
	cells, blocks, inlineScan, output int
}

func limitsFor(size int) limits {
	return limits{
		cells:      tableCellsBase + int(tableCellsPerByte*float64(size)),
		blocks:     blocksBase + int(blocksPerByte*float64(size)),
		inlineScan: inlineScanBase + inlineScanPerByte*size,
		output:     outputBase + outputPerByte*size,
	}
}

// overBudget says why a body cannot be rendered within its budget, or ""
// when it can. It parses the block structure only (no inline parsers, no
// link reference definitions: both can only make the estimate larger).
func overBudget(src []byte, lim limits) string {
	if line, depth := protocol.DeepestMarkdownLine(src); depth > MaxNesting {
		return fmt.Sprintf("line %d nests %d blockquotes or lists (the limit is %d)", line, depth, MaxNesting)
	}
	st := &budgetState{limits: lim}
	pc := parser.NewContext()
	pc.Set(budgetKey, st)
	doc := structureParser.Parse(text.NewReader(src), parser.WithContext(pc))
	if st.over != "" {
		return st.over
	}
	var blocks, scan, escapedCells, escapedPipes int
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		if n.Kind() != extast.KindTableCell {
			blocks++
		}
		if n.IsRaw() {
			return ast.WalkContinue, nil
		}
		lines := n.Lines()
		scan += inlineScanCost(lines, src)
		if n.Kind() == extast.KindTableCell {
			// goldmark matches every escaped pipe in a cell holding code
			// against every other such cell (extension/table.go).
			if p := escapedPipesWithCode(lines, src); p > 0 {
				escapedCells++
				escapedPipes += p
			}
		}
		return ast.WalkContinue, nil
	})
	scan += escapedCells * escapedPipes
	if blocks > lim.blocks {
		return fmt.Sprintf("it has %d blocks (paragraphs, list items, headings, quotes; the limit for its size is %d)", blocks, lim.blocks)
	}
	if scan > lim.inlineScan {
		return fmt.Sprintf("its links, raw HTML and code spans need %d bytes of rescanning (the limit for its size is %d)", scan, lim.inlineScan)
	}
	return ""
}

// inlineScanCost sums, over the triggers in a block's text, the bytes from
// each to the end of the block: what goldmark may rescan for each.
func inlineScanCost(lines *text.Segments, src []byte) int {
	total := 0
	for i := range lines.Len() {
		seg := lines.At(i)
		total += seg.Len()
	}
	cost, offset := 0, 0
	for i := range lines.Len() {
		at := lines.At(i)
		seg := at.Value(src)
		for j, c := range seg {
			if c == ']' || c == '<' || (c == '`' && (j == 0 || seg[j-1] != '`')) {
				cost += total - offset - j
			}
		}
		offset += len(seg)
	}
	return cost
}

// escapedPipesWithCode counts the "\|" in a table cell that holds a
// backtick (the cells goldmark remembers for code span handling).
func escapedPipesWithCode(lines *text.Segments, src []byte) int {
	pipes, code := 0, false
	for i := range lines.Len() {
		at := lines.At(i)
		seg := at.Value(src)
		pipes += bytes.Count(seg, []byte(`\|`))
		code = code || bytes.IndexByte(seg, '`') >= 0
	}
	if !code {
		return 0
	}
	return pipes
}

// structureParser builds the block structure goldmark's renderer would see
// (tables included), without inline parsing.
var structureParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithParagraphTransformers(
		// The guard runs first (lowest value): a table over the budget is emptied before
		// goldmark's transformer could pad it into millions of cells.
		util.Prioritized(tableCellGuard{}, 0),
		util.Prioritized(extension.NewTableParagraphTransformer(), 200),
	),
)

var budgetKey = parser.NewContextKey()

type budgetState struct {
	limits
	cells int
	over  string
}

// tableCellGuard counts the cells a paragraph would become as a table,
// for every line that could be its delimiter row (the widest guess wins,
// so the count is never below goldmark's).
type tableCellGuard struct{}

func (tableCellGuard) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	st := pc.Get(budgetKey).(*budgetState)
	lines := node.Lines()
	if st.over == "" {
		most := 0
		for i := 1; i < lines.Len(); i++ {
			line := lines.At(i)
			if cols := delimiterColumns(line.Value(reader.Source())); cols*(lines.Len()-i) > most {
				most = cols * (lines.Len() - i)
			}
		}
		if st.cells += most; st.cells > st.limits.cells {
			st.over = fmt.Sprintf("its tables have %d cells once padded to their header's width (the limit for its size is %d)", st.cells, st.limits.cells)
		}
	}
	if st.over != "" {
		lines.SetSliced(0, 0) // nothing more is built: the document is shown as text
	}
}

// delimiterColumns is the number of columns of a table delimiter row
// ("|:--|--:|"), counted generously (each run of '-'), or 0 when the line
// cannot be one.
func delimiterColumns(line []byte) int {
	cols := 0
	for i, c := range line {
		switch c {
		case '-':
			if i == 0 || line[i-1] != '-' {
				cols++
			}
		case '|', ':', ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			return 0
		}
	}
	return cols
}
