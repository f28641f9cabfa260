package api

import (
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// ProtocolView is the JSON form of one entry. The digest spellings are
// plain strings ("hex", "base64"), which scripts rely on.
type ProtocolView struct {
	Hex         string   `json:"hex"`
	Base64      string   `json:"base64"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Multiround  bool     `json:"multiround"`
	Version     string   `json:"version,omitempty"`
	Supersedes  string   `json:"supersedes,omitempty"`
	Authors     []string `json:"authors,omitempty"`
	License     string   `json:"license,omitempty"`
	// RepresentativeQueries are the tasks the document says it serves;
	// set on the one-entry view (GET /api/v1/protocols/{hash}).
	RepresentativeQueries []string  `json:"representativeQueries,omitempty"`
	Size                  int       `json:"size"`
	CreatedAt             time.Time `json:"createdAt"`
	Origin                string    `json:"origin"`
	Publisher             string    `json:"publisher"`
	// Status is active, deprecated or withdrawn; a deprecation may carry
	// a message and the hash of a replacement.
	Status          string     `json:"status"`
	StatusMessage   string     `json:"statusMessage,omitempty"`
	Replacement     string     `json:"replacement,omitempty"`
	StatusChangedAt *time.Time `json:"statusChangedAt,omitempty"`
	// Superseded: a listed newer version by the same publisher exists;
	// search ranks the document after every live match.
	Superseded    bool            `json:"superseded"`
	Lints         []protocol.Lint `json:"lints"`
	Sources       []string        `json:"sources"`
	HTMLURL       string          `json:"htmlUrl"`
	SDKCompatible bool            `json:"sdkCompatible"`
	// DryRun is set on the answer of a publish with ?dryRun=true: nothing
	// was stored, and WouldCreate says whether publishing would add it.
	DryRun      bool    `json:"dryRun,omitempty"`
	WouldCreate *bool   `json:"wouldCreate,omitempty"`
	Content     *string `json:"content,omitempty"`
	// Versions is set on the one-entry view (GET /api/v1/protocols/{hash}).
	Versions *VersionsView `json:"versions,omitempty"`
	// Adoption over the last 30 days (signals.go): raw requests, the
	// distinct clients of each day summed (what sort=popular ranks by,
	// with agents), and the registered agents that speak it.
	Fetches     int64 `json:"fetches"`
	Resolutions int64 `json:"resolutions"`
	Clients     int64 `json:"clients"`
	Agents      int   `json:"agents"`
}

// VersionsView is a document's lineage split by publisher: newer are its
// publisher's successors, claims other publishers' documents that say they
// supersede it; supersedesClaim is set when the document it supersedes was
// published by another publisher.
type VersionsView struct {
	Newer           []VersionRef `json:"newer"`
	Claims          []VersionRef `json:"claims"`
	SupersedesClaim bool         `json:"supersedesClaim"`
}

// VersionRef names one document of a lineage.
type VersionRef struct {
	Hex       string `json:"hex"`
	Title     string `json:"title"`
	Publisher string `json:"publisher"`
}

func versionsView(v registry.Versions) *VersionsView {
	refs := func(es []entity.Entry) []VersionRef {
		out := make([]VersionRef, 0, len(es))
		for _, e := range es {
			out = append(out, VersionRef{Hex: e.Digest.Hex(), Title: e.Metadata.Title, Publisher: e.Publisher})
		}
		return out
	}
	return &VersionsView{Newer: refs(v.Newer), Claims: refs(v.Claims), SupersedesClaim: v.OlderByAnother}
}

func protocolView(svc *registry.Service, e entity.Entry) ProtocolView {
	m := e.Metadata
	v := ProtocolView{
		Hex: e.Digest.Hex(), Base64: e.Digest.Base64(),
		Title: m.Title, Description: m.Description, Tags: store.NonNil(m.Tags), Multiround: m.Multiround,
		Version: m.Version, Authors: m.Authors, License: m.License, RepresentativeQueries: m.RepresentativeQueries,
		Size: e.Size, CreatedAt: e.CreatedAt.UTC(), Origin: e.Origin, Publisher: e.Publisher,
		Lints: e.Lints, Sources: svc.Sources(e.Digest), HTMLURL: svc.PageURL(e.Digest),
		SDKCompatible: m.FrontMatter, Superseded: e.Superseded(),
	}
	v.Lints = store.NonNil(v.Lints)
	if m.Supersedes != nil {
		v.Supersedes = m.Supersedes.Hex()
	}
	v.Status, v.StatusMessage, v.StatusChangedAt = string(e.Status()), e.Lifecycle.Message, e.Lifecycle.ChangedAt
	if r := e.Lifecycle.Replacement; r != nil {
		v.Replacement = r.Hex()
	}
	if e.Content != nil {
		s := string(e.Content)
		v.Content = &s
	}
	return v
}
