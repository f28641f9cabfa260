package protocol

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// pyYAML reproduces what Python's yaml.safe_load (PyYAML 6, YAML 1.1) makes
// of a text, as far as the Agora SDK's extract_metadata can tell: whether it
// raises (and which exception class), whether the result is a mapping, and
// the Python type, text and truthiness of a value. yaml.v3 (a port of
// libyaml, PyYAML's C sibling) scans and parses; PyYAML's resolver and
// SafeConstructor rules are applied here to the nodes it returns.
//
// Known differences, kept because they need a second YAML scanner to fix:
//   - when a text has two faults, PyYAML names the first one in the stream
//     and we may name the other (yaml.v3 parses everything before we check
//     anchors, tags and values);
//   - yaml.v3 cannot tell a scanner error from a parser error by type; the
//     class is chosen from its message (pyYAMLParserProblems);
//   - tabs: PyYAML allows them only in quotes, block scalars and comments,
//     which a line scanner checks (pyTabOutsideScalars); libyaml also
//     refuses one that starts a block scalar's content line;
//   - explicit !!int, !!float and !!binary values that PyYAML's own pattern
//     does not match are judged by Go's parsers, not Python's int(), float()
//     and base64.decodebytes (Unicode digits, for one);
//   - Python's recursion limit: the depth at which PyYAML raises
//     RecursionError depends on the caller's stack (nodes 493 deep, at the
//     top of a CPython 3.11 program); we say it from pyMaxDepth.
//
// TestPyYAMLKnownDifferences holds one example of each.

// pyError is an exception PyYAML (or the SDK reading its result) raises.
type pyError struct {
	Class  string // the Python class, module-qualified: "yaml.scanner.ScannerError"
	Detail string // a short English reason for a lint
}

// pyMaxDepth is the deepest node we say PyYAML composes without
// RecursionError, with a margin for the frames of the SDK's own callers
// (the measured depth is in docs/SECURITY.md, 14).
const pyMaxDepth = 480

// pyObject is a constructed Python value, described.
type pyObject struct {
	Type   string // Python type: "str", "int", "NoneType", "datetime.date", ...
	Text   string // the scalar's text (for a str, its value); "" for collections
	Truthy bool   // bool(value)
}

// pyLoad runs yaml.safe_load on text. It returns the root node (nil when
// safe_load returns None: an empty or comment-only text) or the exception.
func pyLoad(text []byte) (*yaml.Node, *pyError) {
	if i := firstNonPrintable(text); i >= 0 {
		return nil, &pyError{"yaml.reader.ReaderError", "a character YAML does not allow (a control character)"}
	}
	if e := pyDirectiveError(text); e != nil {
		return nil, e
	}
	if bytes.IndexByte(text, '\t') >= 0 && pyTabOutsideScalars(text) {
		return nil, &pyError{"yaml.scanner.ScannerError", "a tab outside quotes, block scalars and comments (PyYAML allows none)"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, yamlV3Error(err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, &pyError{"yaml.composer.ComposerError", "more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlV3Error(err)
	}
	root := doc.Content[0]
	var c pyChecker
	if e := c.check(root, 1); e != nil {
		return nil, e
	}
	return root, nil
}

// firstNonPrintable is the byte offset of the first character PyYAML's
// Reader refuses, -1 if none (its NON_PRINTABLE class).
func firstNonPrintable(text []byte) int {
	for i, r := range string(text) {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0x7e) || r == 0x85:
		case (r >= 0xa0 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd) || r >= 0x10000:
		default:
			return i
		}
	}
	return -1
}

// pyYAMLParserProblems are the libyaml problems its parser (not its
// scanner) reports; PyYAML raises ParserError for the same faults.
var pyYAMLParserProblems = []string{
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"did not find expected '-' indicator", "did not find expected <document start>",
	"did not find expected key", "did not find expected node content",
	"found duplicate %YAML directive", "found duplicate %TAG directive",
	"found incompatible YAML document", "found undefined tag handle",
}

// yamlV3Error maps a yaml.v3 parse error to PyYAML's exception class.
func yamlV3Error(err error) *pyError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	problem := msg
	if strings.HasPrefix(problem, "line ") {
		if _, after, ok := strings.Cut(problem, ": "); ok {
			problem = after
		}
	}
	detail := clipRunes(cleanLine(msg), 200)
	switch {
	case strings.HasPrefix(problem, "unknown anchor"):
		return &pyError{"yaml.composer.ComposerError", detail}
	case strings.HasPrefix(problem, "exceeded max depth"):
		return &pyError{"RecursionError", "nesting deeper than Python's recursion limit"}
	case strings.Contains(problem, "control characters") || strings.Contains(problem, "UTF-8"):
		return &pyError{"yaml.reader.ReaderError", detail}
	}
	for _, p := range pyYAMLParserProblems {
		if strings.HasPrefix(problem, p) {
			return &pyError{"yaml.parser.ParserError", detail}
		}
	}
	return &pyError{"yaml.scanner.ScannerError", detail}
}

