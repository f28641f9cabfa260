package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The SDK's defaults (agora/utils.py extract_metadata).
const (
	SDKDefaultName        = "Unnamed protocol"
	SDKDefaultDescription = "No description provided"
)

// MaxSDKBlockBytes is the largest YAML block the SDK's reading is checked
// for: the YAML parser's memory grows with the nodes it holds, so a larger
// block (which no real front matter is) is left unchecked.
const MaxSDKBlockBytes = 64 << 10

// SDKReading is what the Agora Python SDK's extract_metadata makes of a
// document: the metadata it will use, or why it cannot read it.
type SDKReading struct {
	// Problem says in plain words why the SDK cannot read the document;
	// "" when it reads it.
	Problem string
	// Found reports whether the text holds the two "---" it looks for;
	// Offset is the byte offset of the first.
	Found  bool
	Offset int
	// Unchecked is set when the block is over MaxSDKBlockBytes: the
	// registry cannot say what the SDK makes of it.
	Unchecked bool
	// Name, Description and MultiroundValue are the values it reads
	// (Default set when the key is absent and the SDK's default applies).
	Name, Description, MultiroundValue SDKValue
	// Multiround is the value's Python truthiness: whether the SDK's
	// Sender sends "multiround": true.
	Multiround bool
}

// SDKValue is one value the SDK reads from the YAML block.
type SDKValue struct {
	Kind    string // "text", "number", "boolean", "null", "date", "list", "mapping", "set", "binary data"
	Text    string // a scalar's value: numbers in decimal, booleans true or false, the rest as written
	Default bool   // the key is absent
}

// Readable reports whether the SDK reads the document.
func (r SDKReading) Readable() bool { return r.Problem == "" && !r.Unchecked }

// sdkMaxDepth is the deepest nesting the SDK is said to read: PyYAML
// builds values recursively and runs out of Python stack at 493 levels
// (CPython 3.11), less the frames of the SDK's callers.
const sdkMaxDepth = 480

// ReadLikeSDK predicts extract_metadata on a document, as the SDK receives
// it: the UTF-8 text, a BOM included (requests and the data URI path both
// decode with "utf-8", not "utf-8-sig"). The SDK finds the first "---"
// anywhere in text.lower(), then the next one, and slices the original
// text at those offsets, in code points; it yaml.safe_loads the stripped
// slice, needs a mapping, and reads name, description and multiround.
// The YAML is parsed by yaml.v3 and its values read with YAML 1.1's rules
// (yaml11.go); PyYAML refuses a few texts yaml.v3 reads (some tabs, an
// anchor defined twice: TestReadLikeSDKMatchesPyYAML lists them).
func ReadLikeSDK(doc []byte) SDKReading {
	var r SDKReading
	block, line, offset, found := sdkBlock(doc)
	r.Found, r.Offset = found, offset
	if !found {
		r.Problem = "the text has no two '---' to take the YAML block from"
		return r
	}
	if len(block) > MaxSDKBlockBytes {
		r.Unchecked = true
		return r
	}
	root, problem := sdkParse(block, line)
	switch {
	case problem != "":
		r.Problem = "in the YAML between the first two '---', " + problem
		return r
	case root == nil:
		r.Problem = "the YAML block between the first two '---' is empty"
		return r
	case yaml11Tag(root) != "!!map":
		kind, _, _, _ := yaml11Value(root)
		r.Problem = "the YAML block between the first two '---' is " + a(kind) + ", not 'key: value' lines"
		return r
	}
	r.Name, _ = sdkValue(root, "name", SDKDefaultName)
	r.Description, _ = sdkValue(root, "description", SDKDefaultDescription)
	r.MultiroundValue, r.Multiround = sdkValue(root, "multiround", "false")
	if r.MultiroundValue.Default {
		r.MultiroundValue.Kind = "boolean"
	}
	return r
}

// sdkParse parses the block as one YAML document and checks that
// safe_load can build every value in it. It returns the root node (nil
// for an empty block) or the problem, with its line in the document
// (line is the document's line the block starts on).
func sdkParse(block []byte, line int) (*yaml.Node, string) {
	dec := yaml.NewDecoder(bytes.NewReader(block))
	var doc, next yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, ""
	} else if err != nil {
		return nil, yamlV3Problem(err, line)
	}
	if err := dec.Decode(&next); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlV3Problem(err, line) // text after a "..." line (only "---" starts a document)
	}
	// PyYAML allows tabs only in quotes, block scalars and comments, so
	// in a block without any, every tab is refused.
	if i := bytes.IndexByte(block, '\t'); i >= 0 && !bytes.ContainsAny(block, `'"#|>`) {
		return nil, fmt.Sprintf("line %d: a tab, which the SDK's YAML reader allows only in quotes, block scalars and comments: use spaces",
			line+bytes.Count(block[:i], []byte("\n")))
	}
	root := doc.Content[0]
	if n, problem := sdkBuild(root, 1); problem != "" {
		return nil, fmt.Sprintf("line %d: %s", line+n.Line-1, problem)
	}
	return root, ""
}

// yamlV3Problem is a YAML syntax error with its line counted in the
// document rather than in the block.
func yamlV3Problem(err error, line int) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ":"); ok {
			if i, err := strconv.Atoi(n); err == nil {
				msg = fmt.Sprintf("line %d:%s", line+i-1, after)
			}
		}
	}
	return clipRunes(cleanLine(msg), 200)
}

