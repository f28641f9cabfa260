package api

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/store"
)

// readyTimeout bounds the database check of /readyz.
const readyTimeout = 2 * time.Second

// healthz answers 200 while the process serves (liveness).
func (s *Server) healthz(c echo.Context) error {
	return writeJSON(c, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when the database answers, else 503 (readiness).
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), readyTimeout)
	defer cancel()
	if err := s.svc.Ready(ctx); err != nil {
		return store.ErrUnavailable.With("the database does not answer")
	}
	return writeJSON(c, http.StatusOK, map[string]string{"status": "ready", "engine": s.svc.Engine()})
}