// pyChecker walks a composed document once, as PyYAML's composer and
// SafeConstructor would, and reports the first exception they raise.
// Aliases are not followed (their targets are checked where they stand),
// so the walk is linear in the number of nodes, alias bombs included.
type pyChecker struct {
	anchors map[string]bool
}

func (c *pyChecker) check(n *yaml.Node, depth int) *pyError {
	if n.Kind == yaml.AliasNode {
		return nil
	}
	if depth > pyMaxDepth {
		return &pyError{"RecursionError", "nesting deeper than Python's recursion limit"}
	}
	if n.Anchor != "" {
		if c.anchors[n.Anchor] {
			return &pyError{"yaml.composer.ComposerError", "the anchor &" + n.Anchor + " is defined twice"}
		}
		if c.anchors == nil {
			c.anchors = map[string]bool{}
		}
		c.anchors[n.Anchor] = true
	}
	tag := pyTag(n)
	if e := pyConstructible(n, tag); e != nil {
		return e
	}
	for i, child := range n.Content {
		// flatten_mapping consumes a merge key and makes "=" a str key:
		// neither is constructed with its own tag.
		key := n.Kind == yaml.MappingNode && i%2 == 0
		if t := pyTag(child); !(key && (t == "!!merge" || t == "!!value")) {
			if e := c.check(child, depth+1); e != nil {
				return e
			}
		}
		if n.Kind == yaml.MappingNode && i%2 == 1 {
			if e := pyMappingEntry(n.Content[i-1], child); e != nil {
				return e
			}
		}
	}
	return nil
}

// pyMappingEntry applies SafeConstructor.construct_mapping's rules to one
// entry: a merge key needs a mapping or a list of mappings, and a key must
// be hashable (not a list, dict or set).
func pyMappingEntry(key, value *yaml.Node) *pyError {
	key, value = resolveAlias(key), resolveAlias(value)
	if pyTag(key) == "!!merge" {
		ok := value.Kind == yaml.MappingNode
		if value.Kind == yaml.SequenceNode {
			ok = true
			for _, item := range value.Content {
				ok = ok && resolveAlias(item).Kind == yaml.MappingNode
			}
		}
		if !ok {
			return &pyError{"yaml.constructor.ConstructorError", "a merge key (<<) whose value is not a mapping or a list of mappings"}
		}
		return nil
	}
	switch pyTypeOfTag(pyTag(key)) {
	case "list", "dict", "set":
		return &pyError{"yaml.constructor.ConstructorError", "a list or mapping used as a key (unhashable)"}
	}
	return nil
}

// pyTag is the tag PyYAML gives a node: its explicit tag, or the one its
// YAML 1.1 resolver finds for a plain scalar.
func pyTag(n *yaml.Node) string {
	n = resolveAlias(n)
	switch {
	case n.Style&yaml.TaggedStyle != 0:
		return n.Tag
	case n.Kind == yaml.MappingNode:
		return "!!map"
	case n.Kind == yaml.SequenceNode:
		return "!!seq"
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return "!!str"
	}
	return pyResolvePlain(n.Value)
}

// PyYAML's implicit resolvers (resolver.py), tried in its order: the first
// that matches names the tag.
var pyResolvers = []struct {
	tag   string
	first string // the first characters it is tried for ("" also: the empty value)
	re    *regexp.Regexp
}{
	{"!!bool", "yYnNtTfFoO", regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)},
	{"!!float", "-+0123456789.", regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)},
	{"!!int", "-+0123456789", pyIntPattern},
	{"!!merge", "<", regexp.MustCompile(`^(?:<<)$`)},
	{"!!null", "~nN", regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)},
	{"!!timestamp", "0123456789", regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)},
	{"!!value", "=", regexp.MustCompile(`^(?:=)$`)},
}

var pyIntPattern = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)

func pyResolvePlain(value string) string {
	if value == "" {
		return "!!null"
	}
	for _, r := range pyResolvers {
		// Python's "$" also matches before a final newline; a plain
		// scalar never ends with one.
		if strings.IndexByte(r.first, value[0]) >= 0 && r.re.MatchString(value) {
			return r.tag
		}
	}
	return "!!str"
}

