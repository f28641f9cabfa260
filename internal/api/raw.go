package api

import (
	"io"
	"net/http"
	"strings"

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

// serveRaw answers the exact stored bytes. The document is looked up even
// for a conditional request, so a withdrawn one answers 410, not 304.
func (s *Server) serveRaw(c echo.Context, d protocol.Digest) error {
	src, ok := s.findRaw(c.Request(), d)
	if !ok {
		doc, err := s.svc.RawDocument(c.Request().Context(), d)
		if err != nil {
			return err
		}
		src = rawSource{doc: doc, d: d}
	}
	defer src.close()
	// The connection itself, so a file's body goes out with sendfile;
	// echo's response has seen the status through WriteHeader.
	src.write(responseWriter{c.Response()}, c.Request())
	s.adoption.Fetched(d, s.adoptionClient(c.Request()))
	return nil
}

// responseWriter writes through echo's response (status and size are
// recorded) but copies a file's body with the connection's ReadFrom; the
// headers went out with the WriteHeader before the copy.
type responseWriter struct{ *echo.Response }

func (w responseWriter) ReadFrom(r io.Reader) (int64, error) {
	n, err := io.Copy(w.Response.Writer, r)
	w.Response.Size += n
	return n, err
}

// Header values of every raw answer, shared read-only (capacity 1, see
// registry.RawDocument).
var (
	rawContentTypeValues  = []string{rawContentType}[:1:1]
	rawCacheControlValues = []string{rawCacheControl}[:1:1]
	nosniffValues         = []string{"nosniff"}[:1:1]
)

// writeRaw writes a raw document's answer (200 with the bytes, the same
// without them for HEAD, or 304 when If-None-Match matches) and returns the
// status. Both the router's handler and the hot path use it, so their
// headers cannot drift apart. Header keys are in canonical form, assigned
// directly: no per-request header value slices.
func writeRaw(w http.ResponseWriter, r *http.Request, doc *registry.RawDocument) int {
	h := w.Header()
	h["Etag"] = doc.ETagValues
	h["Cache-Control"] = rawCacheControlValues
	h["X-Content-Type-Options"] = nosniffValues
	if doc.DeprecationValues != nil {
		h["Deprecation"] = doc.DeprecationValues
	}
	if doc.LinkValues != nil {
		h["Link"] = doc.LinkValues
	}
	if inm := r.Header["If-None-Match"]; len(inm) > 0 && etagMatches(inm[0], doc.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return http.StatusNotModified
	}
	h["Content-Type"] = rawContentTypeValues
	h["Content-Length"] = doc.LengthValues
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(doc.Content)
	}
	return http.StatusOK
}

// etagMatches implements If-None-Match's weak comparison over a list,
// without allocating.
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
