package protocol

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
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
	// A protocol names 2 to 5 representative queries, each a short task.
	MinRepresentativeQueries    = 2
	MaxRepresentativeQueries    = 5
	MaxRepresentativeQueryRunes = 120
)

// Metadata describes a document. Title, Description and Multiround are the
// Agora Python SDK's front matter keys (Title from "name" or "title";
// Multiround as the SDK will send it, when it reads the document); the rest
// are the registry's own. Every text is valid UTF-8 without control
// characters and within the limits above.
type Metadata struct {
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Multiround  bool     `json:"multiround"`
	Tags        []string `json:"tags"`
	Version     string   `json:"version,omitempty"`
	Supersedes  *Digest  `json:"supersedes,omitempty"`
	Authors     []string `json:"authors,omitempty"`
	License     string   `json:"license,omitempty"`
	// RepresentativeQueries are tasks the protocol serves, in users' words
	// (front matter "representativeQueries"); task match searches them.
	RepresentativeQueries []string `json:"representativeQueries,omitempty"`
	// FrontMatter reports whether the Agora Python SDK can read the
	// document's YAML block (ReadLikeSDK): the API's sdkCompatible.
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
// Decoding into yaml.Node copies the parsed tree without expanding aliases,
// so an alias bomb costs no more than its own bytes.
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
	Queries     yaml.Node `yaml:"representativeQueries"`
}

// ParseMetadata reads a document's metadata. It never fails: problems become
// lints and the fallbacks (first "# heading", first paragraph) fill the gaps.
func ParseMetadata(doc []byte) (Metadata, []Lint) {
	return parseMetadata(doc, Given{})
}

