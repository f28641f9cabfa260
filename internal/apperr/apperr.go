// Package apperr is the one error type the registry and agent share: a Kind
// that transports map to a status (HTTP, exit code) in one place, a stable
// machine Code, and a Message fit to show a user.
package apperr

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the caller can do about it.
type Kind int

const (
	Internal        Kind = iota // a bug or an unexpected failure: not the caller's fault
	Invalid                     // the input is wrong; retrying it unchanged will fail again
	NotFound                    // the thing does not exist
	Gone                        // the thing existed and was withdrawn
	Conflict                    // the input clashes with what is stored
	Unauthenticated             // no or unknown credentials
	Forbidden                   // credentials lack the needed scope
	TooLarge                    // the input exceeds a size limit
	RateLimited                 // the caller must slow down
	Unavailable                 // a dependency (database, upstream) is down; retry later
)

var kindNames = map[Kind]string{
	Internal: "internal", Invalid: "invalid", NotFound: "not_found", Gone: "gone",
	Conflict: "conflict", Unauthenticated: "unauthenticated", Forbidden: "forbidden",
	TooLarge: "too_large", RateLimited: "rate_limited", Unavailable: "unavailable",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is a classified error. Code is stable and documented; Message is for
// people and never contains secrets.
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Err     error // the underlying cause, for logs only
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, sentinel) match any error with the sentinel's Code,
// so a sentinel can be returned with a more specific Message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Kind == e.Kind
}

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

// With returns a copy of a sentinel with a more specific message.
func (e *Error) With(message string) *Error {
	c := *e
	c.Message = message
	return &c
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
