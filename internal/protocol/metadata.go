package protocol

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Metadata limits. Longer values are cut and flagged with a lint, so a
// document is never refused for its metadata alone.
const (
	MaxTitleRunes       = 200
	MaxDescriptionRunes = 2000
	MaxTags             = 20
	MaxTagRunes         = 40
	MaxAuthors          = 20
	MaxShortFieldRunes  = 200
)

// Metadata describes a document. Title, Description and Multiround are the
// Agora Python SDK's front matter keys (Title from "name" or "title"); the
// rest are the registry's own.
type Metadata struct {
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Multiround  bool     `json:"multiround"`
	Tags        []string `json:"tags"`
	Version     string   `json:"version,omitempty"`
	Supersedes  *Digest  `json:"supersedes,omitempty"`
	Authors     []string `json:"authors,omitempty"`
	License     string   `json:"license,omitempty"`
	// FrontMatter reports whether the document starts with a YAML block the
	// SDK can read.
	FrontMatter bool `json:"frontMatter"`
}

// Lint is a non-fatal finding about a document, shown in API and HTML.
type Lint struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Lint codes.
const (
	LintNoFrontMatter      = "no_front_matter"
	LintInvalidFrontMatter = "invalid_front_matter"
	LintMissingTitle       = "missing_title"
	LintMissingDescription = "missing_description"
	LintInvalidField       = "invalid_field"
	LintTruncated          = "truncated"
)

// frontMatter is what the YAML block may hold. Fields are decoded loosely
// (yaml.Node) so one wrong type spoils one field, not the whole block.
type frontMatter struct {
	Name        yaml.Node `yaml:"name"`
	Title       yaml.Node `yaml:"title"`
	Description yaml.Node `yaml:"description"`
	Multiround  yaml.Node `yaml:"multiround"`
	Tags        yaml.Node `yaml:"tags"`
	Version     yaml.Node `yaml:"version"`
	Supersedes  yaml.Node `yaml:"supersedes"`
	Authors     yaml.Node `yaml:"authors"`
	License     yaml.Node `yaml:"license"`
}

