package html

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// snippet is one "Use it" block of a protocol page: text to copy and a
// note saying which hash spelling it uses and why.
type snippet struct {
	ID    string // the element id its copy button names
	Name  string // what the copy button copies, for its accessible name
	Label string
	Note  string
	Text  string
}

// quoted is s as a double-quoted string literal. JSON's string syntax is
// also YAML's and, for the characters URLs and hashes hold, Python's, so
// a public URL with a quote or a backslash cannot break a snippet.
func quoted(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// useIt builds the snippets for a document served at sources (the first
// is this registry's raw URL) by the registry at publicURL.
func useIt(e entity.Entry, d protocol.Digest, publicURL string, sources []string) []snippet {
	raw := sources[0]
	hex := d.Hex()
	var list strings.Builder
	for i, s := range sources {
		if i > 0 {
			list.WriteString(", ")
		}
		list.WriteString(quoted(s))
	}
	python := fmt.Sprintf(`# pip install agora-protocol
from agora.sender.components.transporter import SimpleSenderTransporter

conversation = SimpleSenderTransporter().new_conversation(
    target="http://localhost:5000",  # the receiving agent
    multiround=%s,
    protocol_hash=%s,
    protocol_sources=[%s],
)
print(conversation("…your request, in the format this protocol describes…"))`,
		map[bool]string{true: "True", false: "False"}[e.Metadata.Multiround], quoted(d.Base64()), list.String())
	if e.Metadata.Multiround {
		python += "\nconversation.close()"
	}
	goSnippet := fmt.Sprintf(`// go get github.com/agora-registry/registry/agora
package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/agora-registry/registry/agora"
)

func main() {
	hash := %s
	reply, err := agora.Send(context.Background(), http.DefaultClient, "http://localhost:5000", agora.Outgoing{
		ProtocolHash:    &hash,
		ProtocolSources: []string{%s},
		Body:            "…your request, in the format this protocol describes…",
		Multiround:      %t,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(reply.Status, reply.Body)
}`, strconv.Quote(hex), goList(sources), e.Metadata.Multiround)
	return []snippet{
		{
			ID: "use-agent", Name: "agent.yaml entry", Label: "agent.yaml (reference agent)",
			Note: "Hex: the agent reads either spelling, and hex is spec v0.2's. Add this registry to registries: so the agent can fetch the document.",
			Text: fmt.Sprintf("protocols:\n  - hash: %s\n    sources:\n      - %s\n    routine:\n      exec:\n        command: ./answer  # reads the request body on stdin, prints the answer", hex, quoted(raw)),
		},
		{
			ID: "use-get", Name: "registry get command", Label: "Registry CLI",
			Note: "Hex: the CLI reads either spelling; hex needs no quoting in a shell (Base64 can hold '/' and '+'). It checks the bytes against the hash.",
			Text: fmt.Sprintf("registry get --server %s %s > %s.md", shellQuoted(publicURL), hex, hex),
		},
		{
			ID: "use-curl", Name: "curl command", Label: "curl",
			Note: "Hex: the raw URL is spec v0.2's, and sha1sum prints hex, so the two lines can be compared by eye.",
			Text: fmt.Sprintf("curl -fsS %s -o %s.md && sha1sum %s.md", shellQuoted(raw), hex, hex),
		},
		{
			ID: "use-go", Name: "Go snippet", Label: "Go (the agora module)",
			Note: "Hex: the module reads either spelling; Send posts one transaction to the receiving agent, which fetches and checks the document from these sources.",
			Text: goSnippet,
		},
		{
			ID: "use-python", Name: "Python SDK snippet", Label: "Python SDK (agora-protocol)",
			Note: "Base64: the SDK names protocols by the Base64 of their SHA-1 and compares hashes as strings; receivers that follow spec v0.2 take either.",
			Text: python,
		},
	}
}

// shellQuoted quotes s for a POSIX shell unless it is plainly safe (the
// usual http://host:port/path).
func shellQuoted(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(":/._-~%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// goList is sources as the elements of a Go string slice literal.
func goList(sources []string) string {
	quoted := make([]string, len(sources))
	for i, s := range sources {
		quoted[i] = strconv.Quote(s)
	}
	return strings.Join(quoted, ", ")
}
