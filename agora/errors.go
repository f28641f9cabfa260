package agora

import (
	"errors"
	"fmt"
)

// ErrorKind classifies an error by what the caller can do about it. Each
// kind maps to one HTTP status (see HTTPStatus).
type ErrorKind int

// The kinds of error.
const (
	KindInternal        ErrorKind = iota // a bug or an unexpected failure: not the caller's fault
	KindInvalid                          // the input is wrong; retrying it unchanged will fail again
	KindNotFound                         // the thing does not exist
	KindGone                             // the thing existed and was withdrawn or has expired
	KindConflict                         // the input clashes with what is stored
	KindUnauthenticated                  // no or unknown credentials
	KindForbidden                        // credentials lack the needed scope, or the address is not allowed
	KindTooLarge                         // the input exceeds a size limit
	KindRateLimited                      // the caller must slow down
	KindUnavailable                      // a dependency (registry, model, upstream) is down; retry later
)

var kindNames = map[ErrorKind]string{
	KindInternal: "internal", KindInvalid: "invalid", KindNotFound: "not_found", KindGone: "gone",
	KindConflict: "conflict", KindUnauthenticated: "unauthenticated", KindForbidden: "forbidden",
	KindTooLarge: "too_large", KindRateLimited: "rate_limited", KindUnavailable: "unavailable",
}

// String is the kind's snake_case name.
func (k ErrorKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is a classified error. Code is stable and documented (it is the
// "code" of a failed Agora answer); Message is for people and never
// contains secrets; Err is the cause, for logs only.
type Error struct {
	Kind    ErrorKind
	Code    string
	Message string
	Err     error
}

// Error is the message, followed by the cause when there is one.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, sentinel) match any error with the sentinel's
// kind and code, so a sentinel can be returned with a more specific message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Kind == e.Kind
}

// With returns a copy of e with a more specific message.
func (e *Error) With(message string) *Error {
	c := *e
	c.Message = message
	return &c
}

func newError(kind ErrorKind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

func wrapError(kind ErrorKind, code, message string, cause error) *Error {
	return &Error{Kind: kind, Code: code, Message: message, Err: cause}
}

// asError extracts the classified error, or nil.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
