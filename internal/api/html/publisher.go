package html

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

type publisherPage struct {
	base
	Publisher entity.Publisher
	Latest    bool
	Entries   []entity.Entry
	NextURL   string
	FirstURL  string
}

// publisher answers GET /publishers/{name}: the account and its
// documents, newest first (only lineage heads with ?latest=true).
func (p *Pages) publisher(c echo.Context) error {
	ctx := c.Request().Context()
	pub, err := p.svc.Publisher(ctx, c.Param("name"))
	if err != nil {
		return err
	}
	params := c.QueryParams()
	q := store.CatalogQuery{Publisher: pub.Name, LatestOnly: params.Get("latest") == "true", Cursor: params.Get("cursor")}
	res, err := p.svc.Catalog(ctx, q)
	if err != nil {
		return err
	}
	title := pub.DisplayName
	if title == "" {
		title = pub.Name
	}
	page := publisherPage{base: base{Title: title}, Publisher: pub, Latest: q.LatestOnly, Entries: res.Entries}
	if res.NextCursor != "" {
		page.NextURL = publisherURL(pub.Name, q.LatestOnly, res.NextCursor)
	}
	if q.Cursor != "" {
		page.FirstURL = publisherURL(pub.Name, q.LatestOnly, "")
	}
	return p.render(c, http.StatusOK, "publisher", page)
}

func publisherURL(name string, latest bool, cursor string) string {
	v := url.Values{}
	if latest {
		v.Set("latest", "true")
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	u := "/publishers/" + name
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return u
}

// browseByPublisher sends /protocols?publisher=NAME (no search words or
// tags) to the publisher's page, which lists its documents; with search
// words or tags it is refused until search takes the filter.
func browseByPublisher(c echo.Context) (handled bool, err error) {
	params := c.QueryParams()
	name := params.Get("publisher")
	if name == "" {
		return false, nil
	}
	if params.Get("q") != "" || len(params["tag"]) > 0 {
		return true, store.ErrInvalid.With("the publisher filter lists a publisher's protocols newest first; it does not combine with search words or tags yet")
	}
	if _, err := entity.PublisherOr(name); err != nil {
		return true, err
	}
	return true, c.Redirect(http.StatusSeeOther, publisherURL(name, params.Get("latest") == "true", ""))
}
