package protocol

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// The documents, through ParseMetadata: sdkCompatible (FrontMatter)
// and the lints say what the SDK does (TestReadLikeSDKMatchesTheSDK holds
// what it did).
func TestParseMetadataSaysWhatTheSDKDoes(t *testing.T) {
	cases := []struct {
		name, doc  string
		readable   bool
		multiround bool
		lints      []string
		message    string // in the last lint
	}{
		{"closed by ...", "---\nname: Dots\ndescription: d\n...\nBody\n", false, false,
			[]string{LintNoFrontMatter}, "no YAML front matter (a block between two '---' lines): the SDK cannot read this document"},
		{"empty front matter", "---\n---\n# T\n\nP.\n", false, false,
			[]string{LintInvalidFrontMatter}, "the SDK cannot read this document: the YAML block between the first two '---' is empty"},
		{"comment-only front matter", "---\n# nothing\n---\n# T\n\nP.\n", false, false,
			[]string{LintInvalidFrontMatter}, "the SDK cannot read this document: the YAML block between the first two '---' is empty"},
		{"--- inside a value", "---\nname: X\ndescription: \"a --- b\"\n---\n", false, false,
			[]string{LintInvalidFrontMatter}, "the SDK cannot read this document: in the YAML between the first two '---', line 3: found unexpected end of stream"},
		{"İ in the name", "---\nname: İzmir Weather\ndescription: d\n---\n", false, false,
			[]string{LintInvalidFrontMatter}, "the SDK cannot read this document: in the YAML between the first two '---', line 3: did not find expected key"},
		{"front matter after a heading", "# Title\n\nIntro.\n\n---\nname: Later\ndescription: d\nmultiround: yes\n---\n", true, true,
			[]string{LintSDKName}, `the SDK will name this "Later" (the registry shows "Title")`},
		{"a BOM before ---", "\ufeff---\nname: BOM\ndescription: d\n---\n# BOM\n", true, false, []string{LintMissingDescription}, ""},
		{"quoted false", "---\nname: n\ndescription: d\nmultiround: \"false\"\n---\n", true, true,
			[]string{LintSDKMultiround}, `the SDK will send multiround: true: it reads multiround as the text "false", which Python counts as true`},
		{"maybe", "---\nname: n\ndescription: d\nmultiround: maybe\n---\n", true, true,
			[]string{LintSDKMultiround}, "the SDK will send multiround: true"},
		{"zero", "---\nname: n\ndescription: d\nmultiround: 0\n---\n", true, false,
			[]string{LintSDKMultiround}, `the SDK will not send multiround (one round): it reads multiround as the number 0, which Python counts as false`},
		{"octal", "---\nname: n\ndescription: d\nmultiround: 010\n---\n", true, true,
			[]string{LintSDKMultiround}, `it reads multiround as the number 8, which Python counts as true`},
		{"an unknown tag", "---\nname: n\ndescription: !text d\n---\n", false, false,
			[]string{LintInvalidFrontMatter}, "line 3: the tag !text is one the SDK's YAML loader (yaml.safe_load) does not know"},
		{"text after ...", "---\nname: n\ndescription: d\n...\nmore\n---\n", false, false,
			[]string{LintInvalidFrontMatter}, "line 4: did not find expected <document start>"},
		{"a tab after name:", "---\ndescription: d\nname:\tTabbed\n---\n", false, false,
			[]string{LintInvalidFrontMatter}, "line 3: a tab, which the SDK's YAML reader allows only in quotes, block scalars and comments: use spaces"},
		{"no name", "---\ndescription: d\n---\n# Heading\n", true, false,
			[]string{LintSDKName}, `the SDK will call this document "Unnamed protocol"`},
		{"an int name", "---\nname: 12\ndescription: d\n---\n", true, false,
			[]string{LintSDKName}, `the SDK will read name as the number 12, not text: quote it`},
		{"a date version", "---\nname: n\ndescription: d\nversion: 2024-02-30\n---\n", false, false,
			[]string{LintInvalidFrontMatter}, `line 4: "2024-02-30" reads as a date but is not a valid one: quote it to keep it text`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, lints := ParseMetadata([]byte(c.doc))
			if m.FrontMatter != c.readable || m.Multiround != c.multiround {
				t.Errorf("sdkCompatible %v, multiround %v; want %v, %v", m.FrontMatter, m.Multiround, c.readable, c.multiround)
			}
			if got := lintCodes(lints); !reflect.DeepEqual(got, c.lints) {
				t.Fatalf("lints %v, want %v", lints, c.lints)
			}
			if c.message != "" && !strings.Contains(lints[len(lints)-1].Message, c.message) {
				t.Errorf("lint %q does not say %q", lints[len(lints)-1].Message, c.message)
			}
		})
	}
}

// FuzzReadLikeSDK compares the SDK's reading with the registry's own where
// both read the same front matter at the start of the document: the same
// name and description.
// Run with: go test -run '^$' -fuzz FuzzReadLikeSDK -fuzztime 60s ./internal/protocol/
func FuzzReadLikeSDK(f *testing.F) {
	for _, doc := range metadataSeeds(f) {
		f.Add(doc)
	}
	for _, s := range []string{"---\nname: a\n<<: {name: b}\n---\n", "---\n<<: [{name: a}, {name: b}]\n---\n",
		"---\nname: 'x'\ndescription: |\n  two\n  lines\n---\n", "# T\n\n---\nname: x\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if Validate(doc, 0) != nil {
			return // the registry stores no such document
		}
		r := ReadLikeSDK(doc)
		if r.Readable() == (r.Problem != "" || r.Unchecked) || (r.Readable() && (r.Name.Kind == "" || r.Description.Kind == "" || r.MultiroundValue.Kind == "")) {
			t.Fatalf("inconsistent reading %+v", r)
		}
		block, _, ok := SplitFrontMatter(doc)
		if !ok || !r.Readable() || r.Offset != 0 {
			return
		}
		if sdk, _, _, _ := sdkBlock(doc); !bytes.Equal(sdk, bytes.TrimFunc(block, pyIsSpace)) {
			return // a "---" inside the block: the two read different text
		}
		if trimmed := bytes.TrimLeft(block, "\r\n"); len(trimmed) > 0 && pyIsSpace(rune(trimmed[0])) {
			// The SDK strips the block, so its first line moves left; yaml.v3
			// reads an indented first mapping and silently drops what follows
			// at a lower indentation (Unmarshal reads one document only).
			return
		}
		m, lints := ParseMetadata(doc)
		for _, l := range lints {
			if l.Code == LintInvalidFrontMatter || l.Code == LintInvalidField {
				return // the registry ignored some of it
			}
		}
		if want := CleanTitle(r.Name.Text); r.Name.Kind == "text" && !r.Name.Default && want != "" && m.Title != want {
			t.Fatalf("the SDK names %q %q, the registry %q", doc, want, m.Title)
		}
		if want := CleanDescription(r.Description.Text); r.Description.Kind == "text" && !r.Description.Default && want != "" && m.Description != want {
			t.Fatalf("the SDK describes %q as %q, the registry as %q", doc, want, m.Description)
		}
	})
}
