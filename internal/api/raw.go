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
	etag := etagOf(d)
	notModified := etagMatches(headerValue(r.Header, "If-None-Match"), etag)
	doc, err := s.svc.RawAnswer(r.Context(), d, r.Method == http.MethodGet && !notModified)
	if err != nil {
		return err
	}
	writeRaw(c.Response(), r, &doc, etag, notModified)
	s.adoption.Fetched(d, s.adoptionClient(r))
	return nil
}

func etagOf(d protocol.Digest) string { return `"` + d.Hex() + `"` }

// headerValue is h.Get(key) for a key already in canonical form: Get and
// Set canonicalize the key on every call, a quarter of a HEAD's or a 304's
// cost in process (docs/BENCHMARKS.md, "Raw path layers").
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// writeRaw writes every raw answer, so their headers cannot drift apart:
// 304 when notModified (If-None-Match matched etag, doc's entity tag), 200
// with the bytes or, for HEAD, without them, and a Range request's 206 or
// 416 through http.ServeContent. Header keys are in canonical form.
func writeRaw(w http.ResponseWriter, r *http.Request, doc *registry.RawDocument, etag string, notModified bool) {
	h := w.Header()
	h["Etag"] = []string{etag}
	h["Cache-Control"] = []string{rawCacheControl}
	h["X-Content-Type-Options"] = []string{"nosniff"}
	if doc.Deprecation != "" {
		h["Deprecation"] = []string{doc.Deprecation}
	}
	if doc.Link != "" {
		h["Link"] = []string{doc.Link}
	}
	if notModified {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Type"] = []string{rawContentType}
	if r.Method == http.MethodGet && headerValue(r.Header, "Range") != "" {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(doc.Content))
		return
	}
	h["Content-Length"] = []string{strconv.FormatInt(doc.Size, 10)}
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
