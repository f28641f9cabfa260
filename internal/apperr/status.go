package apperr

import "net/http"

// statusOf is THE table from error kind to HTTP status: the registry
// answers with it (internal/api/problem) and its client reads answers back
// through it (internal/client).
var statusOf = map[Kind]int{
	Internal:        http.StatusInternalServerError,
	Invalid:         http.StatusBadRequest,
	NotFound:        http.StatusNotFound,
	Gone:            http.StatusGone,
	Conflict:        http.StatusConflict,
	Unauthenticated: http.StatusUnauthorized,
	Forbidden:       http.StatusForbidden,
	TooLarge:        http.StatusRequestEntityTooLarge,
	RateLimited:     http.StatusTooManyRequests,
	Unavailable:     http.StatusServiceUnavailable,
}

// HTTPStatus is the status an error of kind k is answered with.
func HTTPStatus(k Kind) int {
	if s, ok := statusOf[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// KindOfStatus reads an error answer's status back as a kind: the table's
// inverse, any other 4xx Invalid, and everything else (5xx, or a 1xx/3xx
// the http.Client did not follow) Unavailable, since the server could not
// give an answer.
func KindOfStatus(status int) Kind {
	for k, s := range statusOf {
		if s == status && k != Internal && k != Invalid {
			return k
		}
	}
	if status >= 400 && status < 500 {
		return Invalid
	}
	return Unavailable
}
