package protocol

import "strings"

// markdownFallback finds, for a document without usable front matter, the
// first level-one heading (ATX "# Title" or setext "Title" over "===") and
// the first paragraph of prose. Code (fenced or indented), lists, quotes,
// tables, HTML and thematic breaks are not prose. It is a small line
// scanner, not a Markdown parser: enough for the shapes titles and
// summaries take in practice.
func markdownFallback(body []byte) (heading, paragraph string) {
	var para []string // lines of the paragraph being read
	fence := ""       // the open code fence ("```", "~~~~", ...), "" outside one
	endParagraph := func() {
		if paragraph == "" && len(para) > 0 {
			paragraph = strings.Join(para, " ")
		}
		para = nil
	}
	for rest := string(body); rest != "" && (heading == "" || paragraph == ""); {
		var raw string
		raw, rest, _ = strings.Cut(rest, "\n")
		line := strings.TrimSpace(raw)
		if fence != "" {
			if strings.HasPrefix(line, fence) && strings.Trim(line, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		switch {
		case line == "":
			endParagraph()
		case openingFence(line) != "":
			endParagraph()
			fence = openingFence(line)
		case len(para) > 0 && isSetextUnderline(line, '='):
			if heading == "" {
				heading = strings.Join(para, " ")
			}
			para = nil
		case len(para) > 0 && isSetextUnderline(line, '-'):
			para = nil // a level-two heading: neither title nor description
		case len(para) == 0 && (strings.HasPrefix(raw, "    ") || strings.HasPrefix(raw, "\t")):
			// indented code (it cannot interrupt a paragraph)
		case atxLevel(line) > 0:
			endParagraph()
			if heading == "" && atxLevel(line) == 1 {
				heading = atxText(line)
			}
		case isBlockMarker(line):
			endParagraph()
		default:
			para = append(para, line)
		}
	}
	endParagraph()
	return heading, paragraph
}

// openingFence returns the fence a line opens: three or more backticks or
// tildes ("" if none). After a backtick fence no backtick may follow:
// "```x```" is inline code.
func openingFence(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 && !(c == "`" && strings.Contains(line[n:], c)) {
			return line[:n]
		}
	}
	return ""
}

// isSetextUnderline reports whether a (trimmed) line is a run of c.
func isSetextUnderline(line string, c byte) bool {
	return strings.Trim(line, string(c)) == ""
}

// atxLevel is the level of an ATX heading line ("## Title" is 2), 0 if the
// line is not one: one to six '#' then a blank or the end of the line.
func atxLevel(line string) int {
	n := len(line) - len(strings.TrimLeft(line, "#"))
	if n < 1 || n > 6 || (n < len(line) && line[n] != ' ' && line[n] != '\t') {
		return 0
	}
	return n
}

// atxText is the text of an ATX heading line, without the opening '#'s and
// an optional closing run of '#' (which must follow a blank: "# C#" is
// "C#").
func atxText(line string) string {
	text := strings.TrimSpace(strings.TrimLeft(line, "#"))
	closing := strings.TrimRight(text, "#")
	if closing == "" {
		return ""
	}
	if last := closing[len(closing)-1]; last == ' ' || last == '\t' {
		return strings.TrimSpace(closing)
	}
	return text
}

// isBlockMarker reports whether a line starts a Markdown block that is not
// prose: a list item, quote, table row, HTML block or thematic break.
func isBlockMarker(line string) bool {
	switch line {
	case "-", "*", "+":
		return true // an empty list item
	}
	for _, p := range []string{"- ", "* ", "+ ", "-\t", "*\t", "+\t", ">", "|", "<"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return isThematicBreak(line) || isOrderedListItem(line)
}

// isThematicBreak reports whether line is three or more of one of '-', '*',
// '_', optionally separated by blanks.
func isThematicBreak(line string) bool {
	marks := strings.NewReplacer(" ", "", "\t", "").Replace(line)
	return len(marks) >= 3 && strings.Trim(marks, marks[:1]) == "" && strings.Contains("-*_", marks[:1])
}

// isOrderedListItem reports whether line starts "1." or "1)" (up to nine
// digits) followed by a blank or the end of the line.
func isOrderedListItem(line string) bool {
	digits := len(line) - len(strings.TrimLeft(line, "0123456789"))
	if digits < 1 || digits > 9 || digits == len(line) || (line[digits] != '.' && line[digits] != ')') {
		return false
	}
	after := line[digits+1:]
	return after == "" || after[0] == ' ' || after[0] == '\t'
}
