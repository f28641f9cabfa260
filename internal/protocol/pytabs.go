package protocol

import (
	"bytes"
	"regexp"
)

// pyDirectiveError is PyYAML's error for a text that opens with a
// directive ("%YAML 1.1"): a directive needs a "---" after it, which the
// SDK's block never holds, so the parser raises; a malformed one fails in
// the scanner first. libyaml reports these differently.
func pyDirectiveError(text []byte) *pyError {
	if len(text) == 0 || text[0] != '%' {
		return nil
	}
	line, _, _ := bytes.Cut(text, []byte("\n"))
	if pyWellFormedDirective.Match(bytes.TrimRight(line, " \r")) {
		return &pyError{"yaml.parser.ParserError", "a %directive without the '---' that must follow it"}
	}
	return &pyError{"yaml.scanner.ScannerError", "a malformed %directive"}
}

var pyWellFormedDirective = regexp.MustCompile(`^%(?:YAML[ \t]+[0-9]+\.[0-9]+|TAG[ \t]+!(?:[0-9A-Za-z-]*!)?[ \t]+\S+|[0-9A-Za-z-]+(?:[ \t].*)?)(?:[ \t]+#.*)?$`)

// pyTabOutsideScalars reports whether text has a tab where PyYAML's scanner
// looks for the next token: anywhere but inside a quoted scalar, a block
// scalar's content or a comment (libyaml accepts tabs as separators).
// It is a line scanner, not a YAML scanner: enough for the places tabs take
// in front matter.
func pyTabOutsideScalars(text []byte) bool {
	var quote byte    // the open quote, 0 outside one
	blockIndent := -1 // the indentation of the line that opened a block scalar, -1 outside one
	for _, line := range bytes.Split(text, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		if blockIndent >= 0 {
			if len(bytes.Trim(line, " \t")) == 0 || indent > blockIndent {
				continue // block scalar content: tabs are text
			}
			blockIndent = -1
		}
		lastToken := -1 // the offset of the last character outside quotes and comments
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case quote == '\'' && c == '\'':
				if i+1 < len(line) && line[i+1] == '\'' {
					i++
				} else {
					quote = 0
				}
			case quote == '"' && c == '\\':
				i++
			case quote == '"' && c == '"':
				quote = 0
			case quote != 0:
			case c == '\t':
				return true
			case c == '#' && (i == 0 || line[i-1] == ' '):
				i = len(line)
			case (c == '\'' || c == '"') && (i == 0 || bytes.IndexByte([]byte(" [{,:-?"), line[i-1]) >= 0):
				quote = c
			default:
				if c != ' ' {
					lastToken = i
				}
			}
		}
		if quote == 0 && lastToken >= 0 && pyBlockIndicator.Match(line[:lastToken+1]) {
			blockIndent = indent
		}
	}
	return false
}

// pyBlockIndicator matches a line that ends in a block scalar indicator
// ("|", ">-", "|2+" ...) after a blank.
var pyBlockIndicator = regexp.MustCompile(`(?:^|[ ])[|>][0-9+-]*$`)
