package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
)

// rawPathPrefix is the raw route's prefix (the route is "/protocol/*").
const (
	rawPathPrefix = "/protocol/"
	rawRoute      = rawPathPrefix + "*"
)

// ServeHTTP is the server's entry point. A GET or HEAD of a raw document
// the cache or the blob directory holds is answered here, beside the
// router: the raw fetch is the registry's most frequent request, and echo
// builds its middleware chain anew for every request. Everything else, including every error
// (a malformed hash, a miss, a withdrawn document, a rate-limited client),
// goes through the router, so errors keep their one shape.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A private registry's raw fetches all go through the router, whose
	// middleware checks the reader (readgate.go).
	if !s.private && (r.Method == http.MethodGet || r.Method == http.MethodHead) && s.serveHotRaw(w, r) {
		return
	}
	s.echo.ServeHTTP(w, r)
}

// Handler is the server's http.Handler (the router behind the hot path).
func (s *Server) Handler() http.Handler { return s }

// serveHotRaw answers a raw document from the cache or its blob file
// (rawSource) and reports whether it did; when it did not, nothing was
// written. The answer is the router's to the
// byte (writeRaw), with the same request id, metrics and log line.
func (s *Server) serveHotRaw(w http.ResponseWriter, r *http.Request) bool {
	start := time.Now()
	// echo routes on the raw path; an escaped hash (Base64 with %2F) is
	// rare and left to the router's unescaping.
	p := r.URL.RawPath
	if p == "" {
		p = r.URL.Path
	}
	rest, ok := strings.CutPrefix(p, rawPathPrefix)
	if !ok || strings.IndexByte(rest, '%') >= 0 {
		return false
	}
	d, err := protocol.ParseDigest(rest)
	if err != nil {
		return false
	}
	src, ok := s.findRaw(r, d)
	if !ok {
		return false
	}
	defer src.close()
	// A refused client falls through to the router, which refuses it again
	// with the usual 429 (a refusal takes no token, so none is spent twice).
	if s.limit != nil && s.limit.AllowFrom(r, s.echo.IPExtractor(r)) != nil {
		return false
	}
	id := requestIDFor(r)
	w.Header()[canonicalRequestID] = []string{id}
	status, size := src.write(w, r)
	s.adoption.Fetched(d, s.adoptionClient(r))
	elapsed := time.Since(start)
	s.metrics.observe(rawRoute, r.Method, status, elapsed)
	s.logRequest(r, id, rawRoute, status, size, elapsed, func() string { return s.echo.IPExtractor(r) })
	return true
}
