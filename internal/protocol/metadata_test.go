package protocol

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseMetadataMatchesTheVectors(t *testing.T) {
	for _, v := range loadHashVectors(t) {
		if v.Metadata == nil {
			continue
		}
		m, lints := ParseMetadata([]byte(v.Document))
		if m.Title != v.Metadata.Name || m.Description != v.Metadata.Description || m.Multiround != v.Metadata.Multiround {
			t.Errorf("ParseMetadata(%q) = %+v, want %+v", v.Document, m, *v.Metadata)
		}
		if !m.FrontMatter || len(lints) != 0 {
			t.Errorf("ParseMetadata(%q): frontMatter=%v lints=%v, want SDK front matter and no lints", v.Document, m.FrontMatter, lints)
		}
	}
}

func TestParseMetadataReadsEveryField(t *testing.T) {
	doc := "---\n" +
		"name: Weather Protocol\n" +
		"description: Query weather forecasts by location and date.\n" +
		"multiround: yes\n" +
		"tags: [Weather, 'Forecast Data', weather, '  ', 'c#']\n" +
		"version: 1.10\n" +
		"supersedes: qZk+NkcGgWq6PiVxeFDCbJzQ2J0=\n" +
		"authors: [Ada Lovelace, '  Alan   Turing ']\n" +
		"license: CC-BY-4.0\n" +
		"---\n\n# Ignored heading\n\nIgnored paragraph.\n"
	m, lints := ParseMetadata([]byte(doc))
	abc := MustParseDigest("a9993e364706816aba3e25717850c26c9cd0d89d")
	want := Metadata{
		Title:       "Weather Protocol",
		Description: "Query weather forecasts by location and date.",
		Multiround:  true,
		Tags:        []string{"weather", "forecast-data", "c"},
		Version:     "1.10",
		Supersedes:  &abc,
		Authors:     []string{"Ada Lovelace", "Alan Turing"},
		License:     "CC-BY-4.0",
		FrontMatter: true,
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got  %+v\nwant %+v", m, want)
	}
	if len(lints) != 0 {
		t.Fatalf("lints: %v", lints)
	}
}

