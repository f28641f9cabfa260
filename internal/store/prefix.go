package store

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
)

// Limits of a hash-prefix lookup (the short hashes listings show).
const (
	MinHashPrefix    = 8  // hex digits: shorter prefixes match too much to be worth a lookup
	MaxPrefixMatches = 20 // entries one ByPrefix call returns at most
)

// ErrMalformedPrefix refuses a prefix that is not 8 to 40 hex digits.
var ErrMalformedPrefix = apperr.New(apperr.Invalid, "malformed_hash_prefix",
	fmt.Sprintf("a hash prefix is %d to 40 hexadecimal digits", MinHashPrefix))

// HashPrefix is a checked, lower-case hex prefix of a digest.
type HashPrefix struct{ hex string }

// ParseHashPrefix reads a hex prefix of MinHashPrefix to 40 digits, either
// case.
func ParseHashPrefix(s string) (HashPrefix, error) {
	if len(s) < MinHashPrefix || len(s) > 2*protocol.DigestSize {
		return HashPrefix{}, ErrMalformedPrefix.With(fmt.Sprintf("a hash prefix is %d to 40 hexadecimal digits; this is %d characters", MinHashPrefix, len(s)))
	}
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return HashPrefix{}, ErrMalformedPrefix
		}
	}
	return HashPrefix{hex: strings.ToLower(s)}, nil
}

// IsHex reports whether s is one or more hexadecimal digits: text that may
// be meant as a hash prefix, even one too short to be one.
func IsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// String is the prefix in lower-case hex.
func (p HashPrefix) String() string { return p.hex }

// Range is the inclusive range of digests that start with the prefix: the
// prefix padded with zeros, then with f's. Engines scan their digest key
// between the two, so a lookup reads only the matching rows.
func (p HashPrefix) Range() (lo, hi protocol.Digest) {
	pad := 2*protocol.DigestSize - len(p.hex)
	// Both decode: the prefix is hex and the padding is too.
	_, _ = hex.Decode(lo[:], []byte(p.hex+strings.Repeat("0", pad)))
	_, _ = hex.Decode(hi[:], []byte(p.hex+strings.Repeat("f", pad)))
	return lo, hi
}

// CheckPrefixLimit refuses a ByPrefix limit outside 1..MaxPrefixMatches.
func CheckPrefixLimit(n int) error {
	if n < 1 || n > MaxPrefixMatches {
		return ErrInvalid.With(fmt.Sprintf("a prefix lookup returns 1 to %d entries", MaxPrefixMatches))
	}
	return nil
}