// sdkBuild walks the tree once, as safe_load builds it, and returns the
// first node it cannot build and why. Aliases are not followed (what they
// name is checked where it stands), so the walk is linear in the nodes,
// alias bombs included.
func sdkBuild(n *yaml.Node, depth int) (*yaml.Node, string) {
	if n.Kind == yaml.AliasNode {
		return nil, ""
	}
	if depth > sdkMaxDepth {
		return n, fmt.Sprintf("the values are nested more than %d levels deep, more than Python's stack allows", sdkMaxDepth)
	}
	if _, _, _, problem := yaml11Value(n); problem != "" {
		return n, problem
	}
	for i, child := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			// A merge key ("<<") and "=" are read as keys, not built.
			switch tag := yaml11Tag(child); {
			case resolveAlias(child).Kind != yaml.ScalarNode:
				return child, "a list or mapping is used as a key, which Python cannot do"
			case tag == "!!merge":
				for _, m := range sdkMergeSources(n.Content[i+1]) {
					if m.Kind != yaml.MappingNode {
						return child, "a merge key (<<) needs a mapping or a list of mappings"
					}
				}
				continue
			case tag == "!!value":
				continue
			}
		}
		if bad, problem := sdkBuild(child, depth+1); problem != "" {
			return bad, problem
		}
	}
	return nil, ""
}

// sdkValue is metadata.get(key, fallback), and whether Python counts it
// as true.
func sdkValue(root *yaml.Node, key, fallback string) (SDKValue, bool) {
	n := sdkLookup(root, key, map[*yaml.Node]bool{})
	if n == nil {
		return SDKValue{Kind: "text", Text: fallback, Default: true}, false
	}
	kind, text, truthy, _ := yaml11Value(n)
	return SDKValue{Kind: kind, Text: text}, truthy
}

// sdkLookup finds key in the dict a mapping node builds, merges included:
// the mapping's own entries win over merged ones, a later entry over an
// earlier one, and in a merged list the first mapping wins.
func sdkLookup(n *yaml.Node, key string, seen map[*yaml.Node]bool) *yaml.Node {
	if seen[n] {
		return nil
	}
	seen[n] = true
	for i := len(n.Content) - 2; i >= 0; i -= 2 {
		k := resolveAlias(n.Content[i])
		if k.Kind == yaml.ScalarNode && k.Value == key && yaml11Tag(k) == "!!str" {
			return n.Content[i+1]
		}
	}
	for i := len(n.Content) - 2; i >= 0; i -= 2 {
		if yaml11Tag(n.Content[i]) != "!!merge" {
			continue
		}
		for _, m := range sdkMergeSources(n.Content[i+1]) {
			if v := sdkLookup(m, key, seen); v != nil {
				return v
			}
		}
	}
	return nil
}

// sdkMergeSources are the nodes a merge key's value names: a mapping, or
// each item of a list.
func sdkMergeSources(value *yaml.Node) []*yaml.Node {
	value = resolveAlias(value)
	if value.Kind != yaml.SequenceNode {
		return []*yaml.Node{value}
	}
	out := make([]*yaml.Node, 0, len(value.Content))
	for _, item := range value.Content {
		out = append(out, resolveAlias(item))
	}
	return out
}

// sdkBlock is extract_substring(text, "---", "---", include_tags=False):
// the stripped text between the first "---" and the next, found in the
// lower-cased text and cut from the original at the same code point
// offsets. Lower-casing lengthens only U+0130 (İ becomes "i̇", two code
// points; CPython 3.11, every code point checked), so after one the cut
// lands later than the marker. No character lower-cases to '-', so the
// markers are the same in both texts.
//
// line is the document's line (1-based) the stripped block starts on.
func sdkBlock(doc []byte) (block []byte, line, offset int, found bool) {
	first := bytes.Index(doc, []byte("---"))
	if first < 0 {
		return nil, 0, 0, false
	}
	next := bytes.Index(doc[first+3:], []byte("---"))
	if next < 0 {
		return nil, 0, first, false
	}
	next += first + 3
	from := loweredOffset(doc[:first]) + 3
	to := loweredOffset(doc[:next])
	if from >= to {
		return nil, 0, first, true
	}
	start, end := codePointByteOffset(doc, from), codePointByteOffset(doc, to)
	block = bytes.TrimRightFunc(doc[start:end], pyIsSpace)
	trimmed := bytes.TrimLeftFunc(block, pyIsSpace)
	line = 1 + bytes.Count(doc[:start+len(block)-len(trimmed)], []byte("\n"))
	return trimmed, line, first, true
}

// loweredOffset is the code point length of strings.lower(prefix) in Python.
func loweredOffset(prefix []byte) int {
	return utf8.RuneCount(prefix) + bytes.Count(prefix, []byte("\u0130"))
}

// codePointByteOffset is the byte offset of code point i of doc, clamped to
// its end as Python's slicing clamps.
func codePointByteOffset(doc []byte, i int) int {
	for offset := range string(doc) {
		if i == 0 {
			return offset
		}
		i--
	}
	return len(doc)
}

// pyIsSpace is Python's str.isspace for one character, which str.strip()
// uses: Unicode white space plus the four ASCII separators 0x1c-0x1f.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}
