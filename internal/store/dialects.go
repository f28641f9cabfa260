package store

import (
	"encoding/json"
	"strings"

	"github.com/agora-registry/registry/internal/entity"
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

func checkCard(c entity.AgentCard) error {
	bad := func(what string) error { return ErrInvalid.With("agent card: " + what) }
	switch {
	case len(c.URL) > MaxAgentURLBytes:
		return bad("URL too long")
	case !fitsRunes(c.Name, MaxAgentNameRunes) || !fitsRunes(c.Description, MaxAgentDescriptionRunes) || !fitsRunes(c.Version, MaxA2AShortRunes):
		return bad("name, description or version too long")
	case len(c.Skills) > MaxA2ASkills || len(c.Interfaces) > MaxA2AInterfaces:
		return bad("too many skills or interfaces")
	case c.Signature != entity.SignatureVerified && c.Signature != entity.SignatureUnsigned && c.Signature != entity.SignatureInvalid:
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

func checkManifest(m entity.AgentManifest) error {
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

// CrawlColumns are the values both engines store from a good crawl beside
// its text: Kinds never nil, Card and Manifest JSON text (nil: NULL), the
// card's signature and skill count, the manifest's entry count (-1: none).
type CrawlColumns struct {
	Kinds           []string
	Card, Manifest  any
	Signature       string
	Skills, Entries int
}

// CrawlColumnsOf derives c's CrawlColumns.
func CrawlColumnsOf(c entity.AgentCrawl) (CrawlColumns, error) {
	v := CrawlColumns{Kinds: NonNil(c.Kinds), Entries: -1}
	if c.A2A != nil {
		b, err := json.Marshal(c.A2A)
		if err != nil {
			return v, err
		}
		v.Card, v.Signature, v.Skills = string(b), c.A2A.Signature, c.A2A.SkillCount
	}
	if c.ARD != nil {
		b, err := json.Marshal(c.ARD)
		if err != nil {
			return v, err
		}
		v.Manifest, v.Entries = string(b), c.ARD.EntryCount
	}
	return v, nil
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
func dialectText(c entity.AgentCrawl) string {
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
