package agora

import (
	"strings"
	"testing"
)

// A refused dial names the address a host name resolved to: the sender
// hears only that the address is not allowed.
func TestBlockedSourceNamesNoAddress(t *testing.T) {
	err := ErrFetchBlocked.With("refusing to connect to 10.1.2.3:22: private, loopback or reserved address")
	if got := errText(err); strings.Contains(got, "10.1.2.3") || got != ErrFetchBlocked.Message {
		t.Fatalf("errText = %q", got)
	}
}
