package api

import (
	"fmt"
	"net/http"
	"net/netip"

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
	// Status (active, deprecated, withdrawn), with a deprecation's message
	// and replacement hash, of a found document.
	Status      string `json:"status,omitempty"`
	Message     string `json:"message,omitempty"`
	Replacement string `json:"replacement,omitempty"`
	// Publisher is who first published a found document.
	Publisher string `json:"publisher,omitempty"`
	Error     string `json:"error,omitempty"`
}

// resolveJSON is the request body.
type resolveJSON struct {
	Hashes []string `json:"hashes"`
}

// resolveAnswer is the response body.
type resolveAnswer struct {
	Results []ResolveItem `json:"results"`
}

var errTooManyHashes = apperr.New(apperr.Invalid, "too_many_hashes",
	fmt.Sprintf("at most %d hashes can be resolved in one request", store.MaxResolve))

// decodeResolveBody reads a resolve request body (already capped by
// limitBody) into its hashes.
func decodeResolveBody(body []byte) ([]string, error) {
	var r resolveJSON
	if err := unmarshalStrict(body, &r); err != nil {
		return nil, err
	}
	if len(r.Hashes) > store.MaxResolve {
		return nil, errTooManyHashes
	}
	return r.Hashes, nil
}

// resolve answers a batch in the order asked.
func (s *Server) resolve(c echo.Context) error {
	body, err := readSizedBody(c)
	if err != nil {
		return err // *http.MaxBytesError maps to 413
	}
	hashes, err := decodeResolveBody(body)
	if err != nil {
		return err
	}
	digests := make([]protocol.Digest, 0, len(hashes))
	valid := make([]bool, len(hashes))
	for i, h := range hashes {
		if d, err := protocol.ParseDigest(h); err == nil {
			digests = append(digests, d)
			valid[i] = true
		}
	}
	var res []store.Resolution
	if len(digests) > 0 {
		// The store answers in the order asked, so res[j] is digests[j].
		if res, err = s.svc.Resolve(c.Request().Context(), digests); err != nil {
			return err
		}
		if len(res) != len(digests) {
			return fmt.Errorf("store resolved %d of %d hashes", len(res), len(digests))
		}
	}
	items := make([]ResolveItem, len(hashes))
	client := s.adoptionClient(c.Request())
	j := 0
	for i, h := range hashes {
		if !valid[i] {
			items[i] = ResolveItem{Hash: h, Sources: []string{}, Error: protocol.ErrMalformedDigest.Code}
			continue
		}
		items[i] = s.resolveItem(h, res[j], client)
		j++
	}
	return writeJSON(c, http.StatusOK, resolveAnswer{Results: items})
}

// resolveItem is the answer for a well-formed hash: a withdrawn document
// keeps its title but lists no source. client is who asked (adoption).
func (s *Server) resolveItem(hash string, r store.Resolution, client netip.Addr) ResolveItem {
	item := ResolveItem{Hash: hash, Hex: r.Digest.Hex(), Base64: r.Digest.Base64(), Sources: []string{}}
	if !r.Found {
		return item
	}
	item.Found, item.Title, item.Withdrawn = true, r.Title, r.Withdrawn
	item.Status, item.Message, item.Publisher = string(r.Status), r.Message, r.Publisher
	if r.Replacement != nil {
		item.Replacement = r.Replacement.Hex()
	}
	if !r.Withdrawn {
		item.Sources = s.svc.Sources(r.Digest)
		s.adoption.Resolved(r.Digest, client)
	}
	return item
}
