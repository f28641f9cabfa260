package agora

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DigestSize is the length of a SHA-1 digest in bytes.
const DigestSize = 20

// Lengths of the two spellings of a digest.
const (
	hexDigestLen       = 2 * DigestSize // 40
	base64DigestLen    = 28             // with its one '=' of padding
	rawBase64DigestLen = 27             // without padding
)

// Digest identifies a protocol document: the SHA-1 of its exact bytes.
type Digest [DigestSize]byte

// ErrMalformedDigest is returned for text that is neither spelling of a digest.
var ErrMalformedDigest = newError(KindInvalid, "malformed_hash",
	"a protocol hash is 40 hexadecimal characters or 28 Base64 characters ending in '='")

// ParseDigest reads either spelling of a digest: 40 hex characters (any
// case) or Base64 (standard or URL-safe alphabet, padded or not). Because a
// '+' in a query string is often decoded to a space, a space is read as '+';
// Base64 never contains a space, so this is unambiguous.
func ParseDigest(s string) (Digest, error) {
	switch len(s) {
	case 0:
		return Digest{}, malformed("missing hash")
	case hexDigestLen:
		return parseHex(s)
	case base64DigestLen, rawBase64DigestLen:
		return parseBase64(s)
	}
	return Digest{}, malformed(fmt.Sprintf("malformed hash: it is %d characters long; %s",
		utf8.RuneCountInString(s), ErrMalformedDigest.Message))
}

func malformed(message string) error { return ErrMalformedDigest.With(message) }

func parseHex(s string) (Digest, error) {
	var d Digest
	if _, err := hex.Decode(d[:], []byte(s)); err != nil {
		return Digest{}, malformed("malformed hash: not hexadecimal (a hex hash is 40 characters 0-9 and a-f)")
	}
	return d, nil
}

func parseBase64(s string) (Digest, error) {
	s = strings.ReplaceAll(s, " ", "+")
	body, padding := s[:rawBase64DigestLen], s[rawBase64DigestLen:]
	for i := 0; i < len(body); i++ {
		if !isBase64Char(body[i]) {
			return Digest{}, malformed("malformed hash: neither hexadecimal nor Base64")
		}
	}
	if padding != "" && padding != "=" {
		return Digest{}, malformed("malformed hash: 28 characters, so Base64 with padding, but not ending in '='")
	}
	standard := strings.ContainsAny(body, "+/")
	urlSafe := strings.ContainsAny(body, "-_")
	if standard && urlSafe {
		return Digest{}, malformed("malformed hash: mixes the standard ('+', '/') and URL-safe ('-', '_') Base64 alphabets")
	}
	enc := base64.RawStdEncoding
	if urlSafe {
		enc = base64.RawURLEncoding
	}
	// 27 Base64 characters carry 162 bits, two more than a digest. Strict
	// refuses spellings whose two spare bits are set, so every digest has
	// exactly one accepted spelling per alphabet.
	var d Digest
	n, err := enc.Strict().Decode(d[:], []byte(body))
	if err != nil || n != DigestSize {
		return Digest{}, malformed("malformed hash: not canonical Base64 (the last character before '=' has unused bits set)")
	}
	return d, nil
}

func isBase64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '+' || c == '/' || c == '-' || c == '_'
}

// MustParseDigest is ParseDigest for constants in tests and examples.
func MustParseDigest(s string) Digest {
	d, err := ParseDigest(s)
	if err != nil {
		panic(err)
	}
	return d
}

// Hex is the canonical spelling, used in the Agora spec text.
func (d Digest) Hex() string { return hex.EncodeToString(d[:]) }

// Base64 is the spelling of the Agora Python SDK (standard alphabet, padded).
func (d Digest) Base64() string { return base64.StdEncoding.EncodeToString(d[:]) }

// String is the canonical hex spelling.
func (d Digest) String() string { return d.Hex() }

// IsZero reports whether d is the zero value (no digest).
func (d Digest) IsZero() bool { return d == Digest{} }

// MarshalText writes the canonical hex spelling.
func (d Digest) MarshalText() ([]byte, error) { return []byte(d.Hex()), nil }

// UnmarshalText accepts either spelling.
func (d *Digest) UnmarshalText(b []byte) error {
	p, err := ParseDigest(string(b))
	if err != nil {
		return err
	}
	*d = p
	return nil
}
