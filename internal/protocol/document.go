package protocol

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/apperr"
)

// DefaultMaxDocumentBytes is the default size limit of one document (1 MiB).
const DefaultMaxDocumentBytes = 1 << 20

// Validation errors. Their codes are part of the API.
var (
	ErrEmptyDocument    = apperr.New(apperr.Invalid, "empty_document", "the document is empty")
	ErrDocumentTooLarge = apperr.New(apperr.TooLarge, "document_too_large", "the document is too large")
	ErrInvalidUTF8      = apperr.New(apperr.Invalid, "invalid_utf8", "the document is not valid UTF-8")
	ErrNULByte          = apperr.New(apperr.Invalid, "nul_byte", "the document contains a NUL byte")
)

// Validate checks the rules every stored document obeys. Anything that
// passes is stored byte for byte: no trimming, no newline changes. A
// maxBytes of zero or less means DefaultMaxDocumentBytes.
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

// Document is a validated, hashed document with its metadata.
type Document struct {
	Content  []byte
	Sums     Sums
	Metadata Metadata
	Lints    []Lint
}

// Prepare validates, hashes and reads a document: the one path every
// publish, import and mirror goes through.
func Prepare(content []byte, maxBytes int) (Document, error) {
	return PrepareGiven(content, maxBytes, Given{})
}

// PrepareGiven is Prepare for a document published with metadata beside
// it (Given).
func PrepareGiven(content []byte, maxBytes int, given Given) (Document, error) {
	if err := Validate(content, maxBytes); err != nil {
		return Document{}, err
	}
	sums, err := Hash(content)
	if err != nil {
		return Document{}, err
	}
	meta, lints := parseMetadata(content, given)
	if err := frontMatterError(lints); err != nil {
		return Document{}, err
	}
	return Document{Content: content, Sums: sums, Metadata: meta, Lints: lints}, nil
}