// pyTypeOfTag is the Python type SafeConstructor builds for a tag.
func pyTypeOfTag(tag string) string {
	switch tag {
	case "!!null":
		return "NoneType"
	case "!!bool":
		return "bool"
	case "!!int":
		return "int"
	case "!!float":
		return "float"
	case "!!str":
		return "str"
	case "!!binary":
		return "bytes"
	case "!!seq", "!!omap", "!!pairs":
		return "list"
	case "!!map":
		return "dict"
	case "!!set":
		return "set"
	}
	return "" // timestamps depend on the value; others have no constructor
}

// pyConstructible reports the exception SafeConstructor raises building
// node n (its own value, not its children) with tag.
func pyConstructible(n *yaml.Node, tag string) *pyError {
	want := yaml.ScalarNode
	switch tag {
	case "!!seq", "!!omap", "!!pairs":
		want = yaml.SequenceNode
	case "!!map", "!!set":
		want = yaml.MappingNode
	}
	switch {
	case pyTypeOfTag(tag) == "" && tag != "!!timestamp":
		return &pyError{"yaml.constructor.ConstructorError", "the tag " + tag + " has no constructor in yaml.safe_load"}
	case n.Kind != want:
		return &pyError{"yaml.constructor.ConstructorError", "the tag " + tag + " on the wrong kind of node"}
	case tag == "!!omap" || tag == "!!pairs":
		for _, item := range n.Content {
			if item = resolveAlias(item); item.Kind != yaml.MappingNode || len(item.Content) != 2 {
				return &pyError{"yaml.constructor.ConstructorError", "an ordered map whose items are not single key: value pairs"}
			}
		}
	case want == yaml.ScalarNode:
		return pyScalarError(tag, n.Value)
	}
	return nil
}

// pyScalarError is the exception constructing a scalar raises, nil if none.
func pyScalarError(tag, value string) *pyError {
	switch tag {
	case "!!bool":
		if _, ok := pyBoolValues[strings.ToLower(value)]; !ok {
			return &pyError{"KeyError", "!!bool " + strconv.Quote(value) + " is not a YAML boolean"}
		}
	case "!!int":
		if _, ok := pyIntTruth(value); !ok {
			return &pyError{"ValueError", strconv.Quote(value) + " is not a number Python can read"}
		}
	case "!!float":
		if _, ok := pyFloatTruth(value); !ok {
			return &pyError{"ValueError", strconv.Quote(value) + " is not a number Python can read"}
		}
	case "!!timestamp":
		return pyTimestampError(value)
	case "!!binary":
		if !pyBase64OK(value) {
			return &pyError{"yaml.constructor.ConstructorError", "!!binary data that is not Base64"}
		}
	}
	return nil
}

var pyBoolValues = map[string]bool{"yes": true, "no": false, "true": true, "false": false, "on": true, "off": false}

// pyIntTruth follows construct_yaml_int: whether the integer is non-zero,
// and whether Python can build it at all ("0b_" leaves int("", 2)). An
// explicit !!int must match the implicit pattern too (see pyYAML).
func pyIntTruth(value string) (truthy, ok bool) {
	if !pyIntPattern.MatchString(value) {
		return false, false
	}
	digits := strings.TrimLeft(strings.ReplaceAll(value, "_", ""), "+-")
	if strings.HasPrefix(digits, "0b") || strings.HasPrefix(digits, "0x") {
		if digits = digits[2:]; digits == "" {
			return false, false
		}
	}
	return strings.Trim(digits, "0:") != "", true
}

// pyFloatTruth follows construct_yaml_float: whether the float is non-zero
// (NaN is), and whether Python's float() reads it.
func pyFloatTruth(value string) (truthy, ok bool) {
	v := strings.TrimLeft(strings.ToLower(strings.ReplaceAll(value, "_", "")), "+-")
	if v == ".inf" || v == ".nan" {
		return true, true
	}
	for _, part := range strings.Split(v, ":") {
		part = strings.TrimSpace(part)
		if part == "" || strings.Contains(part, "x") {
			return false, false // Go reads hex floats; Python's float() does not
		}
		f, err := strconv.ParseFloat(part, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return false, false
		}
		truthy = truthy || f != 0
	}
	return truthy, true
}

var pyTimestampPattern = regexp.MustCompile(`^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+]([0-9]{1,2})(?::([0-9]{2}))?))?)?$`)