// ParseMetadata reads a document's metadata. It never fails: problems become
// lints and the fallbacks (first "# heading", first paragraph) fill the gaps.
func ParseMetadata(doc []byte) (Metadata, []Lint) {
	var m Metadata
	var lints []Lint
	block, body, ok := SplitFrontMatter(doc)
	if ok {
		m.FrontMatter = true
		lints = append(lints, m.readFrontMatter(block)...)
	} else {
		body = doc
		lints = append(lints, Lint{LintNoFrontMatter,
			"no YAML front matter (a block between '---' lines at the very start): the Agora Python SDK cannot read this document"})
	}
	if m.Title == "" || m.Description == "" {
		heading, paragraph := markdownFallback(body)
		if m.Title == "" {
			m.Title = heading
		}
		if m.Description == "" {
			m.Description = paragraph
		}
	}
	lints = append(lints, m.clip()...)
	if m.Title == "" {
		lints = append(lints, Lint{LintMissingTitle, "no title: add 'name:' to the front matter or a '# heading'"})
	}
	if m.Description == "" {
		lints = append(lints, Lint{LintMissingDescription, "no description: add 'description:' to the front matter"})
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	return m, lints
}

// SplitFrontMatter finds a YAML block that opens on the first line with
// "---" and closes with a line "---" (or "..."). It returns the block, the
// rest of the document, and whether a block was found.
func SplitFrontMatter(doc []byte) (block, body []byte, ok bool) {
	first, rest, found := cutLine(doc)
	if !found || string(bytes.TrimRight(first, " \t")) != "---" {
		return nil, doc, false
	}
	offset := 0
	for {
		line, after, more := cutLine(rest[offset:])
		trimmed := string(bytes.TrimRight(line, " \t"))
		if trimmed == "---" || trimmed == "..." {
			return rest[:offset], after, true
		}
		if !more {
			return nil, doc, false
		}
		offset += len(line) + lineBreakLen(rest[offset+len(line):])
	}
}

// cutLine splits at the first line break (\n or \r\n), without the break.
func cutLine(b []byte) (line, rest []byte, found bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	line = b[:i]
	rest = b[i+1:]
	return bytes.TrimSuffix(line, []byte("\r")), rest, true
}

func lineBreakLen(b []byte) int {
	switch {
	case bytes.HasPrefix(b, []byte("\r\n")):
		return 2
	case bytes.HasPrefix(b, []byte("\n")):
		return 1
	}
	return 0
}

func (m *Metadata) readFrontMatter(block []byte) []Lint {
	var fm frontMatter
	if err := yaml.Unmarshal(block, &fm); err != nil {
		m.FrontMatter = false
		return []Lint{{LintInvalidFrontMatter, "the front matter is not a YAML mapping the Agora Python SDK can read: " + yamlErrorText(err)}}
	}
	var lints []Lint
	bad := func(field, want string) {
		lints = append(lints, Lint{LintInvalidField, fmt.Sprintf("front matter field %q should be %s; it was ignored", field, want)})
	}
	text := func(n *yaml.Node, field string) string {
		s, ok := scalarText(n)
		if !ok {
			bad(field, "text")
		}
		return s
	}
	m.Title = text(&fm.Name, "name")
	if m.Title == "" {
		m.Title = text(&fm.Title, "title")
	}
	m.Description = text(&fm.Description, "description")
	m.Version = text(&fm.Version, "version")
	m.License = text(&fm.License, "license")
	if !fm.Multiround.IsZero() {
		// Decoding into a bool accepts YAML 1.1 spellings (yes/no/on/off),
		// which the SDK's PyYAML reads as booleans too.
		if err := fm.Multiround.Decode(&m.Multiround); err != nil {
			bad("multiround", "true or false")
		}
	}
	if !fm.Supersedes.IsZero() {
		s, _ := scalarText(&fm.Supersedes)
		if d, err := ParseDigest(s); err == nil {
			m.Supersedes = &d
		} else {
			bad("supersedes", "the hash of the previous version")
		}
	}
	var ok bool
	if m.Tags, ok = textList(&fm.Tags, true); !ok {
		bad("tags", "a list of words")
	}
	m.Tags = normaliseTags(m.Tags)
	if m.Authors, ok = textList(&fm.Authors, false); !ok {
		bad("authors", "a name or a list of names")
	}
	return lints
}

func yamlErrorText(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "yaml: ")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// scalarText reads a scalar node as text; an absent node is "" and ok.
func scalarText(n *yaml.Node) (string, bool) {
	if n.IsZero() {
		return "", true
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", n.Tag == "!!null"
	}
	return strings.TrimSpace(n.Value), true
}

// textList reads a list of scalars, or one scalar (split on commas when
// commaSplit is set, as "tags: a, b" is a common way to write tags).
func textList(n *yaml.Node, commaSplit bool) ([]string, bool) {
	if n.IsZero() {
		return nil, true
	}
	switch n.Kind {
	case yaml.ScalarNode:
		s, ok := scalarText(n)
		if !ok || s == "" {
			return nil, ok
		}
		if commaSplit {
			return strings.Split(s, ","), true
		}
		return []string{s}, true
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, item := range n.Content {
			s, ok := scalarText(item)
			if !ok {
				return nil, false
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, false
}

// normaliseTags lower-cases, trims and de-duplicates tags, replacing inner
// whitespace with '-', so "Weather Data" and "weather-data" are one tag.
func normaliseTags(tags []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		t = strings.Join(strings.FieldsFunc(t, unicode.IsSpace), "-")
		t = strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' || r == '+' {
				return r
			}
			return -1
		}, t)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// NormaliseTags applies the tag rules to tags given outside a document (for
// example beside it in a publish request).
func NormaliseTags(tags []string) []string {
	out := normaliseTags(tags)
	for i, t := range out {
		out[i] = clipRunes(t, MaxTagRunes)
	}
	if len(out) > MaxTags {
		out = out[:MaxTags]
	}
	return out
}

// clip enforces the metadata limits.
func (m *Metadata) clip() []Lint {
	var lints []Lint
	cut := func(s *string, max int, field string) {
		if utf8.RuneCountInString(*s) > max {
			*s = clipRunes(*s, max)
			lints = append(lints, Lint{LintTruncated, fmt.Sprintf("%s is longer than %d characters and was shortened", field, max)})
		}
	}
	cut(&m.Title, MaxTitleRunes, "the title")
	cut(&m.Description, MaxDescriptionRunes, "the description")
	cut(&m.Version, MaxShortFieldRunes, "the version")
	cut(&m.License, MaxShortFieldRunes, "the license")
	if len(m.Tags) > MaxTags {
		m.Tags = m.Tags[:MaxTags]
		lints = append(lints, Lint{LintTruncated, fmt.Sprintf("only the first %d tags are kept", MaxTags)})
	}
	for i := range m.Tags {
		cut(&m.Tags[i], MaxTagRunes, "a tag")
	}
	if len(m.Authors) > MaxAuthors {
		m.Authors = m.Authors[:MaxAuthors]
		lints = append(lints, Lint{LintTruncated, fmt.Sprintf("only the first %d authors are kept", MaxAuthors)})
	}
	for i := range m.Authors {
		cut(&m.Authors[i], MaxShortFieldRunes, "an author")
	}
	return lints
}

func clipRunes(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

// markdownFallback finds the first level-one ATX heading and the first
// paragraph of prose (outside code fences; not a heading, list, quote or
// table).
func markdownFallback(body []byte) (heading, paragraph string) {
	var para []string
	inFence := false
	for _, raw := range strings.Split(string(body), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inFence = !inFence
			line = ""
		}
		prose := !inFence && line != "" && !strings.HasPrefix(line, "#") && !isBlockMarker(line)
		if prose && paragraph == "" {
			para = append(para, line)
			continue
		}
		if len(para) > 0 && paragraph == "" {
			paragraph = strings.Join(para, " ")
		}
		if heading == "" && !inFence && (strings.HasPrefix(line, "# ") || line == "#") {
			heading = strings.TrimSpace(strings.TrimRight(strings.TrimPrefix(line, "#"), "# "))
		}
		if heading != "" && paragraph != "" {
			break
		}
	}
	if paragraph == "" && len(para) > 0 {
		paragraph = strings.Join(para, " ")
	}
	return heading, paragraph
}

func isBlockMarker(line string) bool {
	for _, p := range []string{"|", "- ", "* ", "+ ", ">", "<", "---", "***", "==="} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}
