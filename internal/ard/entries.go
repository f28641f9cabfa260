package ard

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// Namespaces of this registry's identifiers: urn:air:<publisher>:<ns>:<name>.
const (
	nsProtocol = "agora-protocol" // <registry host>:agora-protocol:<sha1 hex>
	nsAgent    = "agora-agent"    // <agent host>:agora-agent:<scheme>[-<port>]
	nsRegistry = "agora-registry" // <registry host>:agora-registry:ard
)

// publisherRE is the spec's <publisher> segment (a domain name or IPv4).
var publisherRE = regexp.MustCompile(`^[a-zA-Z0-9.-]{1,253}$`)

// URNRE is the identifier pattern of the spec's JSON schema.
var URNRE = regexp.MustCompile(`^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$`)

// hostPublisher is the URN publisher of a URL's host, or "" when the
// host cannot be one (an IPv6 literal, a name with '_').
func hostPublisher(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	h := strings.ToLower(u.Hostname())
	if !publisherRE.MatchString(h) {
		return ""
	}
	return h
}

// AgentIdentifier is the URN of the agent at an origin (as the directory
// spells it): the host is the publisher, the scheme and a port other than
// the default name it, so the same agent has the same URN in every
// registry. ok is false for hosts a URN cannot carry.
func AgentIdentifier(origin string) (id string, ok bool) {
	u, err := url.Parse(origin)
	if err != nil {
		return "", false
	}
	pub := hostPublisher(origin)
	if pub == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	name := u.Scheme
	if p := u.Port(); p != "" {
		name += "-" + p
	}
	return "urn:air:" + pub + ":" + nsAgent + ":" + name, true
}

// parsedURN is an identifier this registry may hold.
type parsedURN struct {
	publisher, namespace, name string
}

func parseURN(id string) (parsedURN, bool) {
	if len(id) > 512 || len(id) < 8 || !strings.EqualFold(id[:8], "urn:air:") {
		return parsedURN{}, false
	}
	parts := strings.Split(id[8:], ":")
	if len(parts) != 3 {
		return parsedURN{}, false
	}
	return parsedURN{publisher: strings.ToLower(parts[0]), namespace: parts[1], name: parts[2]}, true
}

// agentOrigin is the origin an agent URN names, spelled as the directory
// spells it, or "" when the URN is no canonical agent URN.
func agentOrigin(u parsedURN) string {
	if u.namespace != nsAgent {
		return ""
	}
	scheme, port, _ := strings.Cut(u.name, "-")
	if scheme != "http" && scheme != "https" {
		return ""
	}
	origin := scheme + "://" + u.publisher
	if port != "" {
		if _, err := strconv.Atoi(port); err != nil {
			return ""
		}
		origin += ":" + port
	}
	if canon, err := directory.Origin(origin); err != nil || canon != origin {
		return "" // another spelling of an origin: no URN of ours
	}
	return origin
}

// ProtocolEntry is a protocol document as a catalog entry: the raw
// document by reference, its front matter as the entry's fields.
func ProtocolEntry(base, publisher string, e entity.Entry) Entry {
	hex := e.Digest.Hex()
	name := e.Metadata.Title
	if name == "" {
		name = "Protocol " + hex[:12]
	}
	out := Entry{
		Identifier:            "urn:air:" + publisher + ":" + nsProtocol + ":" + hex,
		DisplayName:           name,
		Type:                  TypeProtocol,
		URL:                   base + "/protocol/" + hex,
		Description:           e.Metadata.Description,
		Tags:                  e.Metadata.Tags,
		RepresentativeQueries: representativeQueries(e.Metadata),
		Version:               e.Metadata.Version,
		Metadata: map[string]any{
			"sha1": hex, "publisher": e.Publisher, "status": string(e.Lifecycle.Status),
			"page": base + "/protocols/" + hex, "multiround": e.Metadata.Multiround,
		},
	}
	if !e.CreatedAt.IsZero() {
		out.UpdatedAt = e.CreatedAt.UTC().Format(time.RFC3339)
	}
	return out
}

// maxAgentTags bounds the tags an agent entry gathers from its skills.
const maxAgentTags = 20

// AgentEntry is a directory agent as a catalog entry: the one place an
// agent record becomes ARD, so what the crawl learns later (A2A skills)
// is added here. The entry points at the well-known list the crawl read;
// the hashes it speaks are its capabilities when the record carries its
// lists. ok is false for an agent whose host no URN can carry.
func AgentEntry(a entity.Agent) (Entry, bool) {
	id, ok := AgentIdentifier(a.URL)
	if !ok {
		return Entry{}, false
	}
	name := a.Name
	if name == "" {
		name = hostPublisher(a.URL)
	}
	target := a.WellKnownURL
	if target == "" {
		target = a.URL
	}
	out := Entry{
		Identifier: id, DisplayName: name, Type: TypeAgent, URL: target,
		Description: a.Description, Tags: a.Kinds,
		Metadata: map[string]any{"origin": a.URL, "speaks": max(a.SupportedCount, len(a.Supported))},
	}
	for _, p := range a.Supported[:min(len(a.Supported), maxCapabilities)] {
		out.Capabilities = append(out.Capabilities, p.Digest.Hex())
	}
	out.Metadata["dialects"] = strings.Join(a.Dialects(), ",") // metadata values are scalars
	if a.CardSignature != "" {
		out.Metadata["cardSignature"] = a.CardSignature
	}
	if c := a.A2A; c != nil { // filled for one agent (GetAgent), not in lists
		if out.DisplayName == hostPublisher(a.URL) && c.Name != "" {
			out.DisplayName = c.Name
		}
		if out.Description == "" {
			out.Description = c.Description
		}
		// A skill's examples are the tasks the agent says it serves.
		for _, sk := range c.Skills {
			for _, tag := range sk.Tags {
				if len(out.Tags) < maxAgentTags && !slices.Contains(out.Tags, tag) {
					out.Tags = append(out.Tags, tag)
				}
			}
			for _, ex := range sk.Examples {
				if len(out.RepresentativeQueries) < 5 {
					out.RepresentativeQueries = append(out.RepresentativeQueries, ex)
				}
			}
		}
	}
	if a.LastSeen != nil {
		out.UpdatedAt = a.LastSeen.UTC().Format(time.RFC3339)
	}
	return out, true
}

// representativeQueries are 2 to 5 short queries a protocol answers: its
// front matter's representativeQueries when the entry carries them (one
// lookup reads them; listings do not), else derived from its title,
// description and tags.
func representativeQueries(m protocol.Metadata) []string {
	if len(m.RepresentativeQueries) > 0 {
		return m.RepresentativeQueries
	}
	var out []string
	add := func(q string) {
		q = strings.Join(strings.Fields(q), " ")
		if utf8.RuneCountInString(q) > 120 {
			q = string([]rune(q)[:120])
		}
		for _, have := range out {
			if strings.EqualFold(have, q) {
				return
			}
		}
		if q != "" && len(out) < 5 {
			out = append(out, q)
		}
	}
	add(m.Title)
	if sentence, _, _ := strings.Cut(m.Description, "."); sentence != "" {
		add(sentence)
	}
	add(strings.Join(m.Tags[:min(len(m.Tags), 3)], " "))
	if len(out) < 2 {
		return nil // the spec's schema wants 2 to 5
	}
	return out
}

// isDigestHex reports whether s is a SHA-1 in lower-case hex.
func isDigestHex(s string) (protocol.Digest, bool) {
	if len(s) != 40 || strings.ToLower(s) != s {
		return protocol.Digest{}, false
	}
	d, err := protocol.ParseDigest(s)
	return d, err == nil
}
