// Package apperr is the one error type the registry and agent share: a Kind
// that transports map to a status (HTTP, exit code) in one place, a stable
// machine Code, and a Message fit to show a user. The type and the status
// table live in the public agora module (agora/errors.go, agora/status.go)
// so agents built on it classify errors the same way; these are its
// registry-side names.
package apperr

import (
	"errors"
	"fmt"

	"github.com/agora-registry/registry/agora"
)

// Kind classifies an error by what the caller can do about it.
type Kind = agora.ErrorKind

// The kinds, as agora names them.
const (
	Internal        = agora.KindInternal
	Invalid         = agora.KindInvalid
	NotFound        = agora.KindNotFound
	Gone            = agora.KindGone
	Conflict        = agora.KindConflict
	Unauthenticated = agora.KindUnauthenticated
	Forbidden       = agora.KindForbidden
	TooLarge        = agora.KindTooLarge
	RateLimited     = agora.KindRateLimited
	Unavailable     = agora.KindUnavailable
)

// ErrCorruptDocument answers a document whose stored bytes no longer hash
// to its name: they are never served. Internal, yet with its own code, so
// a client (and the operator) can tell it from a passing failure.
var ErrCorruptDocument = New(Internal, "corrupt_document",
	"the stored copy of this document is damaged (its bytes do not match its hash), so it is not served; the operator has been told")

// Error is a classified error (agora.Error).
type Error = agora.Error

// New returns an error of the given kind.
func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// Newf is New with a formatted message.
func Newf(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap classifies a cause.
func Wrap(kind Kind, code, message string, cause error) *Error {
	return &Error{Kind: kind, Code: code, Message: message, Err: cause}
}

// As extracts the classified error, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// KindOf returns the kind of err; unclassified errors are Internal.
func KindOf(err error) Kind {
	if e := As(err); e != nil {
		return e.Kind
	}
	return Internal
}

// HTTPStatus is the status an error of kind k is answered with.
func HTTPStatus(k Kind) int { return k.HTTPStatus() }
