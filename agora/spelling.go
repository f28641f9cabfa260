package agora

import (
	"fmt"
	"strings"
)

// Hash spellings on the wire: 40 hex characters, or the SDK's Base64 of
// the SHA-1 (28 characters with padding).
const (
	SpellingHex    = "hex"
	SpellingBase64 = "base64"
)

// spellingOf says how a hash key is written; "" when it is no hash.
func spellingOf(key string) string {
	if _, err := ParseDigest(key); err != nil {
		return ""
	}
	if len(key) == 40 {
		return SpellingHex
	}
	return SpellingBase64
}

// ParseSpelling reads a --hash-spelling value: hex, base64, or "" (auto).
func ParseSpelling(s string) (string, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return "", nil
	case SpellingHex:
		return SpellingHex, nil
	case SpellingBase64, "b64":
		return SpellingBase64, nil
	}
	return "", fmt.Errorf("hash spelling %q: use hex or base64", s)
}

// WireHash writes d the way the target expects. An explicit spelling wins;
// else the key the target listed d under, exactly as listed; else the one
// spelling all the target's keys use; else the first spelling it says it
// accepts; else Base64, the deployed SDK's only spelling (its receiver
// finds nothing under a hex hash).
func WireHash(wk WellKnownInfo, d Digest, spelling string) string {
	switch spelling {
	case SpellingHex:
		return d.Hex()
	case SpellingBase64:
		return d.Base64()
	}
	if key, ok := wk.Keys[d]; ok {
		return key
	}
	if s := wk.keySpelling(); s != "" {
		return WireHash(wk, d, s)
	}
	for _, s := range wk.HashSpellings {
		if s = strings.ToLower(s); s == SpellingHex || s == SpellingBase64 {
			return WireHash(wk, d, s)
		}
	}
	return d.Base64()
}

// keySpelling is the spelling every listed key shares; "" when the target
// lists none or mixes them.
func (wk WellKnownInfo) keySpelling() string {
	seen := ""
	for _, key := range wk.Keys {
		s := spellingOf(key)
		if seen != "" && s != seen {
			return ""
		}
		seen = s
	}
	return seen
}
