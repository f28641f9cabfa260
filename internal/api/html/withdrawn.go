package html

import (
	"net/http"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/labstack/echo/v4"
)

type withdrawnPage struct {
	base
	Hex         string
	Reason      string
	Replacement *versionLink  // the publisher's newest version, if any
	Others      []versionLink // its other newer versions
}

// withdrawn answers 410 for a withdrawn document: what it was, why it went
// and what replaces it (the newest newer version by the same publisher).
func (p *Pages) withdrawn(c echo.Context, e entity.Entry) error {
	page := withdrawnPage{
		base:   base{Title: "Withdrawn: " + displayTitle(e.Metadata.Title, e.Digest), Meta: p.protocolMeta(e)},
		Hex:    e.Digest.Hex(),
		Reason: e.WithdrawReason,
	}
	if v, err := p.svc.Versions(c.Request().Context(), e); err == nil && len(v.Newer) > 0 {
		var pp protocolPage
		pp.setVersions(v)
		newest := pp.Newer[len(pp.Newer)-1]
		page.Replacement, page.Others = &newest, pp.Newer[:len(pp.Newer)-1]
	} else if err != nil {
		p.log.Warn("listing versions failed", "hash", page.Hex, "error", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return p.render(c, http.StatusGone, "withdrawn", page)
}
