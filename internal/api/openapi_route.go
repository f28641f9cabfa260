package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/openapi"
)

// openAPI serves the embedded OpenAPI document. It changes only with the
// binary, so caches may keep it briefly but must revalidate after upgrades.
func (s *Server) openAPI(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, "application/json", openapi.Document)
}
