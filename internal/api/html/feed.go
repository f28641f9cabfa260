package html

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/store"
)

// feedEntries is how many protocols the Atom feed lists: the most recently
// published ones that match its filter.
const feedEntries = 50

// The Atom feed (RFC 4287) of new and changed protocols: the latest
// published documents, each updated when its status last changed, for
// the whole registry, one tag (?tag=) or one publisher (?publisher=).

type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Links   []atomLink  `xml:"link"`
	Author  atomPerson  `xml:"author"`
	Entries []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomEntry struct {
	ID         string         `xml:"id"`
	Title      string         `xml:"title"`
	Updated    string         `xml:"updated"`
	Published  string         `xml:"published"`
	Links      []atomLink     `xml:"link"`
	Author     atomPerson     `xml:"author"`
	Categories []atomCategory `xml:"category"`
	Summary    string         `xml:"summary"`
}

type atomCategory struct {
	Term string `xml:"term,attr"`
}

// feed answers GET /feed.atom.
func (p *Pages) feed(c echo.Context) error {
	ctx := c.Request().Context()
	tag, publisher := c.QueryParam("tag"), c.QueryParam("publisher")
	var (
		page  store.Page
		err   error
		title = "Agora Registry: new and changed protocols"
		self  = "/feed.atom"
	)
	switch {
	case publisher != "" && tag != "":
		return store.ErrInvalid.With("the feed takes one filter: tag or publisher")
	case publisher != "":
		page, err = p.svc.Catalog(ctx, store.CatalogQuery{Publisher: publisher, Limit: feedEntries})
		title += " by " + publisher
		self += "?publisher=" + url.QueryEscape(publisher)
	default:
		q := store.Query{Sort: store.SortNewest, Limit: feedEntries}
		if tag != "" {
			q.Tags = []string{tag}
			title += " tagged " + tag
			self += "?tag=" + url.QueryEscape(tag)
		}
		page, err = p.svc.Search(ctx, q)
	}
	if err != nil {
		return err
	}
	base := p.svc.PublicURL()
	f := atomFeed{ID: base + self, Title: title, Author: atomPerson{Name: "Agora Registry"},
		Links: []atomLink{{Rel: "self", Type: "application/atom+xml", Href: base + self}, {Rel: "alternate", Type: "text/html", Href: base + "/protocols"}}}
	var newest time.Time
	for _, e := range page.Entries {
		updated := e.CreatedAt
		if at := e.Lifecycle.ChangedAt; at != nil && at.After(updated) {
			updated = *at
		}
		if updated.After(newest) {
			newest = updated
		}
		title := e.Metadata.Title
		if title == "" {
			title = "Untitled protocol " + e.Digest.Hex()[:12]
		}
		summary := e.Metadata.Description
		if e.Deprecated() {
			title += " (deprecated)"
			if m := e.Lifecycle.Message; m != "" {
				summary = "Deprecated: " + m + "\n\n" + summary
			}
		}
		entry := atomEntry{
			ID: "urn:sha1:" + e.Digest.Hex(), Title: title, Summary: summary,
			Published: e.CreatedAt.UTC().Format(time.RFC3339), Updated: updated.UTC().Format(time.RFC3339),
			Author: atomPerson{Name: e.Publisher},
			Links: []atomLink{{Rel: "alternate", Type: "text/html", Href: p.svc.PageURL(e.Digest)},
				{Rel: "enclosure", Type: "text/markdown", Href: p.svc.Sources(e.Digest)[0]}},
		}
		for _, t := range e.Metadata.Tags {
			entry.Categories = append(entry.Categories, atomCategory{Term: t})
		}
		f.Entries = append(f.Entries, entry)
	}
	if newest.IsZero() {
		newest = time.Unix(0, 0)
	}
	f.Updated = newest.UTC().Format(time.RFC3339)
	out, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=60")
	return c.Blob(http.StatusOK, "application/atom+xml; charset=utf-8", append([]byte(xml.Header), out...))
}
