package agora

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// RegistryError is a registry's answer other than 2xx: the HTTP status and, when the
// body was a problem document, its machine code and detail. It unwraps to
// an *Error of the matching kind, so errors.Is and errors.As
// with the API's sentinels work on it.
type RegistryError struct {
	Status  int
	Code    string // the problem's "code"; "" when the body was none
	Message string // the problem's "detail", or the status text
}

// Error is the message with the problem code and status.
func (e *RegistryError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("%s (%s, HTTP %d)", e.Message, e.Code, e.Status)
	}
	return fmt.Sprintf("HTTP %d from the registry", e.Status)
}

// Unwrap is the classified form of the answer.
func (e *RegistryError) Unwrap() error {
	return newError(KindOfStatus(e.Status), e.Code, e.Message)
}

// maxMessageRunes bounds what of a stranger's detail reaches a log or a
// terminal.
const maxMessageRunes = 300

// readProblem turns an error answer into an *RegistryError, reading at most
// maxProblemBytes of it.
func readProblem(resp *http.Response) *RegistryError {
	e := &RegistryError{Status: resp.StatusCode, Message: http.StatusText(resp.StatusCode)}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxProblemBytes))
	var p struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &p) == nil && p.Code != "" {
		e.Code, e.Message = printableProblem(p.Code), printableProblem(p.Detail)
	}
	return e
}

// printable keeps a hostile string from carrying control characters
// (terminal escapes, forged log lines) or unbounded length.
func printableProblem(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxMessageRunes {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError {
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