// pyTimestampError follows construct_yaml_timestamp: datetime.date and
// datetime.datetime refuse a day, hour or time zone out of range.
func pyTimestampError(value string) *pyError {
	m := pyTimestampPattern.FindStringSubmatch(value)
	if m == nil {
		return &pyError{"AttributeError", "!!timestamp " + strconv.Quote(value) + " is not a date"}
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	year, month, day := num(m[1]), num(m[2]), num(m[3])
	bad := year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)
	if m[4] != "" {
		bad = bad || num(m[4]) > 23 || num(m[5]) > 59 || num(m[6]) > 59 || num(m[7])*60+num(m[8]) >= 24*60
	}
	if bad {
		return &pyError{"ValueError", strconv.Quote(value) + " looks like a date but is not a valid one"}
	}
	return nil
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// pyBase64OK approximates base64.decodebytes, which skips characters
// outside the alphabet and refuses only bad padding or non-ASCII text.
func pyBase64OK(value string) bool {
	n, pad := 0, 0
	for _, r := range value {
		switch {
		case r > 0x7f:
			return false
		case r == '=':
			if n%4 >= 2 {
				pad++
			}
		case pad == 0 && (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/'):
			n++
		}
	}
	switch n % 4 {
	case 0:
		return true
	case 1:
		return false
	}
	return pad >= 4-n%4
}

// pyDescribe describes the value a (checked) node constructs to.
func pyDescribe(n *yaml.Node) pyObject {
	n = resolveAlias(n)
	tag := pyTag(n)
	o := pyObject{Type: pyTypeOfTag(tag)}
	if n.Kind == yaml.ScalarNode {
		o.Text = n.Value
	}
	switch tag {
	case "!!null":
	case "!!bool":
		o.Truthy = pyBoolValues[strings.ToLower(n.Value)]
	case "!!int":
		o.Truthy, _ = pyIntTruth(n.Value)
	case "!!float":
		o.Truthy, _ = pyFloatTruth(n.Value)
	case "!!timestamp":
		o.Type, o.Truthy = "datetime.date", true
		if m := pyTimestampPattern.FindStringSubmatch(n.Value); m != nil && m[4] != "" {
			o.Type = "datetime.datetime"
		}
	case "!!map":
		o.Truthy = pyMappingLen(n, map[*yaml.Node]bool{}) > 0
	case "!!set":
		o.Truthy = len(n.Content) > 0
	case "!!binary":
		o.Truthy = strings.Trim(n.Value, "= \n") != ""
	default:
		o.Truthy = n.Value != "" || len(n.Content) > 0
	}
	return o
}

// pyMappingLen is non-zero when the dict a mapping node builds has keys
// (it counts entries, not distinct keys: only zero matters).
func pyMappingLen(n *yaml.Node, seen map[*yaml.Node]bool) int {
	if seen[n] {
		return 0
	}
	seen[n] = true
	count := 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		if pyTag(n.Content[i]) != "!!merge" {
			count++
			continue
		}
		for _, m := range pyMergeSources(n.Content[i+1]) {
			count += pyMappingLen(m, seen)
		}
	}
	return count
}

// pyMergeSources are the mappings a merge key's value names.
func pyMergeSources(value *yaml.Node) []*yaml.Node {
	value = resolveAlias(value)
	if value.Kind == yaml.MappingNode {
		return []*yaml.Node{value}
	}
	out := make([]*yaml.Node, 0, len(value.Content))
	for _, item := range value.Content {
		out = append(out, resolveAlias(item))
	}
	return out
}

// pyLookup is dict.get(key) on the dict a mapping node builds, following
// flatten_mapping: the mapping's own entries win over merged ones, a later
// entry over an earlier one, and in a merged list the first mapping wins.
func pyLookup(n *yaml.Node, key string, seen map[*yaml.Node]bool) *yaml.Node {
	if seen[n] {
		return nil
	}
	seen[n] = true
	for i := len(n.Content) - 2; i >= 0; i -= 2 {
		k := resolveAlias(n.Content[i])
		if k.Kind == yaml.ScalarNode && k.Value == key && pyTag(k) == "!!str" {
			return n.Content[i+1]
		}
	}
	for i := len(n.Content) - 2; i >= 0; i -= 2 {
		if pyTag(n.Content[i]) != "!!merge" {
			continue
		}
		for _, m := range pyMergeSources(n.Content[i+1]) {
			if v := pyLookup(m, key, seen); v != nil {
				return v
			}
		}
	}
	return nil
}
