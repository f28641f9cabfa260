package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// unmarshalStrict decodes one JSON value, refusing unknown fields, wrong
// types and trailing data, with a message that says what was wrong.
func unmarshalStrict(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errBadJSON.With("the request body is empty; expected a JSON object")
	}
	// encoding/json silently turns invalid UTF-8 into U+FFFD, which would
	// store a document whose bytes (and hash) differ from what was sent.
	if !utf8.Valid(body) {
		return errBadJSON.With("the request body is not valid UTF-8 (JSON must be UTF-8)")
	}
	// It turns an unpaired surrogate escape ("\ud800") into U+FFFD too.
	if err := checkSurrogates(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errBadJSON.With("invalid JSON: " + describeJSONError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errBadJSON.With("invalid JSON: unexpected data after the JSON value")
	}
	return nil
}

func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("field %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	case errors.As(err, &se):
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends early"
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "json: unknown field ") {
		return "unknown field " + strings.TrimPrefix(msg, "json: unknown field ")
	}
	return strings.TrimPrefix(msg, "json: ")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	case "struct", "map":
		return "an object"
	case "bool":
		return "true or false"
	}
	return "a number"
}

// maxBodySizeHint bounds the buffer a declared Content-Length may reserve
// up front (limitBody has already refused a larger declared body on
// served routes; this only guards other callers).
const maxBodySizeHint = DefaultMaxBodyBytes

// readSizedBody is readBody into one buffer of the declared length, since
// io.ReadAll grows its buffer by doubling (an allocation and a copy each
// time). The length is only a hint: the capped reader decides what is
// read, with readBody's errors.
func readSizedBody(c echo.Context) ([]byte, error) {
	req := c.Request()
	n := req.ContentLength
	if n <= 0 || n > maxBodySizeHint || req.Body == nil {
		return readBody(c)
	}
	var buf bytes.Buffer
	// MinRead spare bytes, so the read that meets EOF needs no growth.
	buf.Grow(int(n) + bytes.MinRead)
	if _, err := buf.ReadFrom(req.Body); err != nil {
		return nil, err // *http.MaxBytesError maps to 413
	}
	return buf.Bytes(), nil
}
