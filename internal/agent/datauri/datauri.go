// Package datauri decodes the data: URIs Agora senders put in
// protocolSources to ship a protocol document inline:
//
//	data:text/plain;charset=utf-8,<percent-encoded text>
//	data:text/plain;charset=utf-8;base64,<standard Base64>
//
// Percent-decoding uses path unescaping, so '+' stays '+' (the SDK and the
// test vectors encode a space as %20, never as '+').
package datauri

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"

	"github.com/agora-registry/registry/internal/apperr"
)

// Errors, with stable codes.
var (
	ErrNotDataURI  = apperr.New(apperr.Invalid, "not_data_uri", "not a data: URI")
	ErrMalformed   = apperr.New(apperr.Invalid, "malformed_data_uri", "malformed data: URI")
	ErrMediaType   = apperr.New(apperr.Invalid, "unsupported_data_uri_type", "unsupported data: URI media type")
	ErrTooLarge    = apperr.New(apperr.TooLarge, "data_uri_too_large", "data: URI content is too large")
	acceptedMedia  = map[string]bool{"": true, "text/plain": true, "text/markdown": true, "text/x-markdown": true}
	acceptedCharst = map[string]bool{"utf-8": true, "utf8": true}
)

// IsDataURI reports whether s uses the data: scheme (case-insensitively).
func IsDataURI(s string) bool {
	return len(s) >= 5 && strings.EqualFold(s[:5], "data:")
}

// Decode returns the bytes a data: URI carries, refusing more than maxBytes
// of decoded content. Only text media types in UTF-8 are accepted: protocol
// documents are UTF-8 Markdown.
func Decode(s string, maxBytes int) ([]byte, error) {
	if !IsDataURI(s) {
		return nil, ErrNotDataURI
	}
	header, payload, ok := strings.Cut(s[5:], ",")
	if !ok {
		return nil, ErrMalformed.With("malformed data: URI: no ',' before the content")
	}
	isBase64, err := readHeader(header)
	if err != nil {
		return nil, err
	}
	// Decoded content is never longer than the encoded text, and Base64 is
	// 4/3 longer, so oversized input is refused before any decoding work.
	limit := maxBytes
	if isBase64 {
		limit = (maxBytes/3+1)*4 + 8
	}
	if len(payload) > 3*limit { // a percent escape is at most 3 characters per byte
		return nil, tooLarge(maxBytes)
	}
	text, err := url.PathUnescape(payload)
	if err != nil {
		return nil, ErrMalformed.With("malformed data: URI: bad percent-encoding")
	}
	if !isBase64 {
		if len(text) > maxBytes {
			return nil, tooLarge(maxBytes)
		}
		return []byte(text), nil
	}
	return decodeBase64(text, maxBytes)
}

func readHeader(header string) (isBase64 bool, err error) {
	params := strings.Split(header, ";")
	media := strings.ToLower(strings.TrimSpace(params[0]))
	if !acceptedMedia[media] {
		return false, ErrMediaType.With(fmt.Sprintf("unsupported data: URI media type %q: use text/plain;charset=utf-8", clip(media)))
	}
	for i, p := range params[1:] {
		p = strings.ToLower(strings.TrimSpace(p))
		switch {
		case p == "base64" && i == len(params)-2:
			isBase64 = true
		case strings.HasPrefix(p, "charset="):
			cs := strings.Trim(strings.TrimPrefix(p, "charset="), `"`)
			if !acceptedCharst[cs] {
				return false, ErrMediaType.With(fmt.Sprintf("unsupported data: URI charset %q: protocol documents are UTF-8", clip(cs)))
			}
		default:
			return false, ErrMalformed.With(fmt.Sprintf("malformed data: URI: unexpected parameter %q", clip(p)))
		}
	}
	return isBase64, nil
}

func decodeBase64(text string, maxBytes int) ([]byte, error) {
	text = strings.TrimRight(text, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(text, "-_") {
		enc = base64.RawURLEncoding
	}
	if enc.DecodedLen(len(text)) > maxBytes {
		return nil, tooLarge(maxBytes)
	}
	out, err := enc.DecodeString(text)
	if err != nil {
		return nil, ErrMalformed.With("malformed data: URI: bad Base64 content")
	}
	return out, nil
}

func tooLarge(maxBytes int) error {
	return ErrTooLarge.With(fmt.Sprintf("data: URI content exceeds the limit of %d bytes", maxBytes))
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// EncodeBase64 builds the Base64 form of a data: URI for a document.
func EncodeBase64(doc []byte) string {
	return "data:text/plain;charset=utf-8;base64," + base64.StdEncoding.EncodeToString(doc)
}
