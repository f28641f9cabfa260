package agora

import "net/http"

// statusOf is THE table from error kind to HTTP status: the registry
// answers with it and every client reads answers back through it.
var statusOf = map[ErrorKind]int{
	KindInternal:        http.StatusInternalServerError,
	KindInvalid:         http.StatusBadRequest,
	KindNotFound:        http.StatusNotFound,
	KindGone:            http.StatusGone,
	KindConflict:        http.StatusConflict,
	KindUnauthenticated: http.StatusUnauthorized,
	KindForbidden:       http.StatusForbidden,
	KindTooLarge:        http.StatusRequestEntityTooLarge,
	KindRateLimited:     http.StatusTooManyRequests,
	KindUnavailable:     http.StatusServiceUnavailable,
}

// HTTPStatus is the status an error of this kind is answered with; an
// unknown kind is 500.
func (k ErrorKind) HTTPStatus() int {
	if s, ok := statusOf[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// KindOfStatus reads a status back as the kind it was answered for. A 500
// reads as KindUnavailable (the caller cannot fix it but may retry), and
// statuses outside the table read as KindInvalid (other 4xx) or
// KindUnavailable.
func KindOfStatus(status int) ErrorKind {
	for k, s := range statusOf {
		if s == status && k != KindInternal && k != KindInvalid {
			return k
		}
	}
	if status >= 400 && status < 500 {
		return KindInvalid
	}
	return KindUnavailable
}
