package api

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/ard"
)

// ARDBase is where the ARD registry API is served.
const ARDBase = "/ard"

// SkippedPeersHeader counts the followed registries a federated search
// asked that gave no usable answer (the response body has no room for it).
const SkippedPeersHeader = "Agora-ARD-Skipped-Peers"

// WithFederation lets ARD searches ask, and refer to, the registries this
// one follows.
func WithFederation(f *ard.Federation) Option { return func(s *Server) { s.fed = f } }

func (s *Server) ardRoutes() {
	var agents ard.Agents
	if s.directory != nil {
		agents = s.directory
	}
	s.ard = ard.New(s.svc, agents, s.fed)
	e := s.echo
	e.GET("/.well-known/ard.json", s.ardManifest)
	e.GET("/.well-known/ai-catalog.json", s.ardManifest)
	g := e.Group(ARDBase)
	g.GET("/agents", s.ardList)
	g.GET("/agents/:identifier", s.ardLookup)
	// The ARD cap comes before the heavy gate, which buffers the body.
	g.POST("/search", s.ardSearch, limitARDBody, s.heavy.middleware)
	g.POST("/explore", s.ardExplore, limitARDBody, s.heavy.middleware)
}

func (s *Server) ardManifest(c echo.Context) error {
	m, err := s.ard.Manifest(c.Request().Context(), c.QueryParam("pageToken"))
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return writeJSON(c, http.StatusOK, m)
}

func (s *Server) ardList(c echo.Context) error {
	size := 0
	if v := c.QueryParam("pageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return ard.ErrInvalid.With("pageSize is a number")
		}
		size = n
	}
	q := c.QueryParams()
	out, err := s.ard.List(c.Request().Context(), q.Get("filter"), q.Get("orderBy"), q.Get("pageToken"), size)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

func (s *Server) ardLookup(c echo.Context) error {
	id, err := url.PathUnescape(c.Param("identifier"))
	if err != nil {
		return ard.ErrNotFound
	}
	e, err := s.ard.Lookup(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, e)
}

// limitARDBody caps a search or explore body at ard.MaxRequestBytes,
// far below the server's limit: the body is a query, not a document.
func limitARDBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		req.Body = http.MaxBytesReader(c.Response(), req.Body, ard.MaxRequestBytes)
		return next(c)
	}
}

func (s *Server) ardSearch(c echo.Context) error {
	var r ard.SearchRequest
	if err := decodeJSON(c, &r); err != nil {
		return err
	}
	h := c.Request().Header
	out, skipped, err := s.ard.Search(c.Request().Context(), r, ard.ParseHop(h.Get(ard.HopsHeader), h.Get(ard.ViaHeader)))
	if err != nil {
		return err
	}
	if skipped > 0 {
		c.Response().Header().Set(SkippedPeersHeader, strconv.Itoa(skipped))
	}
	return writeJSON(c, http.StatusOK, out)
}

func (s *Server) ardExplore(c echo.Context) error {
	var r ard.ExploreRequest
	if err := decodeJSON(c, &r); err != nil {
		return err
	}
	out, err := s.ard.Explore(c.Request().Context(), r)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// writeARDError answers an error under /ard in the spec's shape
// (Appendix B), the registry's stable code beside it.
func writeARDError(c echo.Context, status int, code, message string) {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	c.Response().WriteHeader(status)
	_ = jsonEncode(c.Response(), ard.ErrorBody{ErrorCode: ard.ErrorCode(status), Message: message, Code: code, RequestID: RequestID(c)})
}
