package html

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/param"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

type protocolPage struct {
	base
	Entry     entity.Entry
	Hex       string
	Base64    string
	Sources   []string
	RawURL    string
	Request   string // a ready Agora request using this protocol, as JSON
	UseIt     []snippet
	Rendered  template.HTML
	Older     *versionLink
	Newer     []versionLink
	Claims    []versionLink // other publishers' documents that claim to supersede this one
	Published string        // "new" or "existing" right after this browser's publish (flash.go)
	lifecycleParts
	Adoption *adoptionView // agents and usage (agents.go); nil when unavailable
}

type versionLink struct {
	Hex, Title string
	Known      bool   // the older version is stored here
	Publisher  string // shown for the older version only when another publisher published it
}

// setVersions turns the lineage into the page's links.
func (page *protocolPage) setVersions(v registry.Versions) {
	link := func(e entity.Entry) versionLink {
		return versionLink{Hex: e.Digest.Hex(), Title: displayTitle(e.Metadata.Title, e.Digest), Known: true, Publisher: e.Publisher}
	}
	if v.Older != nil {
		page.Older = &versionLink{Hex: v.Older.Hex(), Title: v.Older.Hex()}
		if v.OlderEntry != nil {
			page.Older = new(link(*v.OlderEntry))
		}
		if !v.OlderByAnother {
			page.Older.Publisher = ""
		}
	}
	for _, n := range v.Newer {
		page.Newer = append(page.Newer, link(n))
	}
	for _, c := range v.Claims {
		page.Claims = append(page.Claims, link(c))
	}
}

// agoraRequest is the body an Agora sender posts to a receiver.
type agoraRequest struct {
	ProtocolHash    string   `json:"protocolHash"`
	ProtocolSources []string `json:"protocolSources"`
	Body            string   `json:"body"`
	Multiround      bool     `json:"multiround,omitempty"`
}

// protocol answers GET /protocols/{hash}, with the hash in either spelling.
func (p *Pages) protocol(c echo.Context) error {
	if c.Param("*") == "" {
		return redirectToBrowse(c)
	}
	if prefix, err := store.ParseHashPrefix(c.Param("*")); err == nil && len(prefix.String()) < 2*protocol.DigestSize {
		return p.prefix(c, prefix)
	}
	d, err := param.PathHash(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	e, err := p.svc.Get(ctx, d, true)
	if err != nil {
		if errors.Is(err, store.ErrWithdrawn) {
			return p.withdrawn(c, e)
		}
		return err
	}
	e = p.svc.WithQueries(ctx, e)
	rendered, err := p.documents.Published(ctx, d, e.Content)
	if err != nil {
		return err
	}
	page := protocolPage{
		base:    base{Title: displayTitle(e.Metadata.Title, d), Meta: p.protocolMeta(e)},
		Entry:   e,
		Hex:     d.Hex(),
		Base64:  d.Base64(),
		Sources: p.svc.Sources(d),
		RawURL:  "/protocol/" + d.Hex(),
		// The sanitiser's output is the one string the template does not
		// escape: it is HTML by construction and contains no script.
		Rendered: template.HTML(rendered.HTML),
	}
	page.Entry.Lints = append(slices.Clip(e.Lints), rendered.Lints...)
	if c.Request().URL.Path == "/protocols/"+page.Hex {
		page.Published = p.takePublishedFlash(c, c.Request().URL.Path)
	}
	// The request uses the Base64 spelling because the deployed Python SDK
	// compares hashes as Base64 strings; spec v0.2 receivers take hex.
	req, err := json.MarshalIndent(agoraRequest{
		ProtocolHash: d.Base64(), ProtocolSources: page.Sources,
		Body: "…your request, in the format this protocol describes…", Multiround: e.Metadata.Multiround,
	}, "", "  ")
	if err != nil {
		return err
	}
	page.Request = string(req)
	page.UseIt = useIt(e, d, p.svc.Config().PublicURL, page.Sources)
	p.addLifecycle(ctx, &page)
	if v, err := p.svc.Versions(ctx, e); err == nil {
		page.setVersions(v)
	} else {
		p.log.Warn("listing versions failed", "hash", d.Hex(), "error", err)
	}
	page.Adoption = p.adoption(ctx, d)
	return p.render(c, http.StatusOK, "protocol", page)
}

// displayTitle names a document that has no title by its hash.
func displayTitle(t string, d protocol.Digest) string {
	if t != "" {
		return t
	}
	return "Untitled protocol " + d.Hex()[:12]
}

// protocolMeta describes a protocol page for search engines and link
// previews: the document's description, else a sentence naming it.
func (p *Pages) protocolMeta(e entity.Entry) *pageMeta {
	desc := e.Metadata.Description
	if desc == "" {
		desc = "An Agora protocol document, SHA-1 " + e.Digest.Hex() + "."
	}
	return &pageMeta{Description: desc, URL: p.svc.PageURL(e.Digest), NoIndex: e.Withdrawn()}
}