// parseMetadata is ParseMetadata with what was given beside the document
// taking the place of the Markdown fallbacks.
func parseMetadata(doc []byte, given Given) (Metadata, []Lint) {
	var m Metadata
	var lints []Lint
	sdk := ReadLikeSDK(doc)
	sdkLint := sdkCannotRead(sdk)
	if sdkLint != nil {
		lints = append(lints, *sdkLint)
	}
	block, body, ok := SplitFrontMatter(doc)
	if ok {
		for _, l := range m.readFrontMatter(block) {
			if sdkLint == nil || l.Code != sdkLint.Code { // one lint says the YAML is bad
				lints = append(lints, l)
			}
		}
	}
	if m.Title == "" || m.Description == "" {
		heading, paragraph := markdownFallback(body)
		if m.Title == "" {
			m.Title = cmp.Or(cleanLine(given.Title), cleanLine(heading))
		}
		if m.Description == "" {
			m.Description = cmp.Or(cleanText(given.Description), cleanLine(paragraph))
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
	// What the SDK will send wins over the registry's stricter reading.
	if m.FrontMatter = sdk.Readable(); m.FrontMatter {
		m.Multiround = sdk.Multiround
		lints = append(lints, sdkFieldLints(sdk, m.Title)...)
	}
	return m, lints
}

func (m *Metadata) readFrontMatter(block []byte) []Lint {
	var fm frontMatter
	root, over, err := decodeFrontMatter(block)
	if over != nil {
		return []Lint{*over}
	}
	if err == nil && !root.IsZero() {
		err = root.Decode(&fm)
	}
	if err != nil {
		return []Lint{{LintInvalidFrontMatter, "the registry ignored the front matter, which is not a valid YAML mapping: " + yamlErrorText(err)}}
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
		return cleanLine(s)
	}
	m.Title = text(&fm.Name, "name")
	if m.Title == "" {
		m.Title = text(&fm.Title, "title")
	}
	if s, ok := scalarText(&fm.Description); ok {
		m.Description = cleanText(s)
	} else {
		bad("description", "text")
	}
	m.Version = text(&fm.Version, "version")
	m.License = text(&fm.License, "license")
	if n := resolveAlias(&fm.Multiround); !n.IsZero() {
		// A value that is no boolean is linted by what the SDK makes of it
		// (sdkFieldLints).
		if n.Kind != yaml.ScalarNode || n.Decode(&m.Multiround) != nil {
			m.Multiround = false
		}
	}
	if s, ok := scalarText(&fm.Supersedes); !ok || s != "" {
		if d, err := ParseDigest(s); ok && err == nil {
			m.Supersedes = &d
		} else {
			bad("supersedes", "the hash of the previous version (40 hex or 28 Base64 characters)")
		}
	}
	tags, ok := textList(&fm.Tags, true)
	if !ok {
		bad("tags", "a list of words")
	}
	var tagLints []Lint
	m.Tags, tagLints = normaliseTags(tags)
	lints = append(lints, tagLints...)
	authors, ok := textList(&fm.Authors, false)
	if !ok {
		bad("authors", "a name or a list of names")
	}
	for _, a := range authors {
		if a = cleanLine(a); a != "" {
			m.Authors = append(m.Authors, a)
		}
	}
	var queryLints []Lint
	m.RepresentativeQueries, queryLints = readQueries(&fm.Queries)
	return append(lints, queryLints...)
}

// readQueries reads representativeQueries: a list of 2 to 5 plain texts of
// at most MaxRepresentativeQueryRunes each. Extra queries are dropped and long ones cut,
// each with a lint; anything but a list of texts is ignored.
func readQueries(n *yaml.Node) ([]string, []Lint) {
	const field = "representativeQueries"
	if n = resolveAlias(n); n.IsZero() || n.Tag == "!!null" {
		return nil, nil
	}
	want := fmt.Sprintf("a list of %d to %d short tasks in plain words", MinRepresentativeQueries, MaxRepresentativeQueries)
	bad := []Lint{{LintInvalidField, fmt.Sprintf("front matter field %q should be %s; it was ignored", field, want)}}
	if n.Kind != yaml.SequenceNode {
		return nil, bad
	}
	var out []string
	var lints []Lint
	for _, item := range n.Content {
		s, ok := scalarText(item)
		if !ok {
			return nil, bad
		}
		if s = cleanLine(s); s == "" || slices.Contains(out, s) {
			continue
		}
		if utf8.RuneCountInString(s) > MaxRepresentativeQueryRunes {
			s = strings.TrimRightFunc(clipRunes(s, MaxRepresentativeQueryRunes), unicode.IsSpace)
			lints = append(lints, Lint{LintTruncated, fmt.Sprintf("a representative query is longer than %d characters and was shortened", MaxRepresentativeQueryRunes)})
		}
		out = append(out, s)
	}
	switch {
	case len(out) > MaxRepresentativeQueries:
		out = out[:MaxRepresentativeQueries]
		lints = append(lints, Lint{LintTruncated, fmt.Sprintf("only the first %d representative queries are kept", MaxRepresentativeQueries)})
	case len(out) < MinRepresentativeQueries:
		lints = append(lints, Lint{LintInvalidField, fmt.Sprintf("front matter field %q should list at least %d tasks; add another way a user would ask", field, MinRepresentativeQueries)})
	}
	return out, lints
}

// yamlErrorText is a YAML error fit for a lint: one line, no Go type names.
func yamlErrorText(err error) string {
	var typeErr *yaml.TypeError
	if errors.As(err, &typeErr) {
		return "it must be 'key: value' lines"
	}
	return clipRunes(cleanLine(strings.TrimPrefix(err.Error(), "yaml: ")), 200)
}

// resolveAlias follows an alias ("name: *anchor") to the node it names. One
// step is enough: an anchor cannot name an alias.
func resolveAlias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// scalarText reads a scalar node as text; an absent or null node is "" and
// ok; anything else (a list, a mapping) is not ok.
func scalarText(n *yaml.Node) (string, bool) {
	n = resolveAlias(n)
	switch {
	case n.IsZero() || n.Tag == "!!null":
		return "", true
	case n.Kind != yaml.ScalarNode:
		return "", false
	}
	return strings.TrimSpace(n.Value), true
}

// textList reads a list of scalars, or one scalar (split on commas when
// commaSplit is set, as "tags: a, b" is a common way to write tags).
func textList(n *yaml.Node, commaSplit bool) ([]string, bool) {
	n = resolveAlias(n)
	if n.Kind == yaml.SequenceNode {
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
	s, ok := scalarText(n)
	switch {
	case !ok || s == "":
		return nil, ok
	case commaSplit:
		return strings.Split(s, ","), true
	}
	return []string{s}, true
}

// RepresentativeQueries reads only a document's representativeQueries, as
// ParseMetadata does, at a third of its cost (one YAML decode, not the
// whole reading): the task match reads them from up to 20 candidates.
func RepresentativeQueries(doc []byte) []string {
	block, _, ok := SplitFrontMatter(doc)
	if !ok {
		return nil
	}
	root, over, err := decodeFrontMatter(block)
	if over != nil || err != nil || root.IsZero() {
		return nil
	}
	var fm struct {
		Queries yaml.Node `yaml:"representativeQueries"`
	}
	if root.Decode(&fm) != nil {
		return nil
	}
	qs, _ := readQueries(&fm.Queries)
	return qs
}
