package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/buildinfo"
)

// wellKnownLog is the log part of /.well-known/agora.
type wellKnownLog struct {
	Origin      string `json:"origin"`
	VerifierKey string `json:"verifierKey"`
	Checkpoint  string `json:"checkpoint"`
	Tiles       string `json:"tiles"`
	Lookup      string `json:"lookup"`
	Record      string `json:"record"`
}

// wellKnownBody is the registry's self-description.
type wellKnownBody struct {
	Name           string        `json:"name"`
	Version        string        `json:"version"`
	APIBase        string        `json:"apiBase"`
	RawURLTemplate string        `json:"rawUrlTemplate"`
	HashSpellings  []string      `json:"hashSpellings"`
	Changes        string        `json:"changes,omitempty"`
	Log            *wellKnownLog `json:"log,omitempty"`
}

// wellKnown describes the registry to agents, followers and auditors.
func (s *Server) wellKnown(c echo.Context) error {
	base := s.svc.Config().PublicURL
	body := wellKnownBody{
		Name:           "agora-registry",
		Version:        buildinfo.Version(),
		APIBase:        base + "/api/v1",
		RawURLTemplate: base + "/protocol/{hash}",
		HashSpellings:  []string{"hex", "base64"},
	}
	if l := s.svc.Log(); l != nil {
		body.Changes = base + "/api/v1/changes"
		body.Log = &wellKnownLog{
			Origin: l.Origin(), VerifierKey: l.VerifierKey(),
			Checkpoint: base + "/log/checkpoint", Tiles: base + "/log/tile/",
			Lookup: base + "/log/lookup/{hash}", Record: base + "/log/record/{id}",
		}
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return writeJSON(c, http.StatusOK, body)
}
