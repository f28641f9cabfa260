package agora

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// DefaultMaxDocumentBytes is the default size limit of one protocol
// document (1 MiB), the registry's and the agent's.
const DefaultMaxDocumentBytes = 1 << 20

// Validation errors. Their codes are part of the registry's API and of
// failed Agora answers.
var (
	ErrEmptyDocument    = newError(KindInvalid, "empty_document", "the document is empty")
	ErrDocumentTooLarge = newError(KindTooLarge, "document_too_large", "the document is too large")
	ErrInvalidUTF8      = newError(KindInvalid, "invalid_utf8", "the document is not valid UTF-8")
	ErrNULByte          = newError(KindInvalid, "nul_byte", "the document contains a NUL byte")
)

// Validate checks the rules every protocol document obeys: not empty, at
// most maxBytes, valid UTF-8 without NUL bytes. Anything that passes is kept
// byte for byte. A maxBytes of zero or less means DefaultMaxDocumentBytes.
func Validate(doc []byte, maxBytes int) error {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDocumentBytes
	}
	switch {
	case len(doc) == 0:
		return ErrEmptyDocument
	case len(doc) > maxBytes:
		return ErrDocumentTooLarge.With(fmt.Sprintf("the document is %d bytes; the limit is %d", len(doc), maxBytes))
	}
	if i := bytes.IndexByte(doc, 0); i >= 0 {
		return ErrNULByte.With(fmt.Sprintf("the document contains a NUL byte at offset %d", i))
	}
	if !utf8.Valid(doc) {
		return ErrInvalidUTF8.With(fmt.Sprintf("the document is not valid UTF-8 (first bad byte at offset %d)", firstInvalidUTF8(doc)))
	}
	return nil
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}
