// Package problem turns any error into the status, stable code and
// user-safe message a client is shown: the one table both the JSON API and
// the HTML pages answer from.
package problem

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
)

// Errors the transport itself raises.
var (
	errRouteNotFound    = apperr.New(apperr.NotFound, "route_not_found", "no such endpoint")
	ErrBodyTooLarge     = apperr.New(apperr.TooLarge, "body_too_large", "the request body is too large")
	errTimeout          = apperr.New(apperr.Unavailable, "timeout", "the request took too long; try again")
	errInternal         = apperr.New(apperr.Internal, "internal", "internal error")
	errMethodNotAllowed = &httpStatusError{status: http.StatusMethodNotAllowed, code: "method_not_allowed", message: "this endpoint does not support the method"}
	ErrUnsupportedMedia = &httpStatusError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type", message: "send text/markdown, text/plain or application/json"}
)

// httpStatusError is for the few statuses no apperr.Kind names (405, 415).
type httpStatusError struct {
	status        int
	code, message string
}

func (e *httpStatusError) Error() string { return e.message }

// Classify turns any error into status, code and a message safe to show.
func Classify(err error) (status int, code, message string) {
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
		return http.StatusRequestEntityTooLarge, ErrBodyTooLarge.Code, BodyLimit(mbe.Limit)
	case apperr.As(err) != nil:
		ae := apperr.As(err)
		status = apperr.HTTPStatus(ae.Kind)
		if errors.Is(err, apperr.ErrCorruptDocument) { // internal, but with its own code and fixed text
			return http.StatusInternalServerError, apperr.ErrCorruptDocument.Code, apperr.ErrCorruptDocument.Message
		}
		if status == http.StatusInternalServerError { // Internal, or a kind the table lacks: no detail leaves
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
		return he.Code, ErrBodyTooLarge.Code, ErrBodyTooLarge.Message
	case http.StatusUnsupportedMediaType:
		return he.Code, ErrUnsupportedMedia.code, ErrUnsupportedMedia.message
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

// BodyLimit says a request body is over the registry's limit, in the
// units an operator set it in.
func BodyLimit(limit int64) string {
	size := strconv.FormatInt(limit, 10) + " bytes"
	for _, u := range []struct {
		mult   int64
		suffix string
	}{{1 << 30, " GiB"}, {1 << 20, " MiB"}, {1 << 10, " KiB"}} {
		if limit >= u.mult && limit%u.mult == 0 {
			size = strconv.FormatInt(limit/u.mult, 10) + u.suffix
			break
		}
	}
	return "the request body is larger than this registry accepts (" + size + ", its --max-body-bytes)"
}
