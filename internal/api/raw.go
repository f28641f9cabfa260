package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/protocol"
)

// Headers of every raw document. The charset matters: the Python SDK reads
// a charset-less text/plain as ISO-8859-1 and then fails its hash check.
const (
	rawContentType  = "text/plain; charset=utf-8"
	rawCacheControl = "public, max-age=31536000, immutable"
)

func (s *Server) rawByPath(c echo.Context) error {
	d, err := PathHash(c)
	if err != nil {
		return err
	}
	return s.serveRaw(c, d)
}

func (s *Server) rawByQuery(c echo.Context) error {
	d, err := QueryHash(c)
	if err != nil {
		return err
	}
	return s.serveRaw(c, d)
}

// serveRaw answers the exact stored bytes. The document is looked up even
// for a conditional request, so a withdrawn one answers 410, not 304.
func (s *Server) serveRaw(c echo.Context, d protocol.Digest) error {
	content, err := s.svc.Raw(c.Request().Context(), d)
	if err != nil {
		return err
	}
	etag := `"` + d.Hex() + `"`
	h := c.Response().Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", rawCacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	h.Set(echo.HeaderContentType, rawContentType)
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(content)))
	c.Response().WriteHeader(http.StatusOK)
	if c.Request().Method == http.MethodHead {
		return nil
	}
	_, err = c.Response().Write(content)
	return err
}

// etagMatches implements If-None-Match's weak comparison over a list.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}
