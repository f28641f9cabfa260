package registry

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Origins a document may record besides "" (published here) and a mirror's
// upstream URL.
const (
	OriginImport = "import" // loaded by `registry import`
	// maxOriginBytes bounds an upstream URL recorded as origin.
	maxOriginBytes = 2048
)

// ErrInvalidOrigin refuses an origin that is none of the recorded kinds.
var ErrInvalidOrigin = apperr.New(apperr.Invalid, "invalid_origin",
	`an origin is "", "import", "example" or the http(s) URL of an upstream registry`)

// PrepareDocument turns a publish into what the store records: the one
// path by which every document enters the store (publish over the API, the
// HTML form and the paper demo's form, mirror pulls, seeded examples and
// `registry import`), so each gets the same validation (size, UTF-8, NUL,
// hash) and the same cleaning of everything beside the bytes (metadata
// without control, ANSI-escape or bidi-override characters, tags
// normalised, origin and publisher checked).
func PrepareDocument(r PublishRequest, maxDocumentBytes int) (store.NewDocument, error) {
	doc, err := protocol.PrepareGiven(r.Content, maxDocumentBytes, r.Given)
	if err != nil {
		return store.NewDocument{}, err
	}
	if err := CheckOrigin(r.Origin); err != nil {
		return store.NewDocument{}, err
	}
	publisher, err := entity.PublisherOr(r.Publisher)
	if err != nil {
		return store.NewDocument{}, err
	}
	return store.NewDocument{Document: doc, ExtraTags: protocol.NormaliseTags(r.Tags), Origin: r.Origin, Publisher: publisher}, nil
}

// CheckOrigin refuses an origin none of the registry's ways into the store
// records.
func CheckOrigin(origin string) error {
	switch origin {
	case "", OriginImport, OriginExample:
		return nil
	}
	u, err := url.Parse(origin)
	switch {
	case len(origin) > maxOriginBytes:
		return ErrInvalidOrigin.With(fmt.Sprintf("the origin is longer than %d bytes", maxOriginBytes))
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		!utf8.ValidString(origin) || strings.ContainsFunc(origin, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return ErrInvalidOrigin.With(fmt.Sprintf("%q is not a recorded origin: use %q, %q or an upstream's http(s) URL without credentials", clip(origin, 80), OriginImport, OriginExample))
	}
	return nil
}

// CleanReason is a withdrawal reason as stored: cleaned like a description
// (no control or bidi-override characters), at most MaxReasonRunes.
func CleanReason(reason string) string {
	return clipClean(reason, MaxReasonRunes)
}

// clipClean cleans free text shown to readers (as a description) and
// clips it to n runes.
func clipClean(text string, n int) string {
	return strings.TrimSpace(clip(protocol.CleanDescription(text), n))
}

// MaxReasonRunes bounds a withdrawal reason (the engines take up to 1000).
const MaxReasonRunes = 1000

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
