package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
)

// ErrorTypeBase prefixes the "type" URI of every problem.
const ErrorTypeBase = "https://agora-registry.dev/errors/"

// statusOf is THE table from error kind to HTTP status.
var statusOf = map[apperr.Kind]int{
	apperr.Internal:        http.StatusInternalServerError,
	apperr.Invalid:         http.StatusBadRequest,
	apperr.NotFound:        http.StatusNotFound,
	apperr.Gone:            http.StatusGone,
	apperr.Conflict:        http.StatusConflict,
	apperr.Unauthenticated: http.StatusUnauthorized,
	apperr.Forbidden:       http.StatusForbidden,
	apperr.TooLarge:        http.StatusRequestEntityTooLarge,
	apperr.RateLimited:     http.StatusTooManyRequests,
	apperr.Unavailable:     http.StatusServiceUnavailable,
}

// Problem is the one error body of the API (RFC 9457 style).
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Code      string `json:"code"`
	Detail    string `json:"detail"`
	RequestID string `json:"requestId"`
}

// Errors the transport itself raises.
var (
	errRouteNotFound    = apperr.New(apperr.NotFound, "route_not_found", "no such endpoint")
	errBodyTooLarge     = apperr.New(apperr.TooLarge, "body_too_large", "the request body is too large")
	errBadJSON          = apperr.New(apperr.Invalid, "invalid_json", "the request body is not the expected JSON")
	errTimeout          = apperr.New(apperr.Unavailable, "timeout", "the request took too long; try again")
	errInternal         = apperr.New(apperr.Internal, "internal", "internal error")
	errMethodNotAllowed = &httpStatusError{status: http.StatusMethodNotAllowed, code: "method_not_allowed", message: "this endpoint does not support the method"}
	errUnsupportedMedia = &httpStatusError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type", message: "send text/markdown, text/plain or application/json"}
)

// httpStatusError is for the few statuses no apperr.Kind names (405, 415).
type httpStatusError struct {
	status        int
	code, message string
}

func (e *httpStatusError) Error() string { return e.message }

// retryAfterError carries the seconds for a Retry-After header.
type retryAfterError struct {
	err     *apperr.Error
	seconds int
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// classify turns any error into status, code and a message safe to show.
func classify(err error) (status int, code, message string) {
	var hs *httpStatusError
	var he *echo.HTTPError
	var mbe *http.MaxBytesError
	var bre *bodyReadError
	switch {
	case errors.As(err, &bre):
		hs = bre.classified()
		return hs.status, hs.code, hs.message
	case errors.As(err, &hs):
		return hs.status, hs.code, hs.message
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, errBodyTooLarge.Code, "the request body is larger than " + strconv.FormatInt(mbe.Limit, 10) + " bytes"
	case apperr.As(err) != nil:
		ae := apperr.As(err)
		status = statusOf[ae.Kind]
		if status == 0 || ae.Kind == apperr.Internal {
			return http.StatusInternalServerError, errInternal.Code, errInternal.Message
		}
		return status, ae.Code, ae.Message
	case errors.As(err, &he):
		return fromEchoError(he)
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, errTimeout.Code, errTimeout.Message
	}
	return http.StatusInternalServerError, errInternal.Code, errInternal.Message
}

// fromEchoError maps the router's own errors (404, 405, …).
func fromEchoError(he *echo.HTTPError) (int, string, string) {
	switch he.Code {
	case http.StatusNotFound:
		return he.Code, errRouteNotFound.Code, errRouteNotFound.Message
	case http.StatusMethodNotAllowed:
		return he.Code, errMethodNotAllowed.code, errMethodNotAllowed.message
	case http.StatusRequestEntityTooLarge:
		return he.Code, errBodyTooLarge.Code, errBodyTooLarge.Message
	case http.StatusUnsupportedMediaType:
		return he.Code, errUnsupportedMedia.code, errUnsupportedMedia.message
	}
	if he.Code >= 500 {
		return http.StatusInternalServerError, errInternal.Code, errInternal.Message
	}
	msg := http.StatusText(he.Code)
	if m, ok := he.Message.(string); ok && m != "" {
		msg = m
	}
	return he.Code, "http_" + strconv.Itoa(he.Code), msg
}

// handleError is echo's central error handler: every error of every route
// leaves through here, as one problem+json shape (or an HTML page for
// browsers outside the machine paths).
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, code, message := classify(err)
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
	return strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/protocol/")
}
