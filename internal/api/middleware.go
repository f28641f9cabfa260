package api

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/problem"
	"github.com/agora-registry/registry/internal/apperr"
)

// HeaderRequestID carries the request id in and out.
const HeaderRequestID = "X-Request-ID"

// maxRequestIDLen caps an incoming request id; longer or odd ones are
// replaced, so a client cannot inject junk into logs.
const maxRequestIDLen = 64

// RequestID returns the request's id (set by the server's middleware). It
// lives only in the response header: no per-request context map.
func RequestID(c echo.Context) string {
	if v := c.Response().Header()[canonicalRequestID]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		r := id[i]
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
		if !ok {
			return false
		}
	}
	return true
}

// Request ids are a random per-process prefix and a counter: unique across
// restarts and replicas in practice, and one small allocation instead of a
// crypto/rand read and a hex encoding per request. They are correlation
// ids, not secrets.
var (
	requestIDPrefix  = newRequestIDPrefix()
	requestIDCounter atomic.Uint64
)

func newRequestIDPrefix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + "-"
}

func newRequestID() string {
	var buf [32]byte
	b := append(buf[:0], requestIDPrefix...)
	b = strconv.AppendUint(b, requestIDCounter.Add(1), 36)
	return string(b)
}

// requestIDFor keeps a well-formed incoming id and makes one otherwise.
func requestIDFor(r *http.Request) string {
	if v := r.Header[canonicalRequestID]; len(v) > 0 && validRequestID(v[0]) {
		return v[0]
	}
	return newRequestID()
}

var canonicalRequestID = http.CanonicalHeaderKey(HeaderRequestID)

// common is every route's middleware in one closure: echo builds the
// middleware chain anew for each request, so one link instead of five
// saves four closures per request. In order: request id; then, measured
// and logged, panic recovery, the per-client rate limit and the body limit.
func (s *Server) common(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		h := c.Response().Header()
		h[canonicalRequestID] = []string{requestIDFor(c.Request())}
		h.Set("X-Content-Type-Options", "nosniff") // every answer: JSON, problems, pages
		if err := s.guarded(c, next); err != nil {
			c.Error(err)
		}
		s.observe(c, start)
		return nil
	}
}

// guarded runs next behind panic recovery, the rate limit and the body
// limit; a panic becomes a 500 without leaking it to the client.
func (s *Server) guarded(c echo.Context, next echo.HandlerFunc) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			err = apperr.Wrap(apperr.Internal, "internal", "internal error", fmt.Errorf("panic: %v", r))
		}
	}()
	if s.limit != nil && !unlimitedPath(c.Request().URL.Path) {
		if err := s.limit.AllowRequest(c); err != nil {
			return err
		}
	}
	if err := s.gateRead(c); err != nil || c.Response().Committed {
		return err
	}
	if err := s.limitBody(c); err != nil {
		return err
	}
	return next(c)
}

// observe logs and measures a request once it is answered; it sees the
// final status because common ran the error handler first. Only method,
// route, path, status, size, duration, client and id are logged: never
// headers, so no Authorization value can reach a log.
func (s *Server) observe(c echo.Context, start time.Time) {
	elapsed := time.Since(start)
	req, res := c.Request(), c.Response()
	route := c.Path()
	if route == "" || res.Status == http.StatusNotFound && route == "/*" {
		route = "unmatched"
	}
	s.metrics.observe(route, req.Method, res.Status, elapsed)
	// The arguments are only built when the level is enabled.
	if !s.log.Enabled(req.Context(), slog.LevelInfo) {
		return
	}
	s.log.Info("request", "requestId", RequestID(c), "method", req.Method, "route", route,
		"path", req.URL.Path, "status", res.Status, "bytes", res.Size,
		"durationMs", float64(elapsed.Microseconds())/1000, "client", c.RealIP())
}

// limitBody refuses a declared oversize body at once and caps the rest.
// GET and HEAD are left alone: no handler of theirs reads a body, and
// net/http discards an unread one.
func (s *Server) limitBody(c echo.Context) error {
	req := c.Request()
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		return nil
	}
	if req.ContentLength > s.cfg.MaxBodyBytes {
		return problem.ErrBodyTooLarge.With(problem.BodyLimit(s.cfg.MaxBodyBytes))
	}
	if req.Body != nil {
		req.Body = http.MaxBytesReader(c.Response(), problem.MarkBody(req.Body), s.cfg.MaxBodyBytes)
	}
	return nil
}

// readBody reads the (already capped) request body.
func readBody(c echo.Context) ([]byte, error) {
	b, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return nil, err // *http.MaxBytesError maps to 413
	}
	return b, nil
}

// decodeJSON reads exactly one JSON value with no unknown fields (the ARD
// spec's search and explore schemas refuse them too).
func decodeJSON(c echo.Context, v any) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	return unmarshalStrict(body, v)
}

func jsonEncode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeJSON answers with a JSON body.
func writeJSON(c echo.Context, status int, v any) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	c.Response().WriteHeader(status)
	return jsonEncode(c.Response(), v)
}
