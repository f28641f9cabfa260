// Package protocol holds what registry and agent agree on about Agora
// protocol documents: their identity (a SHA-1 digest with two spellings),
// how they are hashed safely, what a valid document is, and the metadata
// read from its front matter.
package protocol

import (
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/agora-registry/registry/internal/apperr"
)

// DigestSize is the length of a SHA-1 digest in bytes.
const DigestSize = 20

// Digest identifies a protocol document: the SHA-1 of its exact bytes.
type Digest [DigestSize]byte

// ErrMalformedDigest is returned for text that is neither spelling of a digest.
var ErrMalformedDigest = apperr.New(apperr.Invalid, "malformed_hash",
	"a protocol hash is 40 hexadecimal characters or 28 Base64 characters ending in '='")

// ParseDigest reads either spelling of a digest: 40 hex characters (any
// case) or Base64 (standard or URL-safe alphabet, padded or not). Because a
// '+' in a query string is often decoded to a space, a space is read as '+';
// Base64 never contains a space, so this is unambiguous.
func ParseDigest(s string) (Digest, error) {
	var d Digest
	switch len(s) {
	case 40:
		if _, err := hex.Decode(d[:], []byte(s)); err != nil {
			return Digest{}, ErrMalformedDigest.With("malformed hash: 40 characters but not hexadecimal")
		}
		return d, nil
	case 27, 28:
		return parseBase64(s)
	}
	if s == "" {
		return Digest{}, ErrMalformedDigest.With("missing hash")
	}
	return Digest{}, ErrMalformedDigest
}

func parseBase64(s string) (Digest, error) {
	var d Digest
	s = strings.ReplaceAll(s, " ", "+")
	s = strings.TrimSuffix(s, "=")
	if len(s) != 27 {
		return Digest{}, ErrMalformedDigest
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	// Strict rejects spellings whose unused trailing bits are set, so every
	// digest has exactly one accepted spelling per alphabet.
	n, err := enc.Strict().Decode(d[:], []byte(s))
	if err != nil || n != DigestSize {
		return Digest{}, ErrMalformedDigest.With("malformed hash: 28 characters but not Base64")
	}
	return d, nil
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
