package protocol

import "github.com/agora-registry/registry/agora"

// DefaultMaxDocumentBytes is the default size limit of one document (1 MiB).
const DefaultMaxDocumentBytes = agora.DefaultMaxDocumentBytes

// Validation errors. Their codes are part of the API.
var (
	ErrEmptyDocument    = agora.ErrEmptyDocument
	ErrDocumentTooLarge = agora.ErrDocumentTooLarge
	ErrInvalidUTF8      = agora.ErrInvalidUTF8
	ErrNULByte          = agora.ErrNULByte
)

// Validate checks the rules every stored document obeys (agora.Validate).
// Anything that passes is stored byte for byte: no trimming, no newline
// changes. A maxBytes of zero or less means DefaultMaxDocumentBytes.
func Validate(doc []byte, maxBytes int) error { return agora.Validate(doc, maxBytes) }

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
