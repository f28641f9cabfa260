package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/param"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
)

// The paper demo's protocol DB: POST / publishes {"name","description",
// "protocol"}, GET / lists, GET /protocol?id= serves, GET /metadata?id=
// describes. Its ids are the SDK's Base64 spelling.

type demoPublishJSON struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Protocol    *string `json:"protocol"`
}

// demoPublish stores "protocol" byte for byte (so it hashes to what agents
// will ask for); "name" and "description" are the metadata unless the
// document's front matter gives its own. Both new and existing documents
// answer 200, as the demo did.
func (s *Server) demoPublish(c echo.Context) error {
	var req demoPublishJSON
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Protocol == nil {
		return errBadJSON.With(`the JSON needs a "protocol" string holding the document`)
	}
	res, err := s.svc.PublishRequest(c.Request().Context(), registry.PublishRequest{
		Content: []byte(*req.Protocol), Given: protocol.Given{Title: req.Name, Description: req.Description},
		Publisher: Publisher(c),
	})
	if err != nil {
		return err
	}
	s.metrics.published(res.Created)
	d := res.Entry.Digest
	return writeJSON(c, http.StatusOK, map[string]any{
		"status": "success", "id": d.Base64(), "hex": d.Hex(), "created": res.Created, "sources": s.svc.Sources(d),
		"publisher": res.Entry.Publisher,
	})
}

func (s *Server) demoMetadataByQuery(c echo.Context) error {
	d, err := param.QueryHash(c)
	if err != nil {
		return err
	}
	return s.demoMetadata(c, d)
}

func (s *Server) demoMetadataByPath(c echo.Context) error {
	d, err := param.PathHash(c)
	if err != nil {
		return err
	}
	return s.demoMetadata(c, d)
}

func (s *Server) demoMetadata(c echo.Context, d protocol.Digest) error {
	e, err := s.svc.Get(c.Request().Context(), d, false)
	if err != nil {
		return err
	}
	// The demo reads status and metadata's name and description; the
	// publisher beside them is ours, which its client ignores.
	return writeJSON(c, http.StatusOK, map[string]any{
		"status":    "success",
		"metadata":  map[string]string{"name": e.Metadata.Title, "description": e.Metadata.Description},
		"publisher": e.Publisher,
	})
}
