package api

import (
	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// Errors of the list filters and of publishing for another publisher.
var (
	errBadLatest = apperr.New(apperr.Invalid, "invalid_latest", "latest is true or false")
	// The publisher and latest filters list newest first; search (q, tag,
	// sort) does not take them yet.
	errFilterWithSearch = apperr.New(apperr.Invalid, "filter_not_combinable",
		"publisher= and latest= list newest first and cannot be combined with q, tag or sort")
	errNotYourPublisher = apperr.New(apperr.Forbidden, "not_your_publisher",
		"a token publishes as its own publisher; only an admin token may name another with ?publisher=")
)

// parseLatest reads ?latest= ("", true/false, 1/0).
func parseLatest(v string) (bool, error) {
	switch v {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	return false, errBadLatest
}

// listPage answers GET /api/v1/protocols: a search, or with publisher= or
// latest= the catalog.
func (s *Server) listPage(c echo.Context) (store.Page, error) {
	qp := c.QueryParams()
	latest, err := parseLatest(qp.Get("latest"))
	if err != nil {
		return store.Page{}, err
	}
	publisher := qp.Get("publisher")
	if !isCatalog(c) {
		q, err := searchQuery(c)
		if err != nil {
			return store.Page{}, err
		}
		return s.svc.Search(c.Request().Context(), q)
	}
	if qp.Get("q") != "" || len(qp["tag"]) > 0 || (qp.Get("sort") != "" && qp.Get("sort") != string(store.SortNewest)) {
		return store.Page{}, errFilterWithSearch
	}
	q := store.CatalogQuery{Publisher: publisher, LatestOnly: latest, Cursor: qp.Get("cursor")}
	if q.Limit, err = limitParam(qp.Get("limit")); err != nil {
		return store.Page{}, err
	}
	return s.svc.Catalog(c.Request().Context(), q)
}

// isCatalog reports whether a listing is the catalog's (?publisher= or
// ?latest=true) rather than a search.
func isCatalog(c echo.Context) bool {
	latest, _ := parseLatest(c.QueryParam("latest"))
	return c.QueryParam("publisher") != "" || latest
}

// publishAs is the publisher a publish records: the token's, or with
// ?publisher=NAME another one, for an admin token.
func (s *Server) publishAs(c echo.Context) (string, error) {
	name := c.QueryParam("publisher")
	own := Publisher(c)
	if name == "" || name == own {
		return own, nil
	}
	if !registry.CanActFor(token(c), name) {
		return "", errNotYourPublisher
	}
	if _, err := s.svc.Publisher(c.Request().Context(), name); err != nil {
		return "", err
	}
	return name, nil
}
