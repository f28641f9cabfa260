package agora

import (
	"strings"
	"testing"
)

func TestWireHashFollowsTheTarget(t *testing.T) {
	d := MustParseDigest(strings.Repeat("ab", 20))
	other := MustParseDigest(strings.Repeat("cd", 20))
	third := MustParseDigest(strings.Repeat("ef", 20))
	listed := func(keys ...string) WellKnownInfo {
		wk := newWellKnownInfo()
		for _, k := range keys {
			wk.addSupported(k, nil)
		}
		return wk
	}
	cases := []struct {
		name     string
		wk       WellKnownInfo
		spelling string
		want     string
	}{
		{"nothing known: the SDK's Base64", WellKnownInfo{}, "", d.Base64()},
		{"listed: exactly as listed", listed(strings.ToUpper(d.Hex())), "", strings.ToUpper(d.Hex())},
		{"listed in Base64", listed(d.Base64(), other.Hex()), "", d.Base64()},
		{"not listed, keys all hex", listed(other.Hex(), third.Hex()), "", d.Hex()},
		{"not listed, keys all Base64", listed(other.Base64()), "", d.Base64()},
		{"not listed, keys mixed", listed(other.Hex(), third.Base64()), "", d.Base64()},
		{"no keys, accepted spellings", WellKnownInfo{HashSpellings: []string{"HEX", "base64"}}, "", d.Hex()},
		{"override hex", listed(d.Base64()), SpellingHex, d.Hex()},
		{"override base64", listed(d.Hex()), SpellingBase64, d.Base64()},
	}
	for _, c := range cases {
		if got := WireHash(c.wk, d, c.spelling); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	for _, bad := range []string{"hexadecimal", "b32"} {
		if _, err := ParseSpelling(bad); err == nil {
			t.Errorf("--hash-spelling %s accepted", bad)
		}
	}
}
