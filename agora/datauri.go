// This file decodes the data: URIs Agora senders put in
// protocolSources to ship a protocol document inline:
//
//	data:text/plain;charset=utf-8,<percent-encoded text>
//	data:text/plain;charset=utf-8;base64,<standard Base64>
//
// Percent-decoding uses path unescaping, so '+' stays '+' (the SDK and the
// test vectors encode a space as %20, never as '+').

package agora

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
)

// Errors, with stable codes.
var (
	errNotDataURI       = newError(KindInvalid, "not_data_uri", "not a data: URI")
	errMalformedDataURI = newError(KindInvalid, "malformed_data_uri", "malformed data: URI")
	errDataURIType      = newError(KindInvalid, "unsupported_data_uri_type", "unsupported data: URI media type")
	errDataURITooLarge  = newError(KindTooLarge, "data_uri_too_large", "data: URI content is too large")
	acceptedMedia       = map[string]bool{"": true, "text/plain": true, "text/markdown": true, "text/x-markdown": true}
	acceptedCharst      = map[string]bool{"utf-8": true, "utf8": true}
)

// isDataURI reports whether s uses the data: scheme (case-insensitively).
func isDataURI(s string) bool {
	return len(s) >= 5 && strings.EqualFold(s[:5], "data:")
}

// Decode returns the bytes a data: URI carries, refusing more than maxBytes
// of decoded content. Only text media types in UTF-8 are accepted: protocol
// documents are UTF-8 Markdown.
func decodeDataURI(s string, maxBytes int) ([]byte, error) {
	if !isDataURI(s) {
		return nil, errNotDataURI
	}
	header, payload, ok := strings.Cut(s[5:], ",")
	if !ok {
		return nil, errMalformedDataURI.With("malformed data: URI: no ',' before the content")
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
		return nil, dataURITooLarge(maxBytes)
	}
	text, err := url.PathUnescape(payload)
	if err != nil {
		return nil, errMalformedDataURI.With("malformed data: URI: bad percent-encoding")
	}
	if !isBase64 {
		if len(text) > maxBytes {
			return nil, dataURITooLarge(maxBytes)
		}
		return []byte(text), nil
	}
	return decodeBase64(text, maxBytes)
}

func readHeader(header string) (isBase64 bool, err error) {
	params := strings.Split(header, ";")
	media := strings.ToLower(strings.TrimSpace(params[0]))
	if !acceptedMedia[media] {
		return false, errDataURIType.With(fmt.Sprintf("unsupported data: URI media type %q: use text/plain;charset=utf-8", clipDataURI(media)))
	}
	for i, p := range params[1:] {
		p = strings.ToLower(strings.TrimSpace(p))
		switch {
		case p == "base64" && i == len(params)-2:
			isBase64 = true
		case strings.HasPrefix(p, "charset="):
			cs := strings.Trim(strings.TrimPrefix(p, "charset="), `"`)
			if !acceptedCharst[cs] {
				return false, errDataURIType.With(fmt.Sprintf("unsupported data: URI charset %q: protocol documents are UTF-8", clipDataURI(cs)))
			}
		default:
			return false, errMalformedDataURI.With(fmt.Sprintf("malformed data: URI: unexpected parameter %q", clipDataURI(p)))
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
		return nil, dataURITooLarge(maxBytes)
	}
	out, err := enc.DecodeString(text)
	if err != nil {
		return nil, errMalformedDataURI.With("malformed data: URI: bad Base64 content")
	}
	return out, nil
}

func dataURITooLarge(maxBytes int) error {
	return errDataURITooLarge.With(fmt.Sprintf("data: URI content exceeds the limit of %d bytes", maxBytes))
}

func clipDataURI(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// DataURI builds the Base64 form of a data: URI for a document.
func DataURI(doc []byte) string {
	return "data:text/plain;charset=utf-8;base64," + base64.StdEncoding.EncodeToString(doc)
}
