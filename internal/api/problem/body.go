package problem

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
)

// StatusClientClosedRequest is nginx's 499: the client went away before
// its request was whole. Nobody reads the answer; the status is for the
// request log and metrics, which must not count it as a server failure.
const StatusClientClosedRequest = 499

// Refusals of a body that could not be read.
var (
	errBodyFraming    = &httpStatusError{status: http.StatusBadRequest, code: "malformed_body", message: "the request body's framing is malformed (bad chunked encoding)"}
	errBodyTimeout    = &httpStatusError{status: http.StatusRequestTimeout, code: "request_timeout", message: "the request body did not arrive in time"}
	errClientVanished = &httpStatusError{status: StatusClientClosedRequest, code: "client_closed_request", message: "the connection closed before the whole request body arrived"}
)

// bodyReadError is a failure to read the request body other than its size
// limit: the client's doing (bad framing, a hang-up, too slow), never the
// server's, so it must never surface as a 500 or an ERROR log line.
type bodyReadError struct{ err error }

func (e *bodyReadError) Error() string { return "reading the request body: " + e.err.Error() }
func (e *bodyReadError) Unwrap() error { return e.err }

// classified is the refusal a body read error stands for.
func (e *bodyReadError) classified() *httpStatusError {
	var ne net.Error
	switch {
	case errors.Is(e.err, io.ErrUnexpectedEOF), errors.Is(e.err, syscall.ECONNRESET), errors.Is(e.err, net.ErrClosed):
		return errClientVanished
	case errors.Is(e.err, os.ErrDeadlineExceeded), errors.As(e.err, &ne) && ne.Timeout():
		return errBodyTimeout
	}
	return errBodyFraming
}

// MarkBody wraps a request body so its read errors are classified as the
// client's doing.
func MarkBody(body io.ReadCloser) io.ReadCloser { return markedBody{body} }

// markedBody marks the body's read errors as bodyReadError (io.EOF stays
// io.EOF, the normal end).
type markedBody struct{ io.ReadCloser }

func (b markedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = &bodyReadError{err: err}
	}
	return n, err
}
