package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/follow"
)

// followersShownQuarantine bounds the quarantined documents listed per
// upstream (the count is complete).
const followersShownQuarantine = 20

// followers answers GET /api/v1/followers: each followed upstream's
// progress, errors, fork evidence and newest quarantined documents; an
// empty list when this registry follows none.
func (s *Server) followers(c echo.Context) error {
	out := struct {
		Followers []follow.Report `json:"followers"`
	}{Followers: make([]follow.Report, 0, len(s.follow))}
	for _, f := range s.follow {
		r, err := f.Report(c.Request().Context(), followersShownQuarantine)
		if err != nil {
			return err
		}
		out.Followers = append(out.Followers, r)
	}
	return writeJSON(c, http.StatusOK, out)
}
