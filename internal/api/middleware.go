package api

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
)

const requestIDKey = "agora.requestID"

// HeaderRequestID carries the request id in and out.
const HeaderRequestID = "X-Request-ID"

// maxRequestIDLen caps an incoming request id; longer or odd ones are
// replaced, so a client cannot inject junk into logs.
const maxRequestIDLen = 64

// RequestID returns the request's id (set by the server's middleware).
func RequestID(c echo.Context) string {
	id, _ := c.Get(requestIDKey).(string)
	return id
}

func (s *Server) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(HeaderRequestID)
		if !validRequestID(id) {
			id = newRequestID()
		}
		c.Set(requestIDKey, id)
		c.Response().Header().Set(HeaderRequestID, id)
		return next(c)
	}
}

func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
		if !ok {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// observe logs and measures every request once it is answered. It sees the
// final status because it runs the error handler itself. Only method,
// route, path, status, size, duration, client and id are logged: never
// headers, so no Authorization value can reach a log.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		elapsed := time.Since(start)
		req, res := c.Request(), c.Response()
		route := c.Path()
		if route == "" || res.Status == http.StatusNotFound && route == "/*" {
			route = "unmatched"
		}
		s.metrics.observe(route, req.Method, res.Status, elapsed)
		s.log.Info("request", "requestId", RequestID(c), "method", req.Method, "route", route,
			"path", req.URL.Path, "status", res.Status, "bytes", res.Size,
			"durationMs", float64(elapsed.Microseconds())/1000, "client", c.RealIP())
		return nil
	}
}

// recoverPanics turns a panic into a 500 without leaking it to the client.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = apperr.Wrap(apperr.Internal, "internal", "internal error", fmt.Errorf("panic: %v", r))
			}
		}()
		return next(c)
	}
}

// limitBody refuses a declared oversize body at once and caps the rest.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength > s.cfg.MaxBodyBytes {
			return errBodyTooLarge.With(fmt.Sprintf("the request body is larger than %d bytes", s.cfg.MaxBodyBytes))
		}
		if req.Body != nil {
			req.Body = http.MaxBytesReader(c.Response(), req.Body, s.cfg.MaxBodyBytes)
		}
		return next(c)
	}
}

// readBody reads the (already capped) request body.
func readBody(c echo.Context) ([]byte, error) {
	b, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return nil, err // *http.MaxBytesError maps to 413
	}
	return b, nil
}

// decodeJSON reads exactly one JSON value with no unknown fields.
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
