package api

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// ResolveItem answers one hash of a batch. A malformed hash does not fail
// the batch: its item has found=false and error="malformed_hash".
type ResolveItem struct {
	Hash      string   `json:"hash"` // as asked
	Found     bool     `json:"found"`
	Hex       string   `json:"hex,omitempty"`
	Base64    string   `json:"base64,omitempty"`
	Sources   []string `json:"sources"`
	Title     string   `json:"title,omitempty"`
	Withdrawn bool     `json:"withdrawn"`
	Error     string   `json:"error,omitempty"`
}

type resolveJSON struct {
	Hashes []string `json:"hashes"`
}

var errTooManyHashes = apperr.New(apperr.Invalid, "too_many_hashes",
	fmt.Sprintf("at most %d hashes can be resolved in one request", store.MaxResolve))

func (s *Server) resolve(c echo.Context) error {
	var req resolveJSON
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if len(req.Hashes) > store.MaxResolve {
		return errTooManyHashes
	}
	items := make([]ResolveItem, len(req.Hashes))
	var digests []protocol.Digest
	for i, h := range req.Hashes {
		items[i] = ResolveItem{Hash: h, Sources: []string{}}
		d, err := protocol.ParseDigest(h)
		if err != nil {
			items[i].Error = protocol.ErrMalformedDigest.Code
			continue
		}
		items[i].Hex, items[i].Base64 = d.Hex(), d.Base64()
		digests = append(digests, d)
	}
	found := map[protocol.Digest]store.Resolution{}
	if len(digests) > 0 {
		res, err := s.svc.Resolve(c.Request().Context(), digests)
		if err != nil {
			return err
		}
		for _, r := range res {
			if r.Found {
				found[r.Digest] = r
			}
		}
	}
	for i := range items {
		if items[i].Error != "" {
			continue
		}
		r, ok := found[protocol.MustParseDigest(items[i].Hex)]
		if !ok {
			continue
		}
		items[i].Found = true
		items[i].Title = r.Entry.Metadata.Title
		items[i].Withdrawn = r.Entry.Withdrawn()
		if !items[i].Withdrawn {
			items[i].Sources = s.svc.Sources(r.Digest)
		}
	}
	return writeJSON(c, http.StatusOK, map[string]any{"results": items})
}