func TestParseMetadataFields(t *testing.T) {
	abc := MustParseDigest("a9993e364706816aba3e25717850c26c9cd0d89d")
	fm := func(lines ...string) string {
		return "---\n" + strings.Join(lines, "\n") + "\n---\n\nBody paragraph.\n"
	}
	cases := []struct {
		name  string
		doc   string
		check func(Metadata) bool
		lints []string // expected lint codes, in order
	}{
		{"title alias", fm("title: Aliased", "description: d"),
			func(m Metadata) bool { return m.Title == "Aliased" }, []string{LintSDKName}},
		{"name wins over title", fm("name: N", "title: T", "description: d"),
			func(m Metadata) bool { return m.Title == "N" }, nil},
		{"multiround true", fm("name: n", "description: d", "multiround: true"),
			func(m Metadata) bool { return m.Multiround }, nil},
		{"multiround True", fm("name: n", "description: d", "multiround: True"),
			func(m Metadata) bool { return m.Multiround }, nil},
		{"multiround on", fm("name: n", "description: d", "multiround: on"),
			func(m Metadata) bool { return m.Multiround }, nil},
		{"multiround off", fm("name: n", "description: d", "multiround: off"),
			func(m Metadata) bool { return !m.Multiround }, nil},
		{"multiround no", fm("name: n", "description: d", "multiround: no"),
			func(m Metadata) bool { return !m.Multiround }, nil},
		{"multiround YES", fm("name: n", "description: d", "multiround: YES"),
			func(m Metadata) bool { return m.Multiround }, nil},
		{"multiround not a boolean is what the SDK sends", fm("name: n", "description: d", "multiround: maybe"),
			func(m Metadata) bool { return m.Multiround }, []string{LintSDKMultiround}},
		{"multiround a list", fm("name: n", "description: d", "multiround: [true]"),
			func(m Metadata) bool { return m.Multiround }, []string{LintSDKMultiround}},
		{"multiround zero", fm("name: n", "description: d", "multiround: 0"),
			func(m Metadata) bool { return !m.Multiround }, []string{LintSDKMultiround}},
		{"tags as comma string", fm("name: n", "description: d", "tags: Weather,  Forecast Data ,weather"),
			func(m Metadata) bool { return reflect.DeepEqual(m.Tags, []string{"weather", "forecast-data"}) }, nil},
		{"tags as one word", fm("name: n", "description: d", "tags: weather"),
			func(m Metadata) bool { return reflect.DeepEqual(m.Tags, []string{"weather"}) }, nil},
		{"tags as block list", fm("name: n", "description: d", "tags:", "  - A  B", "  - a-b", "  - 42"),
			func(m Metadata) bool { return reflect.DeepEqual(m.Tags, []string{"a-b", "42"}) }, nil},
		{"tags junk", fm("name: n", "description: d", "tags: ['#hash', '!!!', 'r&d', '--x--', 'C++', '.NET']"),
			func(m Metadata) bool { return reflect.DeepEqual(m.Tags, []string{"hash", "rd", "x", "c++", ".net"}) }, nil},
		{"tags a mapping", fm("name: n", "description: d", "tags: {a: b}"),
			func(m Metadata) bool { return len(m.Tags) == 0 }, []string{LintInvalidField}},
		{"tags nested list", fm("name: n", "description: d", "tags: [a, [b]]"),
			func(m Metadata) bool { return len(m.Tags) == 0 }, []string{LintInvalidField}},
		{"supersedes hex upper case", fm("name: n", "description: d", "supersedes: A9993E364706816ABA3E25717850C26C9CD0D89D"),
			func(m Metadata) bool { return m.Supersedes != nil && *m.Supersedes == abc }, nil},
		{"supersedes URL-safe Base64", fm("name: n", "description: d", "supersedes: qZk-NkcGgWq6PiVxeFDCbJzQ2J0"),
			func(m Metadata) bool { return m.Supersedes != nil && *m.Supersedes == abc }, nil},
		{"supersedes malformed", fm("name: n", "description: d", "supersedes: abc"),
			func(m Metadata) bool { return m.Supersedes == nil }, []string{LintInvalidField}},
		{"supersedes a list", fm("name: n", "description: d", "supersedes: [a9993e364706816aba3e25717850c26c9cd0d89d]"),
			func(m Metadata) bool { return m.Supersedes == nil }, []string{LintInvalidField}},
		{"supersedes empty", fm("name: n", "description: d", "supersedes:"),
			func(m Metadata) bool { return m.Supersedes == nil }, nil},
		{"authors as string", fm("name: n", "description: d", "authors: Ada Lovelace, Alan Turing"),
			func(m Metadata) bool { return reflect.DeepEqual(m.Authors, []string{"Ada Lovelace, Alan Turing"}) }, nil},
		{"authors as list", fm("name: n", "description: d", "authors: [Ada, '', Alan]"),
			func(m Metadata) bool { return reflect.DeepEqual(m.Authors, []string{"Ada", "Alan"}) }, nil},
		{"authors a mapping", fm("name: n", "description: d", "authors: {Ada: 1}"),
			func(m Metadata) bool { return m.Authors == nil }, []string{LintInvalidField}},
		{"license and version numbers", fm("name: n", "description: d", "license: MIT", "version: 2"),
			func(m Metadata) bool { return m.License == "MIT" && m.Version == "2" }, nil},
		{"name a list", fm("name: [a, b]", "description: d"),
			func(m Metadata) bool { return m.Title == "" }, []string{LintInvalidField, LintMissingTitle, LintSDKName}},
		{"name a list, title used", fm("name: [a, b]", "title: T", "description: d"),
			func(m Metadata) bool { return m.Title == "T" }, []string{LintInvalidField, LintSDKName}},
		{"description a mapping, paragraph used", fm("name: n", "description: {a: b}"),
			func(m Metadata) bool { return m.Description == "Body paragraph." }, []string{LintInvalidField, LintSDKDescription}},
		{"null name, heading used", "---\nname: ~\ndescription: d\n---\n# Heading\n",
			func(m Metadata) bool { return m.Title == "Heading" }, []string{LintSDKName}},
		{"alias to a scalar", fm("name: &n Shared", "title: x", "description: *n"),
			func(m Metadata) bool { return m.Title == "Shared" && m.Description == "Shared" }, nil},
		{"multi-line description", fm("name: n", "description: |", "  line one  ", "", "  line two"),
			func(m Metadata) bool { return m.Description == "line one\n\nline two" }, nil},
		{"folded title", fm("name: >", "  a long", "  title", "description: d"),
			func(m Metadata) bool { return m.Title == "a long title" }, nil},
		{"YAML escapes cannot smuggle control characters", fm(`name: "a\0b\x1b[31mc\u202Ed"`, `description: "x\ty\r\nz"`),
			func(m Metadata) bool { return m.Title == "a b [31mcd" && m.Description == "x y\nz" }, nil},
		{"empty front matter", "---\n---\n# T\n\nP.\n",
			func(m Metadata) bool { return !m.FrontMatter && m.Title == "T" && m.Description == "P." }, []string{LintInvalidFrontMatter}},
		{"invalid YAML, fallbacks used", "---\nname: [unclosed\n---\n# Heading\n\nFirst paragraph.\n",
			func(m Metadata) bool {
				return !m.FrontMatter && m.Title == "Heading" && m.Description == "First paragraph."
			}, []string{LintInvalidFrontMatter}},
		{"front matter not a mapping", "---\n- a\n- b\n---\n# H\n\nP.\n",
			func(m Metadata) bool { return !m.FrontMatter && m.Title == "H" }, []string{LintInvalidFrontMatter}},
		{"duplicate key", fm("name: a", "name: b", "description: d"),
			func(m Metadata) bool { return m.FrontMatter }, []string{LintInvalidFrontMatter, LintMissingTitle, LintSDKName}},
		{"closed by ...", "---\nname: Dots\ndescription: d\n...\nBody\n",
			func(m Metadata) bool { return !m.FrontMatter && m.Title == "Dots" }, []string{LintNoFrontMatter}},
		{"CRLF", "---\r\nname: Windows\r\ndescription: d\r\nmultiround: yes\r\n---\r\n\r\nBody\r\n",
			func(m Metadata) bool { return m.FrontMatter && m.Title == "Windows" && m.Multiround }, nil},
		{"unterminated front matter is none", "---\nname: Never closed\n\n# Heading\n\nPara.\n",
			func(m Metadata) bool { return !m.FrontMatter && m.Title == "Heading" }, []string{LintNoFrontMatter}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, lints := ParseMetadata([]byte(c.doc))
			if !c.check(m) {
				t.Errorf("unexpected metadata %+v", m)
			}
			if got := lintCodes(lints); !reflect.DeepEqual(got, c.lints) {
				t.Errorf("lints %v, want %v", lints, c.lints)
			}
			if m.Tags == nil {
				t.Error("Tags is nil; JSON would say null instead of []")
			}
		})
	}
}

