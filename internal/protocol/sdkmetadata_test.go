package protocol

import (
	"runtime"
	"strings"
	"testing"
)

// TestReadLikeSDKMatchesTheSDK holds what the Agora Python SDK's own
// extract_metadata (agora-protocol 0.2.0, PyYAML 6.0, CPython 3.11) made of
// each document: the exception class it raised, or the Python type and
// value of name and description and the truthiness of multiround (whether
// its Sender sends "multiround": true). Name text is given for a str only.
func TestReadLikeSDKMatchesTheSDK(t *testing.T) {
	cases := []struct {
		name, doc          string
		exception          string
		nameType, nameText string
		descriptionType    string
		multiround         bool
	}{
		{"plain front matter", "---\nname: Weather\ndescription: Forecasts\nmultiround: true\n---\n\nBody.\n", "", "str", "Weather", "str", true},
		{"closed by ... with a later rule", "---\nname: Dots\n...\n# Body\n\nText.\n\n---\n\nMore.\n", "yaml.parser.ParserError", "", "", "", false},
		{"closed by ... and no other marker", "---\nname: Dots\ndescription: d\n...\nBody\n", "AttributeError", "", "", "", false},
		{"closed by ... then ---", "---\nname: Dots\n...\n---\nBody\n", "", "str", "Dots", "str", false},
		{"empty front matter", "---\n---\n# T\n\nP.\n", "AttributeError", "", "", "", false},
		{"comment-only front matter", "---\n# just a comment\n---\n# T\n", "AttributeError", "", "", "", false},
		{"--- inside a value", "---\nname: X\ndescription: \"a --- b\"\n---\n\nBody.\n", "yaml.scanner.ScannerError", "", "", "", false},
		{"a lower-case form longer: \u0130 in the block", "---\nname: \u0130zmir Weather\ndescription: d\n---\n\nBody.\n", "yaml.parser.ParserError", "", "", "", false},
		{"\u0130 before the first marker", "\u0130\n---\nname: A\n---\n", "yaml.parser.ParserError", "", "", "", false},
		{"\u0130 far before the first marker", "# \u0130\u0130\u0130\u0130\u0130\u0130\u0130\u0130\u0130\u0130\n\n---\nname: A\n---\n", "AttributeError", "", "", "", false},
		{"front matter after a heading", "# Title\n\nIntro.\n\n---\nname: Later\ndescription: After the heading\nmultiround: yes\n---\n", "", "str", "Later", "str", true},
		{"a UTF-8 BOM before ---", "\ufeff---\nname: BOM\ndescription: d\n---\n# H\n", "", "str", "BOM", "str", false},
		{"quoted false", "---\nname: n\nmultiround: \"false\"\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"single-quoted false", "---\nname: n\nmultiround: 'false'\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"maybe", "---\nname: n\nmultiround: maybe\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"no", "---\nname: n\nmultiround: no\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"Off", "---\nname: n\nmultiround: Off\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"y is text", "---\nname: n\nmultiround: y\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"n is text", "---\nname: n\nmultiround: n\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"zero", "---\nname: n\nmultiround: 0\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"octal zero", "---\nname: n\nmultiround: 00\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"0o7 is text in YAML 1.1", "---\nname: n\nmultiround: 0o7\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"signed zero", "---\nname: n\nmultiround: +0\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"hex zero", "---\nname: n\nmultiround: 0x0\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"float zero", "---\nname: n\nmultiround: 0.0\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"nan", "---\nname: n\nmultiround: .nan\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"sexagesimal", "---\nname: n\nmultiround: 1:30\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"1e3 is text", "---\nname: n\nmultiround: 1e3\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"null", "---\nname: n\nmultiround: ~\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"empty value", "---\nname: n\nmultiround:\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"empty string", "---\nname: n\nmultiround: \"\"\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"empty list", "---\nname: n\nmultiround: []\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"empty mapping", "---\nname: n\nmultiround: {}\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"a list", "---\nname: n\nmultiround: [false]\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"a date", "---\nname: n\nmultiround: 2024-01-01\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"!!str false", "---\nname: n\nmultiround: !!str false\n---\n\nBody.\n", "", "str", "n", "str", true},
		{"!!bool \"false\"", "---\nname: n\nmultiround: !!bool \"false\"\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"!!bool maybe", "---\nname: n\nmultiround: !!bool maybe\n---\n\nBody.\n", "KeyError", "", "", "", false},
		{"0b_", "---\nname: n\nmultiround: 0b_\n---\n\nBody.\n", "ValueError", "", "", "", false},
		{"without name", "---\ndescription: d\n---\n\nBody.\n", "", "str", "Unnamed protocol", "str", false},
		{"title is not name", "---\ntitle: T\ndescription: d\n---\n\nBody.\n", "", "str", "Unnamed protocol", "str", false},
		{"null name", "---\nname:\ndescription: d\n---\n\nBody.\n", "", "NoneType", "", "str", false},
		{"int name", "---\nname: 12\n---\n\nBody.\n", "", "int", "", "str", false},
		{"float name", "---\nname: 1.5\n---\n\nBody.\n", "", "float", "", "str", false},
		{"bool name", "---\nname: yes\n---\n\nBody.\n", "", "bool", "", "str", false},
		{"date name", "---\nname: 2024-01-01\n---\n\nBody.\n", "", "datetime.date", "", "str", false},
		{"datetime description", "---\nname: n\ndescription: 2024-01-01 10:00:00\n---\n\nBody.\n", "", "str", "n", "datetime.datetime", false},
		{"list name", "---\nname: [a, b]\n---\n\nBody.\n", "", "list", "", "str", false},
		{"binary name", "---\nname: !!binary aGVsbG8=\n---\n\nBody.\n", "", "bytes", "", "str", false},
		{"block scalar name", "---\nname: |\n  Multi\n  line\n---\n\nBody.\n", "", "str", "Multi\nline", "str", false},
		{"folded name", "---\nname: >\n  a long\n  title\n---\n\nBody.\n", "", "str", "a long title", "str", false},
		{"escaped quote", "---\nname: 'It''s'\n---\n\nBody.\n", "", "str", "It's", "str", false},
		{"escapes", "---\nname: \"a\\tb\\u00e9\"\n---\n\nBody.\n", "", "str", "a\tbé", "str", false},
		{"comment after value", "---\nname: A # comment\n---\n\nBody.\n", "", "str", "A", "str", false},
		{"duplicate key, last wins", "---\nname: a\nname: b\n---\n\nBody.\n", "", "str", "b", "str", false},
		{"merge", "---\nbase: &b {name: Merged, multiround: true}\n<<: *b\n---\n\nBody.\n", "", "str", "Merged", "str", true},
		{"own key wins over merge", "---\nbase: &b {name: Merged}\n<<: *b\nname: Own\n---\n\nBody.\n", "", "str", "Own", "str", false},
		{"first of merged list wins", "---\n<<: [{name: First}, {name: Second}]\n---\n\nBody.\n", "", "str", "First", "str", false},
		{"later merge key wins", "---\n<<: {name: One}\nx: 1\n<<: {name: Two}\n---\n\nBody.\n", "", "str", "Two", "str", false},
		{"nested merge", "---\na: &a {name: Deep}\nb: &b {<<: *a}\n<<: *b\n---\n\nBody.\n", "", "str", "Deep", "str", false},
		{"merge of a scalar", "---\nname: n\n<<: 1\n---\n\nBody.\n", "yaml.constructor.ConstructorError", "", "", "", false},
		{"alias", "---\nx: &n Shared\nname: *n\n---\n\nBody.\n", "", "str", "Shared", "str", false},
		{"undefined alias", "---\nname: *nope\n---\n\nBody.\n", "yaml.composer.ComposerError", "", "", "", false},
		{"duplicate anchor", "---\na: &x 1\nb: &x 2\nname: n\n---\n\nBody.\n", "yaml.composer.ComposerError", "", "", "", false},
		{"invalid date", "---\nname: n\nversion: 2024-02-30\n---\n\nBody.\n", "ValueError", "", "", "", false},
		{"hour 24", "---\nname: n\nat: 2024-01-01 24:00:00\n---\n\nBody.\n", "ValueError", "", "", "", false},
		{"time zone +25", "---\nname: n\nat: 2024-01-01 10:00:00 +25\n---\n\nBody.\n", "ValueError", "", "", "", false},
		{"leap day", "---\nname: n\nat: 2024-02-29\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"= as a value", "---\nname: n\nm: =\n---\n\nBody.\n", "yaml.constructor.ConstructorError", "", "", "", false},
		{"= as a key", "---\nname: n\n=: m\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"<< as a plain value", "---\nname: n\nm: <<\n---\n\nBody.\n", "yaml.constructor.ConstructorError", "", "", "", false},
		{"unknown tag", "---\nname: !foo x\n---\n\nBody.\n", "yaml.constructor.ConstructorError", "", "", "", false},
		{"python tag", "---\nname: !!python/str x\n---\n\nBody.\n", "yaml.constructor.ConstructorError", "", "", "", false},
		{"unhashable key", "---\nname: n\n[a]: 1\n---\n\nBody.\n", "yaml.constructor.ConstructorError", "", "", "", false},
		{"mapping key", "---\nname: n\n? {a: b}\n: 1\n---\n\nBody.\n", "yaml.constructor.ConstructorError", "", "", "", false},
		{"set root", "---\n!!set {a, b}\n---\n", "AttributeError", "", "", "", false},
		{"omap value", "---\nname: n\no: !!omap [a]\n---\n\nBody.\n", "yaml.constructor.ConstructorError", "", "", "", false},
		{"omap ok", "---\nname: n\no: !!omap [{a: 1}, {b: 2}]\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"list root", "---\n- a\n- b\n---\n", "AttributeError", "", "", "", false},
		{"text between two rules", "# T\n\nIntro.\n\n---\n\nSome prose.\n\n---\n", "AttributeError", "", "", "", false},
		{"no markers", "# Just a heading\n\nText.\n", "AttributeError", "", "", "", false},
		{"one marker", "---\nname: Never closed\n", "AttributeError", "", "", "", false},
		{"four dashes", "----\nname: A\n----\n", "yaml.parser.ParserError", "", "", "", false},
		{"marker with trailing blank", "--- \nname: A\n---\n", "", "str", "A", "str", false},
		{"CRLF", "---\r\nname: Windows\r\nmultiround: yes\r\n---\r\n\r\nBody\r\n", "", "str", "Windows", "str", true},
		{"tab after colon", "---\nname:\tTabbed\n---\n", "yaml.scanner.ScannerError", "", "", "", false},
		{"tab in quotes", "---\nname: 'a\tb'\n---\n", "", "str", "a\tb", "str", false},
		{"tab in a comment", "---\n# c\tc\nname: x\n---\n", "", "str", "x", "str", false},
		{"tab before a comment", "---\nname: a\t# c\n---\n", "yaml.scanner.ScannerError", "", "", "", false},
		{"tab in a multi-line quoted scalar", "---\nname: \"a\n\tb\"\n---\n", "", "str", "a b", "str", false},
		{"tab indentation", "---\nname:\n\t- x\n---\n", "yaml.scanner.ScannerError", "", "", "", false},
		{"mapping values not allowed", "---\nname: a: b\n---\n\nBody.\n", "yaml.scanner.ScannerError", "", "", "", false},
		{"unclosed flow", "---\nname: [unclosed\n---\n\nBody.\n", "yaml.parser.ParserError", "", "", "", false},
		{"directive", "---\n%YAML 1.1\nname: x\n---\n", "yaml.parser.ParserError", "", "", "", false},
		{"control character", "---\nname: a\u007fb\n---\n\nBody.\n", "yaml.reader.ReaderError", "", "", "", false},
		{"C1 control", "---\nname: a\u0090b\n---\n\nBody.\n", "yaml.reader.ReaderError", "", "", "", false},
		{"NEL in a value", "---\nname: a\u0085b\n---\n\nBody.\n", "yaml.scanner.ScannerError", "", "", "", false},
		{"line separator in a value", "---\nname: a\u2028b\n---\n\nBody.\n", "yaml.scanner.ScannerError", "", "", "", false},
		{"strip removes \\x1c", "---\u001cname: A\u001d\n---\n", "", "str", "A", "str", false},
		{"strip removes ideographic space", "---\u3000name: A\u3000\n---\n", "", "str", "A", "str", false},
		{"emoji name", "---\nname: Weather ☀️🌧\n---\n\nBody.\n", "", "str", "Weather ☀️🌧", "str", false},
		{"BOM right after the marker", "---\ufeffname: A\n---\n", "", "str", "A", "str", false},
		{"deep nesting", "---\nname: n\nx: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n---\n\nBody.\n", "RecursionError", "", "", "", false},
		{"shallow nesting", "---\nname: n\nx: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"explicit !!int", "---\nname: n\nmultiround: !!int 0\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"explicit !!int bad", "---\nname: n\nmultiround: !!int zero\n---\n\nBody.\n", "ValueError", "", "", "", false},
		{"explicit !!float", "---\nname: n\nmultiround: !!float 0\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"explicit !!null", "---\nname: n\nmultiround: !!null yes\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"explicit !!str on name", "---\nname: !!str 12\n---\n\nBody.\n", "", "str", "12", "str", false},
		{"key quoted name", "---\n\"name\": Quoted\n---\n\nBody.\n", "", "str", "Quoted", "str", false},
		{"name key as int", "---\n1: x\nname: n\n---\n\nBody.\n", "", "str", "n", "str", false},
		{"true key", "---\ntrue: x\nname: n\n---\n\nBody.\n", "", "str", "n", "str", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ReadLikeSDK([]byte(c.doc))
			if r.Unchecked {
				t.Fatalf("unchecked")
			}
			if r.Exception != c.exception {
				t.Fatalf("exception %q (%s), the SDK raises %q", r.Exception, r.Detail, c.exception)
			}
			if c.exception != "" {
				if r.Detail == "" {
					t.Error("no detail for the exception")
				}
				return
			}
			if r.Name.Type != c.nameType || (c.nameType == "str" && r.Name.Text != c.nameText) {
				t.Errorf("name %s %q, the SDK reads %s %q", r.Name.Type, r.Name.Text, c.nameType, c.nameText)
			}
			if r.Description.Type != c.descriptionType {
				t.Errorf("description a %s, the SDK reads a %s", r.Description.Type, c.descriptionType)
			}
			if r.Multiround != c.multiround {
				t.Errorf("multiround %v (from %+v), the SDK sends %v", r.Multiround, r.MultiroundValue, c.multiround)
			}
		})
	}
}

func TestReadLikeSDKLeavesLargeBlocksUnchecked(t *testing.T) {
	doc := "---\nname: n\nx: [" + strings.Repeat("a,", MaxSDKBlockBytes/2) + "a]\n---\n"
	if r := ReadLikeSDK([]byte(doc)); !r.Unchecked || r.Readable() {
		t.Fatalf("got %+v", r)
	}
	doc = "---\nname: n\nx: [" + strings.Repeat("a,", MaxSDKBlockBytes/2-20) + "a]\n---\n"
	if r := ReadLikeSDK([]byte(doc)); !r.Readable() || r.Name.Text != "n" {
		t.Fatalf("just under the limit: got %+v", r)
	}
}

// TestPyYAMLKnownDifferences pins where ReadLikeSDK and the SDK part (see
// the comment on pyYAML); each "sdk" value is what the SDK did.
func TestPyYAMLKnownDifferences(t *testing.T) {
	cases := []struct {
		name, doc, sdk, ours string
	}{
		// libyaml refuses a tab that starts a block scalar's content line.
		{"tab in a block scalar", "---\nname: |\n  \tx\n---\n", "", "yaml.scanner.ScannerError"},
		// Python's int() reads Unicode digits; the check uses YAML's ASCII pattern.
		{"explicit !!int with a full-width digit", "---\nname: n\nmultiround: !!int \"\uff10\"\n---\n", "", "ValueError"},
	}
	for _, c := range cases {
		if r := ReadLikeSDK([]byte(c.doc)); r.Exception != c.ours {
			t.Errorf("%s: exception %q; the known difference (the SDK: %q) has changed: update pyYAML's comment", c.name, r.Exception, c.sdk)
		}
	}
}

// The SDK check's memory is bounded by MaxSDKBlockBytes, whatever the
// document's size: counted in bytes allocated, not timed.
func TestReadLikeSDKMemoryIsBounded(t *testing.T) {
	const bound = 16 << 20
	for name, body := range map[string]string{
		"flow list at the cap":    "x: [" + strings.Repeat("a,", MaxSDKBlockBytes/2-10) + "a]",
		"flow mapping at the cap": "x: {" + strings.Repeat("a: 1,", MaxSDKBlockBytes/5-10) + "}",
		"block list at the cap":   strings.Repeat("- a\n", MaxSDKBlockBytes/4-10),
		"nesting at the depth":    strings.Repeat("[", pyMaxDepth) + strings.Repeat("]", pyMaxDepth),
		"a 1 MiB block":           "x: [" + strings.Repeat("a,", 1<<19) + "a]",
	} {
		doc := []byte("---\n" + body + "\n---\n")
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ReadLikeSDK(doc)
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > bound {
			t.Errorf("%s: %d bytes allocated for a %d-byte document, over %d", name, n, len(doc), bound)
		}
	}
}
