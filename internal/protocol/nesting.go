package protocol

import "bytes"

// MaxMarkdownNesting caps the blockquotes and lists one line of a document
// may open or continue before goldmark parses it (the renderer and the
// title fallback): opening them costs the square of their depth.
const MaxMarkdownNesting = 32

// DeepestMarkdownLine returns the line (1-based) with the most container markers
// and its depth, an upper bound on the nesting goldmark would build there.
func DeepestMarkdownLine(src []byte) (line, depth int) {
	for n, rest := 1, src; len(rest) > 0; n++ {
		l, after, _ := bytes.Cut(rest, []byte("\n"))
		if d := MarkdownLineNesting(bytes.TrimSuffix(l, []byte("\r"))); d > depth {
			line, depth = n, d
		}
		rest = after
	}
	return line, depth
}

// MarkdownLineNesting bounds the containers a line opens or continues: its leading
// '>' and list markers, plus one level per two columns of indentation (a
// list item continues only on lines indented past its marker). A line
// without markers opens nothing, so it never deepens the nesting.
func MarkdownLineNesting(line []byte) int {
	markers, columns := 0, 0
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ':
			columns++
			i++
			continue
		case c == '\t':
			columns += 4
			i++
			continue
		case c == '>':
			i++
		case (c == '-' || c == '*' || c == '+') && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t'):
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j == len(line) || (line[j] != '.' && line[j] != ')') || (j+1 < len(line) && line[j+1] != ' ' && line[j+1] != '\t') {
				return nesting(markers, columns)
			}
			i = j + 1
		default:
			return nesting(markers, columns)
		}
		markers++
		if i < len(line) && line[i] == ' ' { // the space that belongs to the marker
			i++
		}
	}
	return nesting(markers, columns)
}

func nesting(markers, columns int) int {
	if markers == 0 {
		return 0
	}
	return markers + columns/2
}