func TestParseMetadataWithoutFrontMatterFallsBackToMarkdown(t *testing.T) {
	doc := "Intro text before any heading\nspans two lines.\n\n# The Title #\n\nLater paragraph.\n"
	m, lints := ParseMetadata([]byte(doc))
	if m.FrontMatter || m.Title != "The Title" || m.Description != "Intro text before any heading spans two lines." {
		t.Fatalf("got %+v", m)
	}
	if got := lintCodes(lints); !reflect.DeepEqual(got, []string{LintNoFrontMatter}) {
		t.Fatalf("lints %v", lints)
	}
	if !strings.Contains(lints[0].Message, "SDK") {
		t.Fatalf("the no-front-matter lint does not say why it matters: %q", lints[0].Message)
	}
	m, lints = ParseMetadata([]byte("```\ncode\n```\n"))
	if m.Title != "" || m.Description != "" {
		t.Fatalf("code became metadata: %+v", m)
	}
	if got := lintCodes(lints); !reflect.DeepEqual(got, []string{LintNoFrontMatter, LintMissingTitle, LintMissingDescription}) {
		t.Fatalf("lints %v", lints)
	}
}

func TestParseMetadataTruncatesOverlongFields(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	tags := make([]string, MaxTags+5)
	for i := range tags {
		tags[i] = "t" + strings.Repeat("x", i)
	}
	authors := make([]string, MaxAuthors+1)
	for i := range authors {
		authors[i] = "a" + strings.Repeat("x", i)
	}
	doc := "---\n" +
		"name: " + long(MaxTitleRunes+1) + "\n" +
		"description: " + long(MaxDescriptionRunes+1) + "\n" +
		"version: " + long(MaxShortFieldRunes+1) + "\n" +
		"license: " + long(MaxShortFieldRunes+1) + "\n" +
		"tags: [" + strings.Join(tags, ", ") + ", " + long(MaxTagRunes+1) + "]\n" +
		"authors: [" + strings.Join(authors, ", ") + "]\n" +
		"---\n"
	m, lints := ParseMetadata([]byte(doc))
	if m.Title != long(MaxTitleRunes) || m.Description != long(MaxDescriptionRunes) ||
		m.Version != long(MaxShortFieldRunes) || m.License != long(MaxShortFieldRunes) {
		t.Fatalf("texts not cut to their limits: %d %d %d %d runes", len([]rune(m.Title)),
			len([]rune(m.Description)), len([]rune(m.Version)), len([]rune(m.License)))
	}
	if !reflect.DeepEqual(m.Tags, tags[:MaxTags]) || len(m.Authors) != MaxAuthors {
		t.Fatalf("tags %v (%d), authors %d", m.Tags, len(m.Tags), len(m.Authors))
	}
	truncated := 0
	for _, l := range lints {
		if l.Code != LintTruncated {
			t.Errorf("unexpected lint %v", l)
		}
		truncated++
	}
	if truncated != 6 { // title, description, version, license, tag count, author count
		t.Fatalf("%d truncation lints, want 6: %v", truncated, lints)
	}
}

