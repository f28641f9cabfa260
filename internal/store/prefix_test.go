package store

import (
	"errors"
	"testing"
)

func TestHashPrefixRange(t *testing.T) {
	p, err := ParseHashPrefix("AbCdEf012")
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := p.Range()
	if p.String() != "abcdef012" || lo.Hex() != "abcdef0120000000000000000000000000000000" || hi.Hex() != "abcdef012fffffffffffffffffffffffffffffff" {
		t.Fatalf("prefix %s: range %s to %s", p, lo, hi)
	}
	for _, bad := range []string{"", "abcdef0", "abcdef0g", "abcdef01 ", "abcdef01abcdef01abcdef01abcdef01abcdef012", "ａbcdef01"} {
		if _, err := ParseHashPrefix(bad); !errors.Is(err, ErrMalformedPrefix) {
			t.Errorf("ParseHashPrefix(%q) = %v, want ErrMalformedPrefix", bad, err)
		}
	}
}
