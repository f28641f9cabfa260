package protocol

import "bytes"

// SplitFrontMatter finds a YAML block that opens on the first line with
// "---" and closes with a line "---" (or "..."). It returns the block, the
// rest of the document, and whether a block was found. A block that is
// never closed is not front matter: the whole document is the body.
func SplitFrontMatter(doc []byte) (block, body []byte, ok bool) {
	first, rest, more := cutLine(doc)
	if !more || !isMarkerLine(first, "---") {
		return nil, doc, false
	}
	for remaining := rest; ; {
		line, after, more := cutLine(remaining)
		if isMarkerLine(line, "---") || isMarkerLine(line, "...") {
			return rest[:len(rest)-len(remaining)], after, true
		}
		if !more {
			return nil, doc, false
		}
		remaining = after
	}
}

// isMarkerLine reports whether line is marker, ignoring trailing blanks.
func isMarkerLine(line []byte, marker string) bool {
	return string(bytes.TrimRight(line, " \t")) == marker
}

// cutLine splits at the first line break (\n or \r\n), without the break.
func cutLine(b []byte) (line, rest []byte, found bool) {
	line, rest, found = bytes.Cut(b, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), rest, found
}
