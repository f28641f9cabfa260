package store

import (
	"encoding/json"
	"strings"
)

// Limits of the A2A and ARD dialects an agent record keeps. The crawler
// cuts what an agent publishes to them; the store refuses more.
const (
	MaxA2ASkills        = 100
	MaxA2AInterfaces    = 16
	MaxA2ASkillTags     = 32
	MaxA2ASkillExamples = 8
	MaxA2AShortRunes    = 200  // ids, names, tags, bindings, versions
	MaxA2ATextRunes     = 2000 // descriptions and examples
	MaxARDEntries       = 200
	MaxARDEntryTags     = 32 // tags, and apart capabilities, of one entry
)

// The signature states of an A2A card (AgentCard.Signature).
const (
	SignatureVerified = "verified" // a signature verified against a key its jku names
	SignatureUnsigned = "unsigned" // the card carries no signatures
	SignatureInvalid  = "invalid"  // signed, but no signature verified (SignatureReason says why)
)

// AgentCard is what the directory keeps of an agent's A2A agent card
// (/.well-known/agent-card.json).
type AgentCard struct {
	URL             string         `json:"url"` // where the card was read
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	Version         string         `json:"version"`
	Skills          []A2ASkill     `json:"skills"`
	Interfaces      []A2AInterface `json:"interfaces"`
	SkillCount      int            `json:"skillCount"` // skills the card lists, before the cut to MaxA2ASkills
	Signature       string         `json:"signature"`  // SignatureVerified, SignatureUnsigned or SignatureInvalid
	SignatureReason string         `json:"signatureReason"`
	SignatureKeyID  string         `json:"signatureKeyId"` // the kid of the key that verified
}

// A2ASkill is one skill of an A2A card.
type A2ASkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples"`
}

// A2AInterface is one interface of an A2A card: where and over which
// protocol binding (JSONRPC, GRPC, HTTP+JSON, …) the agent answers.
type A2AInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
}

// AgentManifest is what the directory keeps of an agent's ARD manifest
// (an ai-catalog document).
type AgentManifest struct {
	URL        string     `json:"url"` // where the manifest was read
	Host       string     `json:"host"`
	Entries    []ARDEntry `json:"entries"`
	EntryCount int        `json:"entryCount"` // entries the manifest lists, before the cut to MaxARDEntries
}

// ARDEntry is one catalog entry of an ARD manifest. URL is the entry's
// url; an entry carrying its document inline (data) has URL "" and
// Inline true.
type ARDEntry struct {
	Identifier   string   `json:"identifier"`
	DisplayName  string   `json:"displayName"`
	Type         string   `json:"type"`
	URL          string   `json:"url"`
	Inline       bool     `json:"inline"`
	Description  string   `json:"description"`
	Tags         []string `json:"tags"`
	Capabilities []string `json:"capabilities"`
	Version      string   `json:"version"`
}

// DialectState is how one dialect's last crawl of an agent went: Error is
// its failure ("" after a good read or when the agent does not publish
// it), Failures the failed reads in a row. A dialect that fails keeps its
// last good data until it has failed the directory's MaxFailures crawls.
type DialectState struct {
	Error    string
	Failures int
}

func checkCard(c AgentCard) error {
	bad := func(what string) error { return ErrInvalid.With("agent card: " + what) }
	switch {
	case len(c.URL) > MaxAgentURLBytes:
		return bad("URL too long")
	case !fitsRunes(c.Name, MaxAgentNameRunes) || !fitsRunes(c.Description, MaxAgentDescriptionRunes) || !fitsRunes(c.Version, MaxA2AShortRunes):
		return bad("name, description or version too long")
	case len(c.Skills) > MaxA2ASkills || len(c.Interfaces) > MaxA2AInterfaces:
		return bad("too many skills or interfaces")
	case c.Signature != SignatureVerified && c.Signature != SignatureUnsigned && c.Signature != SignatureInvalid:
		return bad("unknown signature state")
	case !fitsRunes(c.SignatureReason, MaxAgentErrorRunes) || !fitsRunes(c.SignatureKeyID, MaxA2AShortRunes):
		return bad("signature reason or key id too long")
	}
	for _, s := range c.Skills {
		if !fitsRunes(s.ID, MaxA2AShortRunes) || !fitsRunes(s.Name, MaxA2AShortRunes) || !fitsRunes(s.Description, MaxA2ATextRunes) ||
			!fitsAll(s.Tags, MaxA2ASkillTags, MaxA2AShortRunes) || !fitsAll(s.Examples, MaxA2ASkillExamples, MaxA2ATextRunes) {
			return bad("malformed skill")
		}
	}
	for _, i := range c.Interfaces {
		if len(i.URL) > MaxAgentURLBytes || !fitsRunes(i.ProtocolBinding, MaxA2AShortRunes) || !fitsRunes(i.ProtocolVersion, MaxA2AShortRunes) {
			return bad("malformed interface")
		}
	}
	return nil
}

func checkManifest(m AgentManifest) error {
	bad := func(what string) error { return ErrInvalid.With("ARD manifest: " + what) }
	if len(m.URL) > MaxAgentURLBytes || !fitsRunes(m.Host, MaxAgentNameRunes) || len(m.Entries) > MaxARDEntries {
		return bad("too long or too many entries")
	}
	for _, e := range m.Entries {
		if !fitsRunes(e.Identifier, MaxAgentURLBytes) || !fitsRunes(e.DisplayName, MaxAgentNameRunes) || !fitsRunes(e.Type, MaxA2AShortRunes) ||
			len(e.URL) > MaxAgentURLBytes || !fitsRunes(e.Description, MaxAgentDescriptionRunes) || !fitsRunes(e.Version, MaxA2AShortRunes) ||
			!fitsAll(e.Tags, MaxARDEntryTags, MaxA2AShortRunes) || !fitsAll(e.Capabilities, MaxARDEntryTags, MaxA2AShortRunes) {
			return bad("malformed entry")
		}
	}
	return nil
}

func fitsAll(list []string, n, runes int) bool {
	if len(list) > n {
		return false
	}
	for _, s := range list {
		if !fitsRunes(s, runes) {
			return false
		}
	}
	return true
}

// DialectJSON is a card or manifest as the engines store it: JSON, or nil
// for none.
func DialectJSON[T any](v *T) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// ParseDialect reads a stored card or manifest (nil or empty: none).
func ParseDialect[T any](raw []byte) (*T, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, err
	}
	return v, nil
}

// dialectText is the text of an agent's A2A card and ARD manifest that a
// text query matches: names, descriptions, skill names and tags.
func dialectText(c AgentCrawl) string {
	var b strings.Builder
	if a := c.A2A; a != nil {
		b.WriteString("\n" + a.Name + "\n" + a.Description)
		for _, s := range a.Skills {
			b.WriteString("\n" + s.Name + "\n" + strings.Join(s.Tags, " "))
		}
	}
	if m := c.ARD; m != nil {
		for _, e := range m.Entries {
			b.WriteString("\n" + e.DisplayName + "\n" + e.Description)
		}
	}
	return b.String()
}