func TestParseMetadataCutsALongTagAndItsLint(t *testing.T) {
	m, lints := ParseMetadata([]byte("---\nname: n\ndescription: d\ntags: [" + strings.Repeat("abc ", 30) + "]\n---\n"))
	// "abc-abc-…" cut at 40 runes ends in '-', which goes too.
	want := strings.TrimSuffix(strings.Repeat("abc-", 10), "-")
	if !reflect.DeepEqual(m.Tags, []string{want}) {
		t.Fatalf("tags %q, want [%q]", m.Tags, want)
	}
	if got := lintCodes(lints); !reflect.DeepEqual(got, []string{LintTruncated}) {
		t.Fatalf("lints %v", lints)
	}
}

func lintCodes(lints []Lint) []string {
	var codes []string
	for _, l := range lints {
		codes = append(codes, l.Code)
	}
	return codes
}

func TestParseMetadataRepresentativeQueries(t *testing.T) {
	long := strings.Repeat("word ", 30)
	for _, c := range []struct {
		name, yaml string
		want       []string
		lints      []string // lint codes, in order
	}{
		{"list", "representativeQueries: [book a table for four, 'reserve dinner tonight']", []string{"book a table for four", "reserve dinner tonight"}, nil},
		{"block list, duplicates and blanks dropped", "representativeQueries:\n  - find a flight\n  - ''\n  - find a flight\n  - fly to Rome cheaply", []string{"find a flight", "fly to Rome cheaply"}, nil},
		{"one is too few but kept", "representativeQueries: [find a flight]", []string{"find a flight"}, []string{LintInvalidField}},
		{"six are cut to five", "representativeQueries: [a1, a2, a3, a4, a5, a6]", []string{"a1", "a2", "a3", "a4", "a5"}, []string{LintTruncated}},
		{"a long query is shortened", "representativeQueries: [" + long + ", short one]", []string{strings.TrimSpace(long[:MaxRepresentativeQueryRunes]), "short one"}, []string{LintTruncated}},
		{"a plain string is no list", "representativeQueries: book a table", nil, []string{LintInvalidField}},
		{"a mapping inside is ignored", "representativeQueries: [ok one, {task: x}]", nil, []string{LintInvalidField}},
		{"null is absent", "representativeQueries: ~", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, lints := ParseMetadata([]byte("---\nname: T\ndescription: D\n" + c.yaml + "\n---\n\nBody.\n"))
			if !reflect.DeepEqual(m.RepresentativeQueries, c.want) {
				t.Errorf("queries = %q, want %q", m.RepresentativeQueries, c.want)
			}
			var codes []string
			for _, l := range lints {
				if strings.Contains(l.Message, "representative") {
					codes = append(codes, l.Code)
				}
			}
			if !reflect.DeepEqual(codes, c.lints) {
				t.Errorf("lints = %v, want codes %v", lints, c.lints)
			}
		})
	}
}

// The task match's lean reader reads what ParseMetadata reads: lists in
// both YAML styles, extra and long queries cut, aliases, anything else
// ignored.
func TestRepresentativeQueriesAgrees(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, fm := range []string{
		"representativeQueries:\n  - reserve a table\n  - book dinner for two\n",
		"representativeQueries: [a, b, c, d, e, f, g]\n",
		"representativeQueries: [\"" + long + "\", short one]\n",
		"q: &q [one task, another task]\nrepresentativeQueries: *q\n",
		"representativeQueries: just one text\n",
		"representativeQueries: [[nested], 3]\n",
		"name: none\n",
		"representativeQueries: [unclosed\n",
	} {
		doc := []byte("---\n" + fm + "---\n\n# T\n\nBody.\n")
		m, _ := ParseMetadata(doc)
		if got := RepresentativeQueries(doc); !slices.Equal(got, m.RepresentativeQueries) {
			t.Errorf("%q: RepresentativeQueries %q, ParseMetadata %q", fm, got, m.RepresentativeQueries)
		}
	}
	if got := RepresentativeQueries([]byte("---\nrepresentativeQueries: [x, y]\n---\n")); len(got) != 2 {
		t.Errorf("a plain list reads %q", got)
	}
}
