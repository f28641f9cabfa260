package protocol

import (
	"bytes"
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
// document: the metadata it will use, or the exception it will raise.
type SDKReading struct {
	// Exception is the Python exception class extract_metadata raises
	// ("AttributeError", "yaml.scanner.ScannerError", ...); "" when it
	// reads the document. Detail says why in a few words.
	Exception, Detail string
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
	Type    string // Python type: "str", "int", "NoneType", "list", ...
	Text    string // for a str its value, for another scalar its YAML text
	Default bool   // the key is absent
}

// Readable reports whether the SDK reads the document without raising.
func (r SDKReading) Readable() bool { return r.Exception == "" && !r.Unchecked }

// ReadLikeSDK reproduces extract_metadata on a document, as the SDK
// receives it: the UTF-8 text, a BOM included (requests and the data URI
// path both decode with "utf-8", not "utf-8-sig"). The SDK finds the first
// "---" anywhere in text.lower(), then the next one, and slices the
// original text at those offsets, in code points; it yaml.safe_loads the
// stripped slice, needs a dict, and reads name, description and multiround.
func ReadLikeSDK(doc []byte) SDKReading {
	var r SDKReading
	block, offset, found := sdkBlock(doc)
	r.Found, r.Offset = found, offset
	if !found {
		// extract_substring returns None; yaml.safe_load(None) reads from it.
		r.Exception, r.Detail = "AttributeError", "the text has no two '---' to take the YAML block from"
		return r
	}
	if len(block) > MaxSDKBlockBytes {
		r.Unchecked = true
		return r
	}
	root, err := pyLoad(block)
	switch {
	case err != nil:
		r.Exception, r.Detail = err.Class, "in the YAML between the first two '---': "+err.Detail
		return r
	case root == nil:
		r.Exception, r.Detail = "AttributeError", "the YAML block between the first two '---' is empty (None has no .get)"
		return r
	case pyTag(root) != "!!map":
		r.Exception, r.Detail = "AttributeError", "the YAML block between the first two '---' is a "+pyDescribe(root).Type+", not a mapping"
		return r
	}
	r.Name = sdkValue(root, "name", SDKDefaultName)
	r.Description = sdkValue(root, "description", SDKDefaultDescription)
	r.MultiroundValue = sdkValue(root, "multiround", "")
	if r.MultiroundValue.Default {
		r.MultiroundValue = SDKValue{Type: "bool", Text: "False", Default: true}
	} else {
		r.Multiround = pyDescribe(pyLookup(root, "multiround", map[*yaml.Node]bool{})).Truthy
	}
	return r
}

// sdkValue is metadata.get(key, fallback).
func sdkValue(root *yaml.Node, key, fallback string) SDKValue {
	n := pyLookup(root, key, map[*yaml.Node]bool{})
	if n == nil {
		return SDKValue{Type: "str", Text: fallback, Default: true}
	}
	o := pyDescribe(n)
	return SDKValue{Type: o.Type, Text: o.Text}
}

// sdkBlock is extract_substring(text, "---", "---", include_tags=False):
// the stripped text between the first "---" and the next, found in the
// lower-cased text and cut from the original at the same code point
// offsets. Lower-casing lengthens only U+0130 (İ becomes "i̇", two code
// points; CPython 3.11, every code point checked), so after one the cut
// lands later than the marker. No character lower-cases to '-', so the
// markers are the same in both texts.
func sdkBlock(doc []byte) (block []byte, offset int, found bool) {
	first := bytes.Index(doc, []byte("---"))
	if first < 0 {
		return nil, 0, false
	}
	next := bytes.Index(doc[first+3:], []byte("---"))
	if next < 0 {
		return nil, first, false
	}
	next += first + 3
	from := loweredOffset(doc[:first]) + 3
	to := loweredOffset(doc[:next])
	if from >= to {
		return nil, first, true
	}
	start, end := codePointByteOffset(doc, from), codePointByteOffset(doc, to)
	return bytes.TrimFunc(doc[start:end], pyIsSpace), first, true
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
