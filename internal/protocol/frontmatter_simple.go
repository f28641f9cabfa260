package protocol

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Most front matter is a few "key: value" lines whose values are one-line
// words or one-line "[a, b]" lists. The YAML parser costs more than
// hashing the whole document for those (it builds a token queue, an event
// stream and a node tree, and decodes by reflection), so readSimpleFrontMatter
// reads that shape directly and leaves everything else to the parser.
//
// It makes the very nodes the parser would (kind, style, tag, value,
// content; FuzzSimpleFrontMatter holds the two paths to each other), so
// which path read a document never shows in its metadata or lints. Only
// Line and Column are left zero: nothing reads them.

// maxSimpleKeys bounds the keys the simple reader tracks for duplicates.
const maxSimpleKeys = 32

// maxSimpleKeyLen keeps keys far below YAML's 1024-character limit on
// simple keys.
const maxSimpleKeyLen = 64

// readSimpleFrontMatter reads block if every line is empty or "key: value"
// at the left margin, with key a letter then letters, digits, '_' or '-',
// every key distinct, and value empty, a plain scalar on one line, or a
// one-line flow sequence of plain scalars. It reports false for anything
// else (quotes, comments, anchors, aliases, tags, block scalars and lists,
// indentation, tabs, carriage returns, control or YAML line-break
// characters), and the caller parses the block as YAML.
func readSimpleFrontMatter(block []byte) (fm frontMatter, ok bool) {
	var seen [maxSimpleKeys][]byte
	keys := 0
	for rest := block; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if len(line) == 0 {
			continue
		}
		key, value, ok := cutSimpleKey(line)
		if !ok || keys == maxSimpleKeys {
			return frontMatter{}, false
		}
		for _, k := range seen[:keys] {
			if bytes.Equal(k, key) {
				return frontMatter{}, false // a known field set twice is a YAML error
			}
		}
		seen[keys] = key
		keys++
		node := fm.field(key)
		if node == nil {
			node = &yaml.Node{} // unknown keys are read only to check them
		}
		if !readSimpleValue(value, node) {
			return frontMatter{}, false
		}
	}
	return fm, true
}

// field is the node of a known key, nil for any other.
func (fm *frontMatter) field(key []byte) *yaml.Node {
	switch string(key) {
	case "name":
		return &fm.Name
	case "title":
		return &fm.Title
	case "description":
		return &fm.Description
	case "multiround":
		return &fm.Multiround
	case "tags":
		return &fm.Tags
	case "version":
		return &fm.Version
	case "supersedes":
		return &fm.Supersedes
	case "authors":
		return &fm.Authors
	case "license":
		return &fm.License
	}
	return nil
}

// cutSimpleKey splits "key: value" (or "key:") into the key and the value
// with its surrounding spaces removed.
func cutSimpleKey(line []byte) (key, value []byte, ok bool) {
	n := 0
	for n < len(line) && n <= maxSimpleKeyLen && isSimpleKeyByte(line[n], n == 0) {
		n++
	}
	if n == 0 || n > maxSimpleKeyLen || n == len(line) || line[n] != ':' {
		return nil, nil, false
	}
	value = line[n+1:]
	if len(value) > 0 && value[0] != ' ' {
		return nil, nil, false // "key:value" is one plain scalar, not a pair
	}
	return line[:n], bytes.Trim(value, " "), true
}

func isSimpleKeyByte(c byte, first bool) bool {
	letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	if first {
		return letter
	}
	return letter || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// readSimpleValue fills node from a trimmed one-line value.
func readSimpleValue(value []byte, node *yaml.Node) bool {
	if len(value) > 0 && value[0] == '[' {
		return readSimpleFlowSequence(value, node)
	}
	if len(value) > 0 && !isPlainScalar(value, false) {
		return false
	}
	setScalar(node, string(value))
	return true
}

// readSimpleFlowSequence reads "[a, b c, d]" on one line.
func readSimpleFlowSequence(value []byte, node *yaml.Node) bool {
	if value[len(value)-1] != ']' {
		return false
	}
	inner := bytes.Trim(value[1:len(value)-1], " ")
	*node = yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq"}
	if len(inner) == 0 {
		return true
	}
	count := bytes.Count(inner, []byte(",")) + 1
	items := make([]yaml.Node, count) // one allocation for all the items
	node.Content = make([]*yaml.Node, count)
	for i := range items {
		item, after, _ := bytes.Cut(inner, []byte(","))
		item = bytes.Trim(item, " ")
		// An empty item ("[a,,b]", or the trailing "[a, b,]" YAML allows)
		// is left to the parser.
		if len(item) == 0 || !isPlainScalar(item, true) {
			return false
		}
		setScalar(&items[i], string(item))
		node.Content[i] = &items[i]
		inner = after
	}
	return true
}

// setScalar makes node the plain scalar value, tagged as the parser tags
// it (ShortTag resolves an untagged plain scalar the same way).
func setScalar(node *yaml.Node, value string) {
	*node = yaml.Node{Kind: yaml.ScalarNode, Value: value}
	if value == "" || mayResolve(value[0]) {
		node.Tag = node.ShortTag() // of the untagged node: resolves value
	} else {
		node.Tag = "!!str"
	}
}

// mayResolve reports whether YAML's resolver might read a plain scalar
// starting with c as other than a string: a sign, digit or '.' (numbers,
// .inf, .nan), '~' and the first letters of true, false, null (and of
// yes/no/on/off, which it also looks up), '<' ("<<"). The resolver itself
// decides for these; any other plain scalar is "!!str" without a lookup.
func mayResolve(c byte) bool {
	return strings.IndexByte("+-0123456789.~<yYnNtTfFoO", c) >= 0
}

// isPlainScalar reports whether s (trimmed, non-empty) reads as one plain
// scalar of exactly these characters: it starts with no YAML indicator,
// holds no comment (" #"), no ": " or final ':', no tab, control or
// line-break character, and in a flow list (inFlow) none of ",[]{}?:#".
func isPlainScalar(s []byte, inFlow bool) bool {
	switch s[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s[i:])
			if !isSimpleYAMLRune(r, size) {
				return false
			}
			i += size
			continue
		}
		switch {
		case c < 0x20 || c == 0x7f:
			return false
		case c == ':' && (inFlow || i+1 == len(s) || s[i+1] == ' '):
			return false
		case c == '#' && (inFlow || s[i-1] == ' '):
			return false
		case inFlow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}' || c == '?'):
			return false
		}
		i++
	}
	return true
}

// isSimpleYAMLRune reports whether a non-ASCII rune is plain text to YAML:
// printable (not C1 controls, surrogates, U+FFFE/U+FFFF), not a line
// break (NEL, U+2028, U+2029), not a byte order mark, and valid UTF-8.
func isSimpleYAMLRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return false
	case r == 0x2028 || r == 0x2029 || r == 0xFEFF:
		return false
	}
	return 0xA0 <= r && r <= 0xD7FF || 0xE000 <= r && r <= 0xFFFD || r >= 0x10000
}
