package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/problem"
	"github.com/agora-registry/registry/internal/apperr"
)

// ErrorTypeBase prefixes the "type" URI of every problem.
const ErrorTypeBase = "https://agora-registry.dev/errors/"

// Problem is the one error body of the API (RFC 9457 style).
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Code      string `json:"code"`
	Detail    string `json:"detail"`
	RequestID string `json:"requestId"`
}

// errBadJSON refuses a body that does not decode.
var errBadJSON = apperr.New(apperr.Invalid, "invalid_json", "the request body is not the expected JSON")

// retryAfterError carries the seconds for a Retry-After header.
type retryAfterError struct {
	err     *apperr.Error
	seconds int
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// handleError is echo's central error handler: every error of every route
// leaves through here, as one problem+json shape (or an HTML page for
// browsers outside the machine paths).
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, code, message := problem.Classify(err)
	var ra *retryAfterError
	shed := errors.As(err, &ra) // refused by a limit: counted in metrics, not logged (logging would add to the overload)
	if status >= 500 && status != http.StatusServiceUnavailable {
		s.log.Error("request failed", "requestId", RequestID(c), "method", c.Request().Method,
			"route", c.Path(), "error", err.Error())
	} else if status == http.StatusServiceUnavailable && !shed {
		s.log.Warn("dependency unavailable", "requestId", RequestID(c), "error", err.Error())
	}
	h := c.Response().Header()
	if shed {
		h.Set("Retry-After", strconv.Itoa(ra.seconds))
	} else if status == http.StatusServiceUnavailable {
		h.Set("Retry-After", "5")
	}
	if status == http.StatusUnauthorized {
		challenge := `Bearer realm="agora-registry"`
		if code == "invalid_token" {
			challenge += `, error="invalid_token"`
		}
		h.Set("WWW-Authenticate", challenge)
	}
	h.Set("Cache-Control", "no-store")
	if s.pages != nil && WantsHTML(c.Request()) && !isMachinePath(c.Request().URL.Path) {
		if perr := s.pages.RenderError(c, status, code, message); perr == nil {
			return
		}
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	if p := c.Request().URL.Path; p == ARDBase || strings.HasPrefix(p, ARDBase+"/") {
		writeARDError(c, status, code, message)
		return
	}
	p := Problem{Type: ErrorTypeBase + code, Title: http.StatusText(status), Status: status,
		Code: code, Detail: message, RequestID: RequestID(c)}
	h.Set(echo.HeaderContentType, "application/problem+json")
	c.Response().WriteHeader(status)
	_ = jsonEncode(c.Response(), p)
}

// isMachinePath reports whether a path is for programs, which get JSON
// errors even when their Accept header would take HTML.
func isMachinePath(p string) bool {
	switch p {
	case "/protocol", "/metadata", "/healthz", "/readyz", "/metrics", "/api":
		return true
	}
	return strings.HasPrefix(p, "/api/") || p == ARDBase || strings.HasPrefix(p, ARDBase+"/") || strings.HasPrefix(p, "/protocol/") ||
		strings.HasPrefix(p, "/log/") || strings.HasPrefix(p, "/.well-known/")
}
