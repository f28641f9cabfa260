package api

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/param"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
)

// Headers of every raw document. The charset matters: the Python SDK reads
// a charset-less text/plain as ISO-8859-1 and then fails its hash check.
const (
	rawContentType  = "text/plain; charset=utf-8"
	rawCacheControl = "public, max-age=31536000, immutable"
)

func (s *Server) rawByPath(c echo.Context) error {
	if d, ok, err := param.PathHashExt(c, tlogProofExt); ok {
		if err != nil {
			return err
		}
		return s.tlogProof(c, d)
	}
	d, err := param.PathHash(c)
	if err != nil {
		return err
	}
	return s.serveRaw(c, d)
}

func (s *Server) rawByQuery(c echo.Context) error {
	d, err := param.QueryHash(c)
	if err != nil {
		return err
	}
	return s.serveRaw(c, d)
}

// serveRaw answers every raw request (both URL forms, GET and HEAD): a
// refusal of a raw read belongs here, before the lookup. The document is
// looked up even for a conditional request, so a withdrawn one answers
// 410, not 304; an answer without a body needs only a verified blob's
// size.
func (s *Server) serveRaw(c echo.Context, d protocol.Digest) error {
	r := c.Request()
	body := r.Method == http.MethodGet && !etagMatches(r.Header.Get("If-None-Match"), etagOf(d))
	doc, err := s.svc.RawAnswer(r.Context(), d, body)
	if err != nil {
		return err
	}
	writeRaw(c.Response(), r, doc)
	s.adoption.Fetched(d, s.adoptionClient(r))
	return nil
}

func etagOf(d protocol.Digest) string { return `"` + d.Hex() + `"` }

// writeRaw writes every raw answer, so their headers cannot drift apart:
// 304 when If-None-Match matches, 200 with the bytes or, for HEAD, without
// them, and a Range request's 206 or 416 through http.ServeContent.
func writeRaw(w http.ResponseWriter, r *http.Request, doc *registry.RawDocument) {
	etag := etagOf(doc.Digest)
	h := w.Header()
	h.Set("Etag", etag)
	h.Set("Cache-Control", rawCacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	if doc.Deprecation != "" {
		h.Set("Deprecation", doc.Deprecation)
	}
	if doc.Link != "" {
		h.Set("Link", doc.Link)
	}
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", rawContentType)
	if r.Method == http.MethodGet && r.Header.Get("Range") != "" {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(doc.Content))
		return
	}
	h.Set("Content-Length", strconv.FormatInt(doc.Size, 10))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(doc.Content)
	}
}

// etagMatches implements If-None-Match's weak comparison over a list.
func etagMatches(header, etag string) bool {
	for header != "" {
		var t string
		t, header, _ = strings.Cut(header, ",")
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}
