package entity

import (
	"time"

	"github.com/agora-registry/registry/internal/protocol"
)

// AgentProtocol is one hash an agent lists as supported, with the sources
// it gives for the document.
type AgentProtocol struct {
	Digest  protocol.Digest
	Sources []string
}

// AgentCrawl is an agent's state after a good crawl, in every dialect it
// speaks: the Agora well-known list (the fields up to Unsupported;
// WellKnownURL "" when it publishes none), its A2A agent card and its ARD
// manifest (nil when none), and how each dialect's last read went. A good
// crawl read at least one dialect; the directory carries over the last
// good data of a dialect whose read failed.
type AgentCrawl struct {
	Name         string
	Description  string
	Kinds        []string
	WellKnownURL string // the well-known URL that answered
	Supported    []AgentProtocol
	Unsupported  []protocol.Digest

	A2A *AgentCard
	ARD *AgentManifest
	// Agora, A2AState and ARDState are each dialect's last read.
	Agora, A2AState, ARDState DialectState
}

// Speaks reports whether c holds data of at least one dialect.
func (c AgentCrawl) Speaks() bool { return c.WellKnownURL != "" || c.A2A != nil || c.ARD != nil }

// Agent is a registered agent and the last good state its crawls read.
type Agent struct {
	ID           int64
	URL          string
	RegisteredAt time.Time
	// LastCrawled is the last crawl, good or not; LastSeen the last good
	// one. LastError is the last crawl's failure ("" after a good one) and
	// Failures counts failed crawls since the last good one.
	LastCrawled *time.Time
	LastSeen    *time.Time
	LastError   string
	Failures    int
	NextCrawl   time.Time
	AgentCrawl
	// SupportedCount and UnsupportedCount are the list lengths (list views
	// carry counts only; GetAgent fills the lists, the card and the
	// manifest too).
	SupportedCount, UnsupportedCount int
	// The A2A card's signature state ("" without a card), skill count and
	// the ARD manifest's entry count (-1 without a manifest), for list views.
	CardSignature                 string
	CardSkillCount, ARDEntryCount int
}

// Dialects names the dialects an agent's record holds data of: "agora",
// "a2a", "ard" (list views included).
func (a Agent) Dialects() []string {
	out := []string{}
	if a.WellKnownURL != "" {
		out = append(out, DialectAgora)
	}
	if a.CardSignature != "" {
		out = append(out, DialectA2A)
	}
	if a.ARDEntryCount >= 0 {
		out = append(out, DialectARD)
	}
	return out
}

// The dialects an agent may speak (AgentQuery.Dialect, Agent.Dialects).
const (
	DialectAgora = "agora"
	DialectA2A   = "a2a"
	DialectARD   = "ard"
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
