package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// billionLaughs nests n levels of ten aliases each inside the sections
// value (the part the YAML package decodes into Go values): 10^n scalars
// if expanded.
func billionLaughs(n int) string {
	var b strings.Builder
	b.WriteString("sections:\n  - hash: h\n    l0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < n; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "    l%d: &a%d [%s%s]\n", i, i, strings.Repeat(p+", ", 9), p)
	}
	fmt.Fprintf(&b, "  - hash: *a%d\nitems: *a%d\n", n-1, n-1)
	return b.String()
}

// A config file is the operator's, but a copied or generated one must
// still fail clearly and cheaply: aliases are not expanded into a
// billion values, a huge file is refused before it is parsed, and a
// non-regular file (a device) is not read without end.
func TestHostileConfigFiles(t *testing.T) {
	_, err := parseFile(t, []string{"--config", writeFile(t, billionLaughs(9))}, nil)
	if err == nil {
		t.Error("a billion laughs was accepted")
	}
	t.Logf("a billion laughs: %v", err)
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("name: x\n"+strings.Repeat("# padding\n", MaxFileBytes/10+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err = parseFile(t, []string{"--config", big}, nil); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a huge file: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := parseFile(t, []string{"--config", "/dev/zero"}, nil); err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}
