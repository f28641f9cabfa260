package agora

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The tags the SDK's SenderNegotiator looks for in its model's message.
const (
	FinalProtocolStart = "<FINALPROTOCOL>"
	FinalProtocolEnd   = "</FINALPROTOCOL>"
)

// ExtractFinalProtocol finds the agreed document in a negotiator's
// message as the SDK does (agora/utils.py extract_substring): the text
// between the first FinalProtocolStart and the next FinalProtocolEnd,
// tags matched without regard to case, surrounding white space removed.
// ok is false when either tag is missing.
func ExtractFinalProtocol(message string) (doc string, ok bool) {
	start := indexFold(message, FinalProtocolStart, 0)
	if start < 0 {
		return "", false
	}
	from := start + len(FinalProtocolStart)
	end := indexFold(message, FinalProtocolEnd, from)
	if end < 0 {
		return "", false
	}
	return strings.TrimSpace(message[from:end]), true
}

// indexFold is strings.Index from byte offset from, ASCII letters matched
// without regard to case. (strings.ToLower may change byte lengths, which
// would shift offsets; the tags are ASCII.)
func indexFold(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// ProtocolMeta is what the SDK reads from a document's front matter.
type ProtocolMeta struct {
	Name        string
	Description string
	Multiround  bool
}

// The SDK's defaults for missing keys (agora/utils.py extract_metadata).
const (
	defaultProtocolName        = "Unnamed protocol"
	defaultProtocolDescription = "No description provided"
)

// ErrNoFrontMatter means a document has no "---" block the SDK could read.
var ErrNoFrontMatter = newError(KindInvalid, "no_front_matter", `the document has no front matter (a YAML block between "---" lines with name, description and multiround)`)

// maxFrontMatterBytes bounds the YAML block parsed: real front matter is a
// few lines, and the parser's memory grows with what it holds.
const maxFrontMatterBytes = 64 << 10

// ParseProtocolMeta reads name, description and multiround as the SDK
// does: the YAML between the first "---" and the next, missing keys taking
// the SDK's defaults. A document the SDK could not read is an error.
func ParseProtocolMeta(doc []byte) (ProtocolMeta, error) {
	start := bytes.Index(doc, []byte("---"))
	if start < 0 {
		return ProtocolMeta{}, ErrNoFrontMatter
	}
	end := bytes.Index(doc[start+3:], []byte("---"))
	if end < 0 {
		return ProtocolMeta{}, ErrNoFrontMatter
	}
	block := doc[start+3 : start+3+end]
	if len(block) > maxFrontMatterBytes {
		return ProtocolMeta{}, ErrNoFrontMatter.With(fmt.Sprintf("the front matter is over %d bytes", maxFrontMatterBytes))
	}
	var fields map[string]any
	if err := yaml.Unmarshal(block, &fields); err != nil || fields == nil {
		return ProtocolMeta{}, ErrNoFrontMatter.With("the front matter is not a YAML mapping")
	}
	m := ProtocolMeta{Name: defaultProtocolName, Description: defaultProtocolDescription}
	if v, ok := fields["name"]; ok {
		m.Name = fmt.Sprint(v)
	}
	if v, ok := fields["description"]; ok {
		m.Description = fmt.Sprint(v)
	}
	m.Multiround = truthy(fields["multiround"])
	return m, nil
}

// truthy is Python's truth value of a YAML scalar, as the SDK's Sender
// tests multiround.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case int:
		return v != 0
	case float64:
		return v != 0
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}
