package html

import (
	"context"
	"errors"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// lifecycleParts is what a protocol page shows of its publisher and
// lifecycle (partial_lifecycle.html): the publisher with its badge, the
// deprecation's replacement and the version list.
type lifecycleParts struct {
	Publisher   entity.Publisher
	Replacement *versionLink
	Lineage     []lineageItem
}

type lineageItem struct {
	Hex, Title, Version         string
	Latest, Current, Deprecated bool
}

// addLifecycle fills the page's publisher and lifecycle parts. A part that
// cannot be read is left out (the document itself is still shown).
func (p *Pages) addLifecycle(ctx context.Context, page *protocolPage) {
	e := page.Entry
	page.Publisher = entity.Publisher{Name: e.Publisher}
	if pub, err := p.svc.Publisher(ctx, e.Publisher); err == nil {
		page.Publisher = pub
	} else if !errors.Is(err, store.ErrPublisherUnknown) {
		p.log.Warn("reading the publisher failed", "publisher", e.Publisher, "error", err)
	}
	if r := e.Lifecycle.Replacement; r != nil && e.Deprecated() {
		page.Replacement = &versionLink{Hex: r.Hex(), Title: r.Hex()}
		if re, err := p.svc.Get(ctx, *r, false); err == nil {
			page.Replacement.Title = displayTitle(re.Metadata.Title, re.Digest)
		}
	}
	v, err := p.svc.VersionList(ctx, e)
	if err != nil {
		p.log.Warn("listing the lineage failed", "hash", e.Digest.Hex(), "error", err)
		return
	}
	page.Lineage = lineageItems(v, e)
}

func lineageItems(v registry.VersionList, e entity.Entry) []lineageItem {
	out := make([]lineageItem, 0, len(v.Lineage))
	for i, l := range v.Lineage {
		out = append(out, lineageItem{Hex: l.Digest.Hex(), Title: displayTitle(l.Metadata.Title, l.Digest), Version: l.Metadata.Version,
			Latest: i == v.Latest, Current: l.Digest == e.Digest, Deprecated: l.Deprecated()})
	}
	return out
}
