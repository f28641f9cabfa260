package main

import "testing"

// A stranger's well-known strings cannot drive the terminal.
func TestPrintableDropsControlCharacters(t *testing.T) {
	if got := printable("http://x/\x1b]0;PWNED\a\x1b[2J\nnext"); got != "http://x/\uFFFD]0;PWNED\uFFFD\uFFFD[2J\nnext" {
		t.Fatalf("printable = %q", got)
	}
}
