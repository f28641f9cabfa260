package protocol

import "fmt"

// Lint codes about what the Agora Python SDK makes of a document. A
// document it cannot read at all gets no_front_matter or
// invalid_front_matter.
const (
	LintSDKName        = "sdk_name"
	LintSDKDescription = "sdk_description"
	LintSDKMultiround  = "sdk_multiround"
	LintSDKUnchecked   = "sdk_unchecked"
)

// sdkCannotRead is the lint of a document the SDK cannot read, nil if it
// reads it. It comes first among a document's lints.
func sdkCannotRead(r SDKReading) *Lint {
	switch {
	case r.Unchecked:
		return &Lint{LintSDKUnchecked, fmt.Sprintf(
			"the YAML block the SDK reads (between the first two '---') is over %d KiB: the registry does not check what the SDK makes of it", MaxSDKBlockBytes>>10)}
	case !r.Found:
		return &Lint{LintNoFrontMatter,
			"no YAML front matter (a block between two '---' lines): the SDK cannot read this document"}
	case r.Problem != "":
		return &Lint{LintInvalidFrontMatter, "the SDK cannot read this document: " + r.Problem}
	}
	return nil
}

// sdkFieldLints say where the SDK's name, description and multiround
// differ from what a reader expects (and from the registry's title).
func sdkFieldLints(r SDKReading, registryTitle string) []Lint {
	var lints []Lint
	add := func(code, format string, args ...any) {
		lints = append(lints, Lint{code, fmt.Sprintf(format, args...)})
	}
	switch {
	case r.Name.Default:
		add(LintSDKName, "the SDK will call this document %q: it reads the name only from 'name:' in the YAML block", SDKDefaultName)
	case r.Name.Kind != "text":
		add(LintSDKName, "the SDK will read name as %s, not text: quote it", r.Name.describe())
	case CleanTitle(r.Name.Text) != registryTitle:
		add(LintSDKName, "the SDK will name this %s (the registry shows %s)", quoteClipped(r.Name.Text), quoteClipped(registryTitle))
	}
	// A missing description is not linted: the SDK's default only reaches
	// its LLM, and most documents describe themselves in prose.
	if !r.Description.Default && r.Description.Kind != "text" {
		add(LintSDKDescription, "the SDK will read description as %s, not text: quote it", r.Description.describe())
	}
	if v := r.MultiroundValue; v.Kind != "boolean" {
		if r.Multiround {
			add(LintSDKMultiround, "the SDK will send multiround: true: it reads multiround as %s, which Python counts as true; write true or false", v.describe())
		} else {
			add(LintSDKMultiround, "the SDK will not send multiround (one round): it reads multiround as %s, which Python counts as false; write true or false", v.describe())
		}
	}
	return lints
}

// describe is a value as a lint shows it: `the text "x"`, `the number 8`,
// `null (no value)`, `a list`.
func (v SDKValue) describe() string {
	switch {
	case v.Kind == "null":
		return "null (no value)"
	case v.Text == "":
		return a(v.Kind)
	case v.Kind == "text":
		return "the text " + quoteClipped(v.Text)
	}
	return "the " + v.Kind + " " + clipRunes(cleanLine(v.Text), 80)
}

func quoteClipped(s string) string {
	return `"` + clipRunes(cleanLine(s), 80) + `"`
}
