package html

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

type protocolPage struct {
	base
	Entry     store.Entry
	Hex       string
	Base64    string
	Sources   []string
	RawURL    string
	Request   string // a ready Agora request using this protocol, as JSON
	Rendered  template.HTML
	Older     *versionLink
	Newer     []versionLink
	Published string // "new" or "existing" right after this browser's publish (flash.go)
}

type versionLink struct {
	Hex, Title string
	Known      bool // the older version is stored here
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
	d, err := api.PathHash(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	e, err := p.svc.Get(ctx, d, true)
	if err != nil {
		if errors.Is(err, store.ErrWithdrawn) && e.WithdrawReason != "" {
			return p.RenderError(c, http.StatusGone, store.ErrWithdrawn.Code,
				"This protocol was withdrawn: "+e.WithdrawReason)
		}
		return err
	}
	rendered, err := p.markdown.Document(e.Content)
	if err != nil {
		return err
	}
	page := protocolPage{
		base:    base{Title: displayTitle(e.Metadata.Title, d)},
		Entry:   e,
		Hex:     d.Hex(),
		Base64:  d.Base64(),
		Sources: p.svc.Sources(d),
		RawURL:  "/protocol/" + d.Hex(),
		// The sanitiser's output is the one string the template does not
		// escape: it is HTML by construction and contains no script.
		Rendered: template.HTML(rendered),
	}
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
	if prev := e.Metadata.Supersedes; prev != nil {
		page.Older = &versionLink{Hex: prev.Hex(), Title: prev.Hex()}
		if old, err := p.svc.Get(ctx, *prev, false); err == nil || errors.Is(err, store.ErrWithdrawn) {
			page.Older.Known, page.Older.Title = true, displayTitle(old.Metadata.Title, *prev)
		}
	}
	if newer, err := p.svc.Successors(ctx, d); err == nil {
		for _, n := range newer {
			page.Newer = append(page.Newer, versionLink{Hex: n.Digest.Hex(), Title: displayTitle(n.Metadata.Title, n.Digest), Known: true})
		}
	} else {
		p.log.Warn("listing newer versions failed", "hash", d.Hex(), "error", err)
	}
	return p.render(c, http.StatusOK, "protocol", page)
}

// displayTitle names a document that has no title by its hash.
func displayTitle(t string, d protocol.Digest) string {
	if t != "" {
		return t
	}
	return "Untitled protocol " + d.Hex()[:12]
}
